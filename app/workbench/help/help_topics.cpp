#include "app/workbench/help/help_topics.h"

#include <QHash>

namespace dpmix::workbench {

QList<HelpDocument> manualDocuments() {
    return {{QStringLiteral("MANUAL.md"), QStringLiteral("User manual")},
            {QStringLiteral("WORKBENCH.md"), QStringLiteral("The workbench (reference)")},
            {QStringLiteral("GLOSSARY.md"), QStringLiteral("Glossary")},
            {QStringLiteral("METHODS.md"), QStringLiteral("Methods and baselines")},
            {QStringLiteral("PRIVACY.md"), QStringLiteral("Privacy accounting")},
            {QStringLiteral("RHO_GUIDANCE.md"), QStringLiteral("Choosing ρ")},
            {QStringLiteral("AUDIT.md"), QStringLiteral("Audits")},
            {QStringLiteral("PSG.md"), QStringLiteral("Private Set Generation")},
            {QStringLiteral("ADAMIX.md"), QStringLiteral("AdaMix-R")},
            {QStringLiteral("CLUSTER.md"), QStringLiteral("Running on a cluster (Slurm)")}};
}

QString manualUrl(const QString& document) { return QStringLiteral("qrc:/dpmix/manual/") + document; }

HelpTopic helpTopicFor(const QString& viewObjectName) {
    // F1 answers in the user manual, in plain words; the reference documents stay in the list.
    auto manual = [](const char* heading) {
        return HelpTopic{QStringLiteral("MANUAL.md"), QString::fromUtf8(heading)};
    };
    static const QHash<QString, HelpTopic> topics{
        {QStringLiteral("summaryView"), manual("Summary")},
        {QStringLiteral("lambdaView"), manual("λ by task")},
        {QStringLiteral("ledgerView"), manual("Ledger")},
        {QStringLiteral("trajectoryView"), manual("Trajectory")},
        {QStringLiteral("tradeoffView"), manual("Trade-off")},
        {QStringLiteral("aucView"), manual("AUC")},
        {QStringLiteral("aucepsilonView"), manual("AUC vs ε")},
        {QStringLiteral("perplexityView"), manual("Perplexity")},
        {QStringLiteral("auditView"), manual("Audit results")},
        {QStringLiteral("kscalingView"), manual("k-scaling")},
        {QStringLiteral("privatesetView"), manual("Private set")},
        {QStringLiteral("adamixView"), manual("AdaMix-R and Who pays")},
        {QStringLiteral("exampleprivacyView"), manual("AdaMix-R and Who pays")},
        {QStringLiteral("rundetailsView"), manual("Reading the results")},
        {QStringLiteral("calculatorView"), manual("Choosing the privacy settings")},
    };
    return topics.value(viewObjectName, manual("The window"));
}

}  // namespace dpmix::workbench
