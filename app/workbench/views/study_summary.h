#pragma once
// The Study summary tab, the reviewer's first view (docs/WORKBENCH.md, "Study summary"): what the
// study is (data, unit of privacy, tasks), what its DP releases spent, how the private mixture
// compares with λ* and uniform, how the downstream models compare with the baselines, the private
// set if there is one, a plain-language verdict, and Verify all (every ledger recomputed, the
// hash chain rechecked). The numbers come from pure functions over the snapshot, tested on their own.
#include "app/workbench/project/project_snapshot.h"
#include "engine/project/result_summary.h"

#include <QStringList>
#include <QWidget>

#include <optional>
#include <vector>

class QLabel;
class QPushButton;
class QTextBrowser;

namespace dpmix::workbench {

/// The private mixture against the references at one ε, over every task and seed: cosine
/// similarity to λ* (mean ± sample std), and the ε-free references' cosines when stored.
struct MixtureComparison {
    double epsilon = 0.0;
    int runs = 0;
    double privateCosine = 0.0, privateCosineStd = 0.0;
    std::optional<double> uniformCosine, randomSearchCosine;
};
std::vector<MixtureComparison> mixtureComparisons(const ProjectSnapshot& project);

/// The downstream table as `dpmix results` computes it (macro test AUC, or test perplexity for a
/// text study, per ε and method: mean over tasks per seed, then mean ± std over seeds).
std::vector<project::ResultSummaryRow> downstreamRows(const ProjectSnapshot& project);

/// The DP-MixMin mixture shown for one task (the report's "Chosen mixture", a release's verdict):
/// the finished run at the spec's ε, else at the largest ε, and its λ's largest weights as
/// "Ankle boot 0.50" (at most four of at least 0.05, then "3 other(s) 0.12 together").
struct ChosenMixture {
    std::string task;
    const RunResults* run = nullptr;  // into the snapshot
    QStringList parts;
};
std::vector<ChosenMixture> chosenMixtures(const ProjectSnapshot& project);

/// Runs whose DP mechanism drew seeded randomness (reproducible mode): the budget counts what they
/// spent, but they are no release — their noise can be re-derived from the seed stored in the file.
int seededRunCount(const ProjectSnapshot& project);

/// One or more plain-language sentences: what the study shows so far, or what to run first.
QString studyVerdict(const ProjectSnapshot& project);

/// The result tables of the summary (mixture vs references, downstream, private set) as HTML;
/// empty when nothing has run. The report's first page uses them too.
QString summaryTablesHtml(const ProjectSnapshot& project);

/// The summary page as HTML (verdict first).
QString studySummaryHtml(const ProjectSnapshot& project);

class StudySummaryView : public QWidget {
    Q_OBJECT

public:
    explicit StudySummaryView(ProjectSnapshot project, QWidget* parent = nullptr);

    /// Recomputes every run's ledgers and rechecks the hash chain; shows and returns the result line.
    QString verifyAll();

    QTextBrowser* page() const { return page_; }
    QPushButton* verifyButton() const { return verify_; }
    QLabel* verifyResult() const { return result_; }

private:
    ProjectSnapshot project_;
    QTextBrowser* page_;
    QPushButton* verify_;
    QLabel* result_;
};

}  // namespace dpmix::workbench
