#include "app/workbench/help/view_help.h"

#include <QCoreApplication>

namespace dpmix::workbench {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("ViewHelp", text); }

struct ViewText {
    ResultView view;
    const char* title;
    const char* shows;
    const char* read;
};

// Each result view's help: its title, what it shows and how to read it.
constexpr ViewText kViewTexts[] = {
    {ResultView::StudySummary, "Study summary",
     "The study at a glance: its data and unit of privacy, what its DP releases spent, how the private "
     "mixture λ_DP compares with λ* and uniform weights, how the downstream models compare with the "
     "baselines, and a plain-language verdict.",
     "Read the verdict first: it says whether the private mixture helps at the ε you ran, and what to "
     "change (ε, ρ or the size of split A) if it does not. Verify all recomputes every ledger and "
     "rechecks the project file's hash chain."},
    {ResultView::Lambda, "λ by task",
     "The mixture weights λ over the k public components for one task and ε: the private weights "
     "λ_DP, the non-private optimum λ*, uniform weights and random search, side by side per "
     "component.",
     "Bars are means over runs; the whiskers are ± one standard deviation. The closer the λ_DP bars "
     "follow the λ* bars, the better the private mixture; the legend gives each λ's cosine and L1 "
     "distance to λ*."},
    {ResultView::Trajectory, "λ trajectory",
     "How each component's weight λ_j moved during one DP-MixMin run, one line per component, over "
     "the exponentiated-gradient (EG) steps.",
     "Lines that settle early mean the steps suffice; lines still moving at the last step mean more "
     "steps (or a larger step size η) could help. The noise added for privacy makes the lines jitter."},
    {ResultView::Tradeoff, "Privacy–utility",
     "How close the private mixture λ_DP comes to λ* as the privacy budget ε grows: the cosine "
     "similarity to λ* against ε, with uniform weights and random search as flat references.",
     "Higher is better; ε is on a logarithmic axis. Where the DP-MixMin curve rises above the uniform "
     "line, privacy still leaves a useful mixture. The band is ± one standard deviation over runs. "
     "Random search is not private (ε = ∞): it is a reference, not an alternative release."},
    {ResultView::Auc, "Per-class AUC",
     "The test AUC of the downstream models per sensitive task (one class against the rest), one bar "
     "per method: DP-MixMin, the non-private baseline λ*, uniform, random search and Random Init.",
     "Higher is better; 0.5 is a random guess, so the axis starts there. Bars are means over seeds "
     "with ± one standard deviation; the legend gives each method's macro AUC (the mean over tasks). "
     "A method marked ε = ∞ is a non-private baseline, shown for comparison only."},
    {ResultView::AucAgainstEpsilon, "AUC against ε",
     "The privacy–utility trade-off downstream: each method's test AUC (the mean over the chosen tasks) "
     "against the privacy budget ε its model was trained at, one line per method.",
     "Higher is better; ε is on a logarithmic axis, and smaller ε means more noise. Where the DP-MixMin "
     "line stays above Random Init's, pretraining on the privately chosen public mixture pays at that "
     "ε. The band is ± one standard deviation over seeds. λ* and Random Search chose their mixture "
     "without privacy (ε = ∞): their points sit at the ε of their fine-tuning, as references only."},
    {ResultView::Perplexity, "Perplexity",
     "The test perplexity of the text models during fine-tuning, one line per method, for one task "
     "and ε.",
     "Lower is better; the axis is logarithmic because methods differ by factors. The band is the "
     "range over the runs (seeds)."},
    {ResultView::Audit, "Audit",
     "Canary audits: an empirical lower bound ε_LB on the privacy loss per task, for each kind of "
     "planted example (canary), beside the claimed ε (dashed line).",
     "An ε_LB below the claimed ε is consistent with the claim; an ε_LB above it refutes the claim. "
     "The no-noise controls add no noise, so they should show a large ε_LB: they prove the audit can "
     "see a leak."},
    {ResultView::KScaling, "k-scaling",
     "How the price of privacy grows with the number of public components k: the excess error "
     "F(λ_DP) − F(λ*) against k on log-log axes, with a dashed line growing like √k.",
     "A slope near 0.5 (parallel to the √k line) matches the theory. Points with no measurable loss "
     "(excess ≤ 0) cannot be drawn on a log axis and are listed in the note."},
    {ResultView::Ledger, "Privacy ledger",
     "Every DP step of one run with its parameters and its (ε, δ), and the composed total for the "
     "run.",
     "Each row is one mechanism on one split; the total composes them (parallel across disjoint "
     "splits, sequential on the same data). ∞ (not private) marks a step done without DP. Verify "
     "recomputes every ε from its parameters and rechecks the hash chain."},
    {ResultView::Comparison, "Run comparison",
     "Several runs side by side: the settings that differ between them, their metrics, one metric as "
     "bars, and a chosen curve of every run overlaid.",
     "Bold rows are settings that differ. With a pinned baseline, it is the first column and every "
     "metric shows its difference (Δ) to it. A non-private baseline reads ε = ∞."},
    {ResultView::PrivateSet, "Private set",
     "The private set S of a Private Set Generation (PSG) run: a few synthetic images per class, "
     "learned from the sensitive images under DP, with the accuracy of networks trained on them.",
     "Rows are classes. Compare the accuracy of S with a random real subset of the same size (not "
     "private) and with direct DP-SGD at the same ε: S is useful when it comes close to them."},
    {ResultView::Adamix, "AdaMix-R",
     "Public-guided private fine-tuning (AdaMix-R, a reconstruction of AdaMix) against DP-GD and a "
     "head trained on the few public examples only: how much more each private head errs than the "
     "non-private paragon, by ε, at one number of public shots and private examples per class.",
     "0 % is as good as training without privacy on all the data. Bars are means over seeds with "
     "± one standard deviation; the line is the public-only head, which uses no private data. A bar "
     "below the line means the private data helped despite the noise."},
    {ResultView::ExampleEpsilon, "Who pays for privacy",
     "The per-example privacy loss ε_i of one full-batch AdaMix-R run: a histogram up to the "
     "dataset-level ε, and the images with the highest and the lowest estimate.",
     "Most examples sit well below the guarantee; isolated, atypical ones use most of it. ε_i is an "
     "estimate on the run's own trajectory, never a guarantee: every example is protected by the "
     "dataset-level ε."},
};

