#include "app/workbench/views/tidy_fields.h"

#include "widgets/plot_table.h"

namespace dpmix::workbench {

QString taskCell(const std::string& task) { return QString::fromStdString(task); }

QString numberCell(std::optional<double> value) { return value ? widgets::formatExact(*value) : QString(); }

QString runEpsilonCell(const std::string& method, std::optional<double> epsilon) {
    if (methods::isNonPrivateChoice(method)) return QStringLiteral("inf");
    return numberCell(epsilon);
}

QString lambdaEpsilonCell(methods::Choice choice, double epsilon) {
    switch (choice) {
        case methods::Choice::Private: return widgets::formatExact(epsilon);
        case methods::Choice::NonPrivate: return QStringLiteral("inf");
        case methods::Choice::Public:
        case methods::Choice::None: return QStringLiteral("0");
    }
    return {};
}

widgets::TidyFields runFields(const project::RunRecord& run) {
    return {{QStringLiteral("run"), QString::number(run.id)},
            {QStringLiteral("task"), taskCell(run.task)},
            {QStringLiteral("epsilon"), runEpsilonCell(run.method, run.epsilon)},
            {QStringLiteral("method"), QString::fromStdString(run.method)},
            {QStringLiteral("seed"), QString::number(run.seed)}};
}

}  // namespace dpmix::workbench
