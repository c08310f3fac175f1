// `dpmix export-release PROJECT --runs ID[,ID...] -o RELEASE.dpmix`: a new project file with
// only the chosen DP runs' released outputs and their ledgers (project/release_export.h), for
// sharing outside the data owner's trust boundary. Refuses non-private, reproducible-mode,
// audit and unfinished runs, and runs whose guarantee is not established unless confirmed.
#include "app/cli/cli_support.h"
#include "app/cli/command.h"
#include "app/cli/project_commands.h"
#include "engine/audit_runs/training_audit_stage.h"
#include "engine/privacy/ledger_json.h"
#include "engine/privacy/parameters.h"
#include "engine/project/owner_key.h"
#include "engine/project/release_export.h"
#include "engine/project/trust_verdict.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

namespace dpmix::cli {
namespace {

// A run whose claim a stored audit refuted is not released, confirmed or not (docs/AUDIT.md).
std::optional<std::string> refutedRun(const project::ProjectFile& project, const std::vector<long long>& runIds) {
    auto audits = audit_runs::storedMechanismAudits(project);
    if (!audits) return audits.error().message;
    for (const long long id : runIds) {
        auto ledgers = project.ledgers(id);
        if (!ledgers || ledgers->empty()) continue;  // exportRelease reports unknown runs and missing ledgers
        auto ledger = privacy::ledgerFromJson(ledgers->back().ledgerJson);
        if (!ledger) continue;
        if (auto why = audit::refutedClaim(ledger->entries(), *audits))
            return "run " + std::to_string(id) + " cannot be released as a DP result: " + *why;
    }
    return std::nullopt;
}

// "2,3,7" → {2, 3, 7}; an error names the piece that is not a run id.
Result<std::vector<long long>> parseRunIds(const std::string& text) {
    std::vector<long long> ids;
    std::stringstream in(text);
    std::string piece;
    while (std::getline(in, piece, ',')) {
        std::size_t used = 0;
        long long id = 0;
        try {
            id = std::stoll(piece, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != piece.size() || id <= 0)
            return Error{"--runs: \"" + piece +
                         "\" is not a run id (expected positive integers separated by commas, "
                         "e.g. --runs 2,3; `dpmix inspect` lists the runs)"};
        ids.push_back(id);
    }
    if (ids.empty()) return Error{"--runs: no run id given (e.g. --runs 2,3)"};
    return ids;
}

// "7=the ethics board accepted it" → {7, reason}.
Result<project::ReleaseConfirmation> parseConfirmation(const std::string& text) {
    const auto eq = text.find('=');
    auto ids = parseRunIds(text.substr(0, eq));
    if (eq == std::string::npos || !ids || ids->size() != 1)
        return Error{"--confirm-unestablished: \"" + text +
                     "\" is not RUN=REASON (e.g. --confirm-unestablished "
                     "7=\"accepted by the ethics board, ref. 2026-14\")"};
    return project::ReleaseConfirmation{ids->front(), text.substr(eq + 1)};
}

struct ExportReleaseArgs {
    std::string projectPath;
    std::string runs;
    std::string output;
    std::vector<std::string> confirmations;
    bool testMetrics = false;
    bool force = false;
    bool json = false;
};

}  // namespace

void registerExportReleaseCommand(CLI::App& app, CommandContext& ctx) {
    // The arguments live as long as the command (CLI11 writes into them when it parses).
    auto args = std::make_shared<ExportReleaseArgs>();
    auto* cmd = app.add_subcommand("export-release",
                                   "Write a DP release: a new project file with only the chosen DP runs' outputs and "
                                   "ledgers, safe to share outside the data owner's trust boundary");
    cmd->add_option("project", args->projectPath, "the project (.dpmix) to export from")->required();
    cmd->add_option("--runs", args->runs, "the DP runs to release, e.g. 2,3 (`dpmix inspect` lists them)")->required();
    cmd->add_option("-o,--output", args->output, "the release file to write (.dpmix)")->required();
    cmd->add_flag("--include-test-metrics", args->testMetrics,
                  "also copy the runs' metrics of the sensitive test split (NOT covered by the guarantee; every view "
                  "of the release says so)");
    cmd->add_option("--confirm-unestablished", args->confirmations,
                    "RUN=REASON: release a run whose guarantee is only claimed by its authors (the Dirichlet "
                    "mechanism); the reason is recorded in the release");
    cmd->add_flag("--force", args->force, "replace the output file if it exists");
    cmd->add_flag("--json", args->json, "print the result as one JSON object");
    cmd->callback([&ctx, args] {
        auto fail = [&ctx](const std::string& message, int code) {
            std::cerr << "dpmix export-release: " << message << '\n';
            ctx.exitCode = code;
        };
        project::ReleaseOptions options;
        auto ids = parseRunIds(args->runs);
        if (!ids) return fail(ids.error().message, 2);
        options.runIds = *ids;
        for (const auto& c : args->confirmations) {
            auto parsed = parseConfirmation(c);
            if (!parsed) return fail(parsed.error().message, 2);
            options.confirmUnestablished.push_back(*parsed);
        }
        options.includeTestMetrics = args->testMetrics;
        options.replace = args->force;
        auto project = project::ProjectFile::open(args->projectPath, project::OpenMode::ReadOnly);
        if (!project) return fail(project.error().message, 2);
        if (const auto integrity = checkIntegrity(*project); !integrity.ok)
            return fail(
                args->projectPath + ": " + integrity.line + ": a release is only exported from an intact project", 1);
        if (auto refuted = refutedRun(*project, options.runIds)) return fail(*refuted, 2);
        // Every release carries the data owner's signature (the key is made on first use), so a
        // reviewer can tell it is theirs and unchanged: `dpmix verify RELEASE --key owner.pub`.
        auto keyDir = project::ownerKeyDir();
        if (!keyDir) return fail("cannot sign the release: " + keyDir.error().message, 2);
        bool keyCreated = false;
        auto key = project::loadOrCreateOwnerKey(*keyDir, &keyCreated);
        if (!key) return fail("cannot sign the release: " + key.error().message, 1);
        options.signWith = &*key;
        auto summary = project::exportRelease(*project, args->output, options);
        if (!summary) return fail(cliMessage(summary.error()), 2);
        const auto& m = summary->manifest;
        if (args->json) {
            nlohmann::ordered_json out{{"release", summary->file.string()},
                                       {"runs", m.runs},
                                       {"epsilon", m.epsilon},
                                       {"delta", m.delta},
                                       {"unit", m.unit},
                                       {"includes_test_metrics", m.includesTestMetrics},
                                       {"rows", summary->rows},
                                       {"model_files", summary->modelFiles},
                                       {"signed_by", key->publicKey.fingerprint()}};
            std::cout << out.dump(2) << '\n';
        } else {
            char epsilon[32];
            std::snprintf(epsilon, sizeof epsilon, "%.4f", m.epsilon);
            std::cout << "wrote " << summary->file.string() << ": " << m.runs.size() << " run(s), " << m.releases
                      << " DP release(s) composed to epsilon " << epsilon << " at delta "
                      << privacy::formatNumber(m.delta) << " per " << (m.unit == "users" ? "user" : "example") << "\n";
            for (const auto& [table, n] : summary->rows) std::cout << "  " << table << ": " << n << "\n";
            if (m.includesTestMetrics)
                std::cout << "  includes test metrics of the sensitive test split: NOT covered by the guarantee\n";
            std::cout << "  signed by " << key->publicKey.fingerprint()
                      << (keyCreated ? " (a new owner key pair in " + keyDir->string() + ")" : std::string()) << "\n";
            std::cout << "  read it with: dpmix inspect " << args->output
                      << "; a reviewer with your owner.pub: dpmix verify " << args->output << " --key owner.pub\n";
        }
        ctx.exitCode = 0;
    });
}

}  // namespace dpmix::cli