ViewText textOf(ResultView view) {
    for (const ViewText& text : kViewTexts)
        if (text.view == view) return text;
    return {view, "", "", ""};
}

}  // namespace

QString glossaryName(GlossaryTerm term) {
    switch (term) {
        case GlossaryTerm::Epsilon: return tr("ε (epsilon)");
        case GlossaryTerm::Delta: return tr("δ (delta)");
        case GlossaryTerm::Lambda: return tr("λ (lambda), component, k");
        case GlossaryTerm::LambdaStar: return tr("λ* (lambda star)");
        case GlossaryTerm::LambdaDp: return tr("λ_DP");
        case GlossaryTerm::Cosine: return tr("cosine similarity, L1 distance (to λ*)");
        case GlossaryTerm::EgStep: return tr("EG step (exponentiated gradient), η");
        case GlossaryTerm::SplitAB: return tr("split A / split B");
        case GlossaryTerm::Rho: return tr("ρ (rho)");
        case GlossaryTerm::NoiseParameters: return tr("q, σ (sigma), steps; (α, r)");
        case GlossaryTerm::RdpOrder: return tr("accountant, RDP order α");
        case GlossaryTerm::Established: return tr("established / claimed");
        case GlossaryTerm::Canary: return tr("canary, audit, ε_LB");
        case GlossaryTerm::Auc: return tr("test AUC");
        case GlossaryTerm::Perplexity: return tr("test perplexity");
        case GlossaryTerm::ExcessError: return tr("excess error F(λ_DP) − F(λ*)");
        case GlossaryTerm::Baselines: return tr("uniform, random search, Random Init, non-private baseline");
        case GlossaryTerm::PrivateSet: return tr("private set S, PSG");
        case GlossaryTerm::AdamixR: return tr("AdaMix-R, paragon, error increase");
        case GlossaryTerm::ExampleEpsilon: return tr("per-example ε_i (estimate), isolation");
    }
    return {};
}

