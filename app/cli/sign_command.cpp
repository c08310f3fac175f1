// `dpmix sign PROJECT` (the data owner signs a project as it is now) and `dpmix verify FILE
// --key owner.pub` (the reviewer's one command: exit 0 when FILE carries a signature by that key
// that covers it as it is, and nothing in it was altered; 1 otherwise, with every reason).
#include "app/cli/command.h"
#include "app/cli/terminal_safe.h"
#include "engine/project/integrity_report.h"
#include "engine/project/owner_key.h"
#include "engine/project/project_file.h"

#include <iostream>
#include <memory>
#include <optional>
#include <string>

namespace dpmix::cli {
namespace {

struct SignArgs {
    std::string file;
    std::string key;
};

// Reasons the file is not verified by `key` (none: verified), and the signature that holds.
std::vector<std::string> reasonsNotVerified(const project::IntegrityReport& report, const project::OwnerPublicKey& key,
                                            const project::SignatureCheck** by) {
    std::vector<std::string> reasons = report.problems();
    *by = nullptr;
    for (const auto& s : report.signatures)
        if (s.signer.bytes == key.bytes && s.valid && s.current) *by = &s;
    if (*by) return reasons;
    bool signedByKey = false;
    for (const auto& s : report.signatures)
        if (s.signer.bytes == key.bytes) {
            signedByKey = true;
            // An invalid signature, and a release changed after signing, are among the report's
            // problems already; a project changed since is only a notice there.
            if (s.valid && !s.current && !report.release)
                reasons.push_back("it was changed after " + key.fingerprint() + " signed it (" + s.signedAt + ")");
        }
    if (!signedByKey) {
        std::string others;
        for (const auto& s : report.signatures) others += (others.empty() ? "" : ", ") + s.signer.fingerprint();
        reasons.push_back(
            "it carries no signature by " + key.fingerprint() +
            (others.empty() ? std::string(" (it is not signed at all)") : " (signed only by " + others + ")"));
    }
    return reasons;
}

}  // namespace

void registerSignCommands(CLI::App& app, CommandContext& ctx) {
    auto signArgs = std::make_shared<SignArgs>();
    auto* sign =
        app.add_subcommand("sign", "Sign a project as it is now with the data owner's key (made on first use)");
    sign->add_option("project", signArgs->file, "the project file (.dpmix)")->required();
    sign->callback([&ctx, signArgs] {
        auto fail = [&ctx](const std::string& message, int code) {
            std::cerr << "dpmix sign: " << message << '\n';
            ctx.exitCode = code;
        };
        auto dir = project::ownerKeyDir();
        if (!dir) return fail(dir.error().message, 2);
        // An owner key that is there but unusable (readable by others, damaged) is refused before
        // the project is opened for writing; a missing one is made only for a file that is signed.
        std::optional<project::OwnerKeyPair> existing;
        if (project::hasOwnerKey(*dir)) {
            auto loaded = project::loadOwnerKey(*dir);
            if (!loaded) return fail(loaded.error().message, 1);
            existing = std::move(loaded).value();
        }
        auto opened = project::ProjectFile::open(signArgs->file, project::OpenMode::ReadWrite);
        if (!opened) return fail(opened.error().message, 2);
        auto project = std::make_unique<project::ProjectFile>(std::move(opened).value());
        // Only an intact file is signed: a signature must never vouch for an altered one.
        auto report = project->verifyIntegrity({/*hashModels=*/true});
        if (!report) return fail(report.error().message, 1);
        if (!report->ok()) return fail(signArgs->file + ": not signed: " + report->summaryLine(), 1);
        bool created = false;
        auto key = existing ? Result<project::OwnerKeyPair>(*existing) : project::createOwnerKey(*dir);
        if (!key) return fail(key.error().message, 1);
        created = !existing;
        if (auto e = project->sign(*key)) return fail(e->message, 1);
        if (created)
            std::cout << "made a new owner key pair in " << dir->string() << " (give owner.pub to your reviewers)\n";
        std::cout << "signed " << project->path().string() << " by " << key->publicKey.fingerprint()
                  << "\n  a reviewer checks it with: dpmix verify " << signArgs->file << " --key owner.pub\n";
        ctx.exitCode = 0;
    });

    auto verifyArgs = std::make_shared<SignArgs>();
    auto* verify = app.add_subcommand(
        "verify",
        "Check that a project or release was signed by the owner's key and not altered since (exit 0: verified)");
    verify->add_option("file", verifyArgs->file, "the project or release file (.dpmix)")->required();
    verify->add_option("--key", verifyArgs->key, "the owner's public key file (owner.pub), received from the owner")
        ->required();
    verify->callback([&ctx, verifyArgs] {
        auto notVerified = [&ctx, verifyArgs](const std::vector<std::string>& reasons) {
            std::cout << "NOT VERIFIED: " << oneLine(verifyArgs->file) << "\n";
            for (const auto& r : reasons) std::cout << "  ✗ " << oneLine(r) << "\n";
            ctx.exitCode = 1;
        };
        auto key = project::readPublicKeyFile(verifyArgs->key);
        if (!key) return notVerified({key.error().message});
        auto project = project::ProjectFile::open(verifyArgs->file, project::OpenMode::ReadOnly);
        if (!project) return notVerified({project.error().message});
        auto report = project->verifyIntegrity({/*hashModels=*/true});
        if (!report) return notVerified({report.error().message});
        const project::SignatureCheck* by = nullptr;
        const auto reasons = reasonsNotVerified(*report, *key, &by);
        if (!reasons.empty()) return notVerified(reasons);
        std::cout << "verified: " << verifyArgs->file << " was signed by " << key->fingerprint() << " at "
                  << by->signedAt
                  << ", and nothing in it changed since (hash chain, seal, run history, ledgers recomputed, "
                  << report->modelFiles << " model file(s) hashed)\n";
        ctx.exitCode = 0;
    });
}

}  // namespace dpmix::cli
