#include "app/workbench/help/help_topics.h"

#include <QHash>

namespace dpmix::workbench {

QList<HelpDocument> manualDocuments() {
    return {{QStringLiteral("WORKBENCH.md"), QStringLiteral("The workbench")},
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
    const QString views = QStringLiteral("Result views (central tabs)");
    static const QHash<QString, HelpTopic> topics{
        {QStringLiteral("lambdaView"), {QStringLiteral("WORKBENCH.md"), views}},
        {QStringLiteral("trajectoryView"), {QStringLiteral("WORKBENCH.md"), views}},
        {QStringLiteral("tradeoffView"), {QStringLiteral("WORKBENCH.md"), views}},
        {QStringLiteral("aucView"), {QStringLiteral("WORKBENCH.md"), views}},
        {QStringLiteral("perplexityView"), {QStringLiteral("WORKBENCH.md"), views}},
        {QStringLiteral("kscalingView"), {QStringLiteral("WORKBENCH.md"), views}},
        {QStringLiteral("ledgerView"), {QStringLiteral("PRIVACY.md"), QStringLiteral("The ledger")}},
        {QStringLiteral("auditView"), {QStringLiteral("AUDIT.md"), QStringLiteral("Audits in a project")}},
        {QStringLiteral("rundetailsView"), {QStringLiteral("WORKBENCH.md"), QStringLiteral("Run details")}},
        {QStringLiteral("privatesetView"), {QStringLiteral("PSG.md"), QStringLiteral("Workbench")}},
        {QStringLiteral("adamixView"), {QStringLiteral("ADAMIX.md"), QStringLiteral("The experiment")}},
        {QStringLiteral("exampleprivacyView"),
         {QStringLiteral("ADAMIX.md"), QStringLiteral("Per-example privacy: an estimate")}},
        {QStringLiteral("calculatorView"),
         {QStringLiteral("WORKBENCH.md"), QStringLiteral("Live privacy calculation")}},
    };
    return topics.value(viewObjectName, HelpTopic{QStringLiteral("WORKBENCH.md"), QStringLiteral("The window")});
}

}  // namespace dpmix::workbench