namespace {

// The privacy terms: ε, δ, the splits, the noise, the accountant, what is established, the audit.
QString privacyTermText(GlossaryTerm term) {
    switch (term) {
        case GlossaryTerm::Epsilon:
            return tr(
                "The privacy budget: whether any one person's data is in or out changes the probability of any "
                "result by at most a factor e^ε. Smaller is stronger privacy; ε = ∞ means no privacy guarantee.");
        case GlossaryTerm::Delta:
            return tr("The small probability with which the ε guarantee may fail; it should be far below 1/n.");
        case GlossaryTerm::SplitAB:
            return tr(
                "The sensitive training data is split once: split A learns λ, split B fine-tunes the model. "
                "They are disjoint, so the run costs the larger of the two stages' ε.");
        case GlossaryTerm::Rho:
            return tr(
                "The fraction of the sensitive training data that goes to split A (the mixture step); the rest "
                "is split B.");
        case GlossaryTerm::NoiseParameters:
            return tr(
                "DP-SGD samples each example with probability q per step, clips its gradient to norm C and adds "
                "Gaussian noise of standard deviation σ·C, for the given number of steps. The Dirichlet "
                "mechanism is set by (α, r) instead.");
        case GlossaryTerm::RdpOrder:
            return tr(
                "The accountant adds up the privacy loss of many noisy steps. RDP (Rényi DP) bounds it at "
                "several orders α and reports the best; PRV computes it numerically. Both give a certified "
                "upper bound.");
        case GlossaryTerm::Established:
            return tr(
                "An ε is established when it follows from a proof dpmix implements (the Gaussian mechanism); "
                "claimed when it rests on its authors' analysis only (the Dirichlet mechanism).");
        case GlossaryTerm::Canary:
            return tr(
                "An audit trains many times with and without a planted example (the canary) and tests how well "
                "an attacker can tell: the empirical lower bound ε_LB. A claimed ε below ε_LB is refuted.");
        default: return {};
    }
}

// The mixture's and the results' terms.
QString resultTermText(GlossaryTerm term) {
    switch (term) {
        case GlossaryTerm::Lambda:
            return tr(
                "DP-MixMin pretrains on a mixture of k public data sets (components); λ gives each component its "
                "weight. The weights are ≥ 0 and sum to 1.");
        case GlossaryTerm::LambdaStar:
            return tr(
                "The mixture weights learned without privacy on the same data: the best the private method can "
                "hope for. Shown for comparison only; never a release.");
        case GlossaryTerm::LambdaDp:
            return tr("The mixture weights DP-MixMin learned under differential privacy: the release.");
        case GlossaryTerm::Cosine:
            return tr("How close a mixture is to λ*: cosine 1 means the same direction, L1 0 means identical weights.");
        case GlossaryTerm::EgStep:
            return tr(
                "One update of λ: λ is multiplied by e^(−η·gradient) and renormalised to sum to 1. η is the "
                "step size.");
        case GlossaryTerm::Auc:
            return tr(
                "Area under the ROC curve on the held-out sensitive test split: 1 is perfect, 0.5 a random "
                "guess. Computed for the analyst; no ledger covers it.");
        case GlossaryTerm::Perplexity:
            return tr("How surprised a language model is by held-out text: lower is better.");
        case GlossaryTerm::ExcessError:
            return tr(
                "How much worse the private mixture's objective is than the non-private optimum's: the price "
                "of privacy.");
        case GlossaryTerm::Baselines:
            return tr(
                "Uniform: equal weights, no data read. Random search: the best of a few random λ, picked "
                "without privacy. Random Init: no pretraining. A non-private baseline (λ*, random search) has "
                "ε = ∞, whatever its fine-tuning spent.");
        case GlossaryTerm::PrivateSet:
            return tr(
                "Private Set Generation learns a few synthetic images per class from the sensitive images "
                "under DP; only the set S is released.");
        case GlossaryTerm::AdamixR:
            return tr(
                "AdaMix-R trains a classifier head under DP starting from a few labelled public examples, "
                "which also set its clipping and the subspace its private gradients are projected on. The "
                "paragon is the same head trained without privacy on all the data; the error increase is "
                "(error − the paragon's) / the paragon's.");
        case GlossaryTerm::ExampleEpsilon:
            return tr(
                "How much one run could reveal about one example, measured on the trajectory it took: an "
                "estimate, not a guarantee (the guarantee is the dataset-level ε). Isolation: the mean "
                "distance to the example's nearest same-class neighbours in feature space.");

        default: return {};
    }
}

}  // namespace

