#pragma once
// What's This (Shift+F1) and tooltips for the result views: for each view, what it shows and how
// to read it, in plain language, followed by the glossary entries of the words it uses; and each
// glossary entry on its own, for the tooltips of axis titles and table headers. One text per term
// and per view, so every place that explains a word says the same thing (the entries are short
// forms of docs/GLOSSARY.md, which Help ▸ Glossary shows in full).
#include <QList>
#include <QString>

namespace dpmix::workbench {

enum class GlossaryTerm {
    Epsilon,          // ε
    Delta,            // δ
    Lambda,           // λ, component, k
    LambdaStar,       // λ*
    LambdaDp,         // λ_DP
    Cosine,           // cosine similarity and L1 distance to λ*
    EgStep,           // exponentiated-gradient step
    SplitAB,          // split A / split B
    Rho,              // ρ
    NoiseParameters,  // q, σ, C, steps; (α, r) of the Dirichlet mechanism
    RdpOrder,         // accountants and the RDP order α
    Established,      // established / claimed
    Canary,           // canary audit, ε_LB
    Auc,              // test AUC
    Perplexity,       // test perplexity
    ExcessError,      // F(λ_DP) − F(λ*)
    Baselines,        // uniform, random search, Random Init, non-private baseline
    PrivateSet,       // S, PSG
    AdamixR,          // AdaMix-R, paragon, public-only, error increase
    ExampleEpsilon,   // per-example ε_i (an estimate), isolation
};

/// The term's name as the views write it, e.g. "λ*" or "split A / split B".
QString glossaryName(GlossaryTerm term);
/// One or two plain-language sentences: what the term means.
QString glossaryText(GlossaryTerm term);
/// "<name>: <text>" as plain text, for a tooltip.
QString glossaryToolTip(GlossaryTerm term);

enum class ResultView {
    StudySummary,
    Lambda,
    Trajectory,
    Tradeoff,
    Auc,
    AucAgainstEpsilon,
    Perplexity,
    Audit,
    KScaling,
    Ledger,
    Comparison,
    PrivateSet,
    Adamix,
    ExampleEpsilon,
};

/// The glossary terms a view uses, in the order its text explains them.
QList<GlossaryTerm> viewTerms(ResultView view);

/// The view's What's This text (rich text): what it shows, how to read it, then the glossary
/// entries of viewTerms(view).
QString viewWhatsThis(ResultView view);

}  // namespace dpmix::workbench
