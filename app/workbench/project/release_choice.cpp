#include "app/workbench/project/release_choice.h"

#include "engine/privacy/ledger_json.h"
#include "engine/project/release_export.h"

namespace dpmix::workbench {

std::vector<ReleaseCandidate> releaseCandidates(const ProjectSnapshot& project) {
    std::vector<ReleaseCandidate> out;
    const auto audits = mechanismAudits(project);
    for (const auto& r : project.runs) {
        ReleaseCandidate c;
        c.runId = r.run.id;
        c.label = QStringLiteral("Run %1: %2").arg(r.run.id).arg(methodLabel(r.run.method));
        if (!r.run.task.empty()) c.label += QStringLiteral(" '%1'").arg(QString::fromStdString(r.run.task));
        if (r.run.epsilon) c.label += QStringLiteral(" ε %1").arg(*r.run.epsilon);
        c.label += QStringLiteral(" seed %1").arg(r.run.seed);
        std::optional<privacy::Ledger> ledger;
        if (!r.ledgers.empty()) {
            auto parsed = privacy::ledgerFromJson(r.ledgers.back().ledgerJson);
            if (!parsed) {
                c.why =
                    QStringLiteral("its ledger cannot be read: %1").arg(QString::fromStdString(parsed.error().message));
                out.push_back(c);
                continue;
            }
            ledger = std::move(parsed).value();
        }
        const auto confirmed = project::whyNotReleasable(r.run, ledger, true);
        const auto plain = project::whyNotReleasable(r.run, ledger, false);
        c.releasable = !confirmed;
        c.needsReason = c.releasable && plain.has_value();
        if (confirmed)
            c.why = QString::fromStdString(*confirmed);
        else if (plain)
            c.why =
                QStringLiteral("its guarantee is only claimed by its authors (not established): a reason is recorded");
        // A claim an audit refuted is known not to hold: no reason makes it a DP release.
        if (ledger && c.releasable)
            if (auto refuted = audit::refutedClaim(ledger->entries(), audits)) {
                c.releasable = false;
                c.needsReason = false;
                c.why = QString::fromStdString(*refuted);
            }
        out.push_back(c);
    }
    return out;
}

}  // namespace dpmix::workbench
