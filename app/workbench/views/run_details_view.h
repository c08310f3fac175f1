#pragma once
// The Run details tab: one stored run as an experiment tracker's run page — its identity and
// timeline, configuration (key/value), privacy ledger (stage, split, ε, δ, accountant, mechanism
// parameters, composed total), metrics, λ records, curves and stored models. It follows the run
// selected in the project tree and edits nothing, so read-only projects show it too. The values
// come from run_details.h.
#include "app/workbench/project/project_snapshot.h"

#include <QWidget>

#include <optional>

class QGroupBox;
class QLabel;
class QStackedWidget;
class QTableWidget;

namespace dpmix::workbench {

enum class RunDetailsPart { Config, Ledger, Metrics, Lambdas, Curves, Models };

class RunDetailsView : public QWidget {
    Q_OBJECT

public:
    explicit RunDetailsView(QWidget* parent = nullptr);

    /// Shows run `runId` of `project` (the empty state when the project has no such run).
    void showRun(const ProjectSnapshot& project, long long runId);
    /// Shows the empty state ("Select a run in the project tree").
    void showEmpty();

    /// The run shown, and the project it is from (none / empty in the empty state).
    std::optional<long long> runId() const { return runId_; }
    QString projectPath() const { return projectPath_; }
    bool showsEmptyState() const;

    QLabel* emptyState() const { return emptyState_; }
    QLabel* title() const { return title_; }
    QLabel* timeline() const { return timeline_; }
    QLabel* message() const { return message_; }
    QLabel* ledgerTotal() const { return ledgerTotal_; }
    /// A part's table (hidden when the run has nothing of it) and its note (why it is empty).
    QTableWidget* table(RunDetailsPart part) const;
    QLabel* note(RunDetailsPart part) const;

private:
    struct Section {
        QGroupBox* box = nullptr;
        QTableWidget* table = nullptr;
        QLabel* note = nullptr;
        QList<int> stretch;  // columns that share the width left and wrap (default: the last)
    };
    Section makeSection(const QString& title, const QString& tip, const QStringList& columns);
    void buildSections();
    void layOutPage();
    const Section& section(RunDetailsPart part) const;
    /// Fills a section's table (rows of cells), or shows `emptyNote` when there are none.
    static void fill(const Section& s, const std::vector<QStringList>& rows, const QString& emptyNote);

    std::optional<long long> runId_;
    QString projectPath_;
    QStackedWidget* stack_;
    QLabel* emptyState_;
    QWidget* page_;
    QLabel* title_;
    QLabel* timeline_;
    QLabel* message_;
    QLabel* ledgerTotal_;
    Section config_, ledger_, metrics_, lambdas_, curves_, models_;
};

}  // namespace dpmix::workbench
