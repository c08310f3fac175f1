#include "engine/project/integrity_report.h"

#include "engine/project/ledger_checks.h"
#include "engine/project/project_file.h"
#include "engine/project/project_file_support.h"
#include "engine/project/schema.h"
#include "engine/project/sqlite_db.h"

namespace dpmix::project {
namespace {

std::string signatureProblem(const SignatureCheck& s, bool release) {
    if (!s.valid)
        return "the signature by " + s.signer.fingerprint() +
               " does not verify (the signature or what it signs was edited)";
    if (!s.current && release)
        return "the release was changed after " + s.signer.fingerprint() + " signed it (" + s.signedAt + ")";
    return "";
}

}  // namespace

bool IntegrityReport::ok() const { return problems().empty(); }

std::vector<std::string> IntegrityReport::problems() const {
    std::vector<std::string> out;
    if (!chain.ok && chain.firstBreak)
        out.push_back("hash chain ✗ at table " + chain.firstBreak->table + ", row id " +
                      std::to_string(chain.firstBreak->rowId));
    // A file of schema 6 or later was made with these tables: one that is gone was dropped.
    if (schemaVersion >= 6 && !seal.present)
        out.push_back("seal ✗ the file is of schema " + std::to_string(schemaVersion) +
                      " but has no seal table (removed outside dpmix): its last rows and run statuses are not covered");
    if (schemaVersion >= 6 && !transitions.present)
        out.push_back("run history ✗ the file is of schema " + std::to_string(schemaVersion) +
                      " but has no run_transitions table (removed outside dpmix)");
    for (const auto& p : seal.problems) out.push_back("seal ✗ " + p);
    for (const auto& p : transitions.problems) out.push_back(p);
    for (const auto& p : ledgerProblems) out.push_back(p);
    for (const auto& p : modelProblems) out.push_back(p);
    for (const auto& s : signatures)
        if (auto p = signatureProblem(s, release); !p.empty()) out.push_back(p);
    return out;
}

std::vector<std::string> IntegrityReport::notices() const {
    std::vector<std::string> out;
    if (!seal.present && schemaVersion < 6)
        out.push_back("written before schema 6 (version " + std::to_string(schemaVersion) +
                      "): it has no seal, run history or signature, so a deleted last run or a changed run status "
                      "cannot be detected; open it read-write once with this dpmix to add them");
    for (const auto& s : signatures)
        if (s.valid && !s.current && !release)
            out.push_back("the signature by " + s.signer.fingerprint() + " (" + s.signedAt +
                          ") covers the project as it was then, not its later runs: sign it again (dpmix sign)");
    return out;
}

std::string IntegrityReport::summaryLine() const {
    const auto found = problems();
    if (found.empty()) {
        std::string line =
            "hash chain ✓ (" + std::to_string(chain.rowsChecked) + " rows): the stored results are as written";
        if (seal.present) line += "; seal ✓ (no row removed, run statuses as recorded)";
        line += "; ledgers recomputed ✓";
        if (modelsChecked) line += "; model files ✓ (" + std::to_string(modelFiles) + ")";
        return line;
    }
    std::string line = found.front();
    if (!chain.ok && chain.firstBreak)
        line =
            "hash chain ✗ at table " + chain.firstBreak->table + ", row id " + std::to_string(chain.firstBreak->rowId);
    else
        line = "integrity ✗ " + line;
    if (found.size() > 1) line += " (and " + std::to_string(found.size() - 1) + " more)";
    return line + ": the project was altered after it was written; the figures below cannot be trusted";
}

std::vector<std::string> IntegrityReport::signatureLines() const {
    std::vector<std::string> out;
    if (signatures.empty()) {
        out.push_back(seal.present
                          ? "not signed (the data owner signs with `dpmix sign`; releases are signed at export)"
                          : "not signed (the file predates signatures)");
        return out;
    }
    for (const auto& s : signatures) {
        std::string line = "signed by " + s.signer.fingerprint() + " at " + s.signedAt + ": ";
        if (!s.valid)
            line += "✗ does not verify";
        else if (!s.current)
            line += release ? "✗ the file changed after signing" : "✓ valid, but the project changed since";
        else
            line += "✓ verifies (the owner's key is known only if you got it from the owner: dpmix verify --key)";
        out.push_back(line);
    }
    return out;
}

Result<IntegrityReport> ProjectFile::verifyIntegrity(const IntegrityOptions& options) const {
    try {
        IntegrityReport r;
        r.schemaVersion = db_->pragmaInteger("user_version");
        r.release = isRelease();
        r.chain = verifyChains(*db_);
        r.seal = checkSeal(*db_);
        r.transitions = checkRunTransitions(*db_);
        auto ledgers = checkLedgers(*this);
        if (!ledgers) return ledgers.error();
        r.ledgerProblems = *ledgers;
        if (options.hashModels) {
            r.modelsChecked = true;
            Statement s(db_->handle(), "SELECT run_id, name, content_hash, file_name, bytes FROM models ORDER BY id");
            while (s.step()) {
                ++r.modelFiles;
                const ModelRecord m{s.integer(0), s.text(1), s.text(2), s.text(3), s.integer(4)};
                if (auto bytes = loadModel(m); !bytes)
                    r.modelProblems.push_back("run " + std::to_string(m.runId) + " model " + m.name + ": " +
                                              bytes.error().message);
            }
        }
        r.signatures = checkSignatures(*db_);
        return r;
    } catch (const std::exception& e) {
        return detail::storageError(path_, "check the file's integrity", e);
    }
}

Status ProjectFile::sign(const OwnerKeyPair& key) {
    if (auto e = refuseWrite("sign the project")) return *e;
    try {
        Transaction t(*db_);  // refused when the file no longer matches its seal (seal.h)
        insertSignature(*db_, key);
        t.commit();
        return std::nullopt;
    } catch (const std::exception& e) {
        return detail::storageError(path_, "sign the project", e);
    }
}

}  // namespace dpmix::project