QString glossaryText(GlossaryTerm term) {
    const QString privacy = privacyTermText(term);
    return privacy.isEmpty() ? resultTermText(term) : privacy;
}

QString glossaryToolTip(GlossaryTerm term) { return glossaryName(term) + QStringLiteral(": ") + glossaryText(term); }

QList<GlossaryTerm> viewTerms(ResultView view) {
    using T = GlossaryTerm;
    switch (view) {
        case ResultView::StudySummary:
            return {T::Epsilon, T::Delta, T::LambdaDp, T::LambdaStar, T::Cosine, T::SplitAB, T::Rho, T::Baselines};
        case ResultView::Lambda: return {T::Lambda, T::LambdaDp, T::LambdaStar, T::Cosine, T::Baselines, T::Epsilon};
        case ResultView::Trajectory: return {T::Lambda, T::EgStep, T::SplitAB};
        case ResultView::Tradeoff: return {T::Epsilon, T::Cosine, T::LambdaStar, T::Rho, T::Baselines};
        case ResultView::Auc: return {T::Auc, T::Baselines, T::Epsilon};
        case ResultView::AucAgainstEpsilon: return {T::Auc, T::Epsilon, T::Baselines};
        case ResultView::Perplexity: return {T::Perplexity, T::Baselines, T::Epsilon};
        case ResultView::Audit: return {T::Canary, T::Epsilon, T::Delta, T::Established};
        case ResultView::KScaling: return {T::ExcessError, T::Lambda, T::LambdaStar};
        case ResultView::Ledger:
            return {T::Epsilon, T::Delta, T::SplitAB, T::NoiseParameters, T::RdpOrder, T::Established};
        case ResultView::Comparison: return {T::Baselines, T::Epsilon};
        case ResultView::PrivateSet: return {T::PrivateSet, T::Epsilon, T::Delta};
        case ResultView::Adamix: return {T::AdamixR, T::Epsilon, T::Delta};
        case ResultView::ExampleEpsilon: return {T::ExampleEpsilon, T::Epsilon, T::Delta};
    }
    return {};
}

QString viewWhatsThis(ResultView view) {
    const ViewText text = textOf(view);
    QString html = QStringLiteral("<p><b>%1</b> — %2</p><p><b>%3</b> %4</p>")
                       .arg(tr(text.title).toHtmlEscaped(), tr(text.shows).toHtmlEscaped(),
                            tr("How to read it.").toHtmlEscaped(), tr(text.read).toHtmlEscaped());
    html += QStringLiteral("<p><b>%1</b></p><ul>").arg(tr("Words used here").toHtmlEscaped());
    for (GlossaryTerm term : viewTerms(view))
        html += QStringLiteral("<li><b>%1</b>: %2</li>")
                    .arg(glossaryName(term).toHtmlEscaped(), glossaryText(term).toHtmlEscaped());
    html += QStringLiteral("</ul><p>%1</p>")
                .arg(tr("F1 opens this view's section of the manual; Help ▸ Glossary "
                        "explains every word.")
                         .toHtmlEscaped());
    return html;
}

}  // namespace dpmix::workbench
