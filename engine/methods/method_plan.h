#pragma once
// The methods a study compares, defined once: what each one is called (in run rows, on the
// command line, for people), which mixture λ it pretrains on, how that λ was chosen (the ledger
// entries that charge it), which λ record its runs store and which part of the sensitive
// training data its DP fine-tuning sees. The image study, the text study, the text downstream
// runner, the trust verdict and the workbench all read this table; a new method or baseline is
// a row here plus, if its λ is new, a case in planMethod (docs/ALGORITHMS.md, "Methods").
//
// Torch-, Eigen- and Qt-free: the text study (a process without LibTorch) and the workbench link it.
#include "engine/core/result.h"
#include "engine/privacy/ledger.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpmix::methods {

enum class Method { DpMixMin, Uniform, RandomSearch, RandomInit, NonPrivateMixMin };

/// The sensitive examples a method's DP fine-tuning uses. Methods that chose their λ on split A
/// leave it alone and fine-tune on split B, so the two stages compose in parallel; the others
/// fine-tune on the whole training split.
enum class FinetuneData { SplitB, WholeTrain };

/// How a method's λ relates to the sensitive data.
enum class Choice {
    None,        // no λ: the model is not pretrained (Random Init)
    Public,      // fixed without looking at any data (Uniform)
    Private,     // learned on split A by a DP mechanism, a release charged in the ledger (DP-MixMin)
    NonPrivate,  // chosen on split A without DP: analysis only, never a release (λ*, Random Search)
};

struct MethodTraits {
    Method method = Method::RandomInit;
    std::string_view name;                  // canonical, as stored in run rows: "dp-mixmin"
    std::string_view shortName;             // the spelling the command line lists: "dpmixmin"
    std::vector<std::string_view> aliases;  // further accepted spellings
    std::string_view label;                 // for people: "DP-MixMin"
    std::string_view lambdaKind;            // the λ record its runs store; empty: none
    std::string_view lambdaLabel;           // that λ for people: "λ_DP (DP-MixMin)"
    Choice choice = Choice::None;
    FinetuneData finetuneOn = FinetuneData::WholeTrain;
    bool mixtureStageRun = false;  // a mixture-only study stores it as a run of its own
    bool reference = false;        // the non-private optimum every other λ is compared with
};

/// Every method, in the order a study runs them by default.
const std::vector<MethodTraits>& allMethods();
const MethodTraits& traitsOf(Method m);
/// The canonical name (as stored in run rows).
std::string nameOf(Method m);
/// The canonical names of every method, in the default order.
std::vector<std::string> allMethodNames();

/// A user's spelling (canonical, short or alias) of a method; the error lists the short names.
Result<Method> parseMethod(std::string_view spelling);
/// The method of a stored run row, or none (proxy, audit, experiment and other rows).
std::optional<Method> methodOfRun(std::string_view storedName);
/// Whether a stored run row's λ was chosen on the sensitive data without DP (λ*, Random Search):
/// its model is fine-tuned at the run's ε, but the pipeline as a whole has ε = ∞.
bool isNonPrivateChoice(std::string_view storedName);
/// The method whose runs store λ records of this kind, or none.
std::optional<Method> methodOfLambdaKind(std::string_view kind);
/// "dpmixmin, uniform, random-search, random-init or nonprivate".
std::string shortNameList();
/// The order results are shown in, as in the paper: the private method first, then the
/// non-private reference λ*, the other non-private choices, the public ones, Random Init last.
int paperRank(Method m);

/// The ledger entries of the two non-private choices, one wording everywhere: λ* (the upper
/// bound) and Random Search's pick, both made on split A without differential privacy. Their unit
/// is the study's (a user-level study's every ledger entry names the user, ε = ∞ included).
privacy::LedgerEntry lambdaStarEntry(privacy::PrivacyUnit unit = privacy::PrivacyUnit::Example);
privacy::LedgerEntry randomSearchEntry(privacy::PrivacyUnit unit = privacy::PrivacyUnit::Example);

/// What one (seed, task, ε) of the mixture stage produced, as plain vectors.
struct MixtureChoices {
    std::vector<double> lambdaStar;
    std::vector<double> lambdaUniform;
    std::vector<double> lambdaRandomSearch;
    std::vector<double> lambdaPrivate;                          // DP-MixMin's release at this ε
    std::vector<privacy::LedgerEntry> privateEntries;           // what releasing it spent
    privacy::PrivacyUnit unit = privacy::PrivacyUnit::Example;  // the study's, named by every entry
};

/// One method's downstream run: what it pretrains on and what its ledger starts with.
struct MethodPlan {
    Method method;
    std::optional<std::vector<double>> lambda;         // the pretraining mixture; none: random init
    std::vector<privacy::LedgerEntry> mixtureEntries;  // how λ was chosen, recorded before fine-tuning
    std::string lambdaKind;                            // the λ record stored with the run; empty: none
    FinetuneData finetuneOn = FinetuneData::WholeTrain;
    bool lambdaPerEpsilon = false;  // λ differs per ε (a pretrained model is shared only within one ε)
    bool release = true;            // false: a step was non-private, the model is never a release

    /// The split label of the fine-tuning ledger entry: "B" or "train".
    std::string finetuneSplit() const { return finetuneOn == FinetuneData::SplitB ? "B" : "train"; }
};

MethodPlan planMethod(Method m, const MixtureChoices& choices);

}  // namespace dpmix::methods
