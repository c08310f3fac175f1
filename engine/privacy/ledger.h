#pragma once
// The privacy ledger of a run: every mechanism that touched sensitive data, with the
// parameters needed to recompute its ε from scratch. A reviewer's "Verify" recomputes each
// entry and the composed total and compares them with what was recorded.
//
// Composition rules:
//  - entries on the same data split compose sequentially: their RDP curves add order by order
//    and the sum is converted to (ε, δ) once — or, when every entry of the group is a Gaussian
//    certified by the PRV accountant, their privacy loss distributions are composed by FFT;
//  - with Composition::Parallel, different splits are disjoint sets of people, so the run's
//    guarantee is (max ε, max δ) over splits (parallel composition);
//  - with Composition::Sequential, all entries are summed as if on one data set.
#include "engine/core/result.h"
#include "engine/privacy/accountant.h"
#include "engine/privacy/randomness_source.h"

#include <string>
#include <vector>

namespace dpmix::privacy {

enum class MechanismKind {
    SubsampledGaussian,   // DP-SGD / DP-MixMin: Poisson sampling, clipping, Gaussian noise
    SubsampledDirichlet,  // Dirichlet mechanism (Rao et al. 2026), labels public
    NonPrivate,           // a step that used sensitive data without a DP mechanism (ε = ∞)
};

enum class PrivacyUnit { Example, User };
enum class Composition { Parallel, Sequential };

std::string toString(MechanismKind kind);
std::string toString(PrivacyUnit unit);
std::string toString(Composition composition);
bool parseMechanismKind(const std::string& text, MechanismKind& out);
bool parsePrivacyUnit(const std::string& text, PrivacyUnit& out);
bool parseComposition(const std::string& text, Composition& out);

struct LedgerEntry {
    std::string stage;  // e.g. "mixture", "finetune", "random-search"
    MechanismKind mechanism = MechanismKind::SubsampledGaussian;
    PrivacyUnit unit = PrivacyUnit::Example;
    std::string split;  // which data it touched, e.g. "A", "B", "train"
    double q = 1.0;     // Poisson sampling rate (per unit)
    long long steps = 1;
    double sigma = 0.0;                       // Gaussian noise multiplier
    double clipNorm = 0.0;                    // informational: C (ε does not depend on it)
    double dirichletAlpha = 0.0;              // Dirichlet α
    double dirichletR = 0.0;                  // Dirichlet r
    double delta = 0.0;                       // δ the entry was accounted at
    double epsilon = 0.0;                     // ε recorded when the stage ran (+inf for NonPrivate)
    std::string accountant;                   // how ε was certified, in words ("rdp-subsampled-gaussian (...)")
    Accountant accounting = Accountant::Rdp;  // the accountant that certifies it (Gaussian entries)
    bool established = true;                  // false when the guarantee is only claimed by its authors
    std::string assumptions;                  // plain-language assumptions the guarantee rests on
    RandomnessMode randomness = RandomnessMode::Secret;  // seeded: regenerable from the stored seed, no release
    std::string keyStream;  // the randomness's key stream in words (describeKeyStream); empty: not recorded
    // > 0: this release was made (and is counted) by that run of the same project — a released λ
    // reused by a downstream run, whose ledger carries the entry because the model's guarantee
    // includes it, but whose budget must not count it twice (project_budget.h, releasesOf).
    long long spentInRun = 0;
};

/// Whether two entries describe the same release: every field of the mechanism and its
/// accounting equal (spentInRun and the key stream's wording aside).
bool sameRelease(const LedgerEntry& a, const LedgerEntry& b);

/// What a ledger says of an entry (and a run) whose mechanism drew seeded randomness.
extern const char* const kSeededRandomnessNotice;

/// Marks `entry` as drawn from `mode` (a DP entry only; non-private entries stay secret, as there
/// is nothing to regenerate), from the key stream this machine uses for `mode`.
void setRandomness(LedgerEntry& entry, RandomnessMode mode);

/// True when the entry is a subsampled Gaussian certified by the PRV accountant.
bool isPrvGaussian(const LedgerEntry& entry);

/// True when the entry is a DP mechanism whose randomness was seeded.
bool isSeededRelease(const LedgerEntry& entry);

/// ε of one entry recomputed from its parameters at its own δ, with the accountant it records
/// (+inf for NonPrivate).
double recomputeEpsilon(const LedgerEntry& entry);

/// An entry for a Poisson-subsampled Gaussian mechanism with ε computed now by `accountant`.
LedgerEntry gaussianEntry(std::string stage, std::string split, PrivacyUnit unit, double q, double sigma,
                          long long steps, double delta, double clipNorm, Accountant accountant = Accountant::Rdp);

/// An entry for the subsampled Dirichlet mechanism, marked not established (see docs).
LedgerEntry dirichletEntry(std::string stage, std::string split, double alpha, double r, double q, long long steps,
                           double delta);

/// A non-private use of sensitive data (e.g. Random Search selecting λ on split A).
LedgerEntry nonPrivateEntry(std::string stage, std::string split, std::string why);

/// Sequential composition on the same data, calibrated: the smallest σ such that the `prior`
/// entries followed by a Poisson-subsampled Gaussian (q, σ, steps) recorded with `accountant`
/// compose (as Ledger::total composes a group) to ε <= targetEpsilon. RDP: bisection to 1e-10
/// relative in σ; PRV with only PRV Gaussian priors: the PRV calibration (1e-4 relative). An
/// error when no σ up to 1e6 meets the target (the prior entries spent it already).
struct SigmaAfterPrior {
    double sigma = 0.0;
    double composedEpsilon = 0.0;  // the total at that σ (<= target)
};
Result<SigmaAfterPrior> calibrateGaussianSigmaAfter(const std::vector<LedgerEntry>& prior, double targetEpsilon,
                                                    double delta, double q, long long steps,
                                                    Accountant accountant = Accountant::Rdp);

struct SplitTotal {
    std::string split;
    double epsilon;
    double delta;
    double order;  // order attaining ε (NaN for a single NonPrivate/empty group)
};

struct LedgerTotal {
    double epsilon = 0.0;  // 0 for an empty ledger
    double delta = 0.0;
    Composition composition = Composition::Parallel;
    std::vector<SplitTotal> perSplit;  // one row per split (one row "all" when sequential)
    bool established = true;           // false if any entry's guarantee is only claimed
    std::vector<std::string> assumptions;
    bool seeded = false;  // some DP entry used seeded randomness: not a release
};

struct EntryCheck {
    std::size_t index;
    double recorded;
    double recomputed;
    bool matches;
};

struct LedgerVerification {
    bool ok = true;
    std::vector<EntryCheck> entries;
    LedgerTotal total;
    std::vector<std::string> problems;  // plain-language discrepancies
};

class Ledger {
public:
    explicit Ledger(Composition composition = Composition::Parallel) : composition_(composition) {}

    void record(LedgerEntry entry) { entries_.push_back(std::move(entry)); }
    const std::vector<LedgerEntry>& entries() const { return entries_; }
    Composition composition() const { return composition_; }
    void setComposition(Composition c) { composition_ = c; }

    /// The run's guarantee, recomputed from the recorded parameters.
    LedgerTotal total() const;

    /// Recompute every entry and compare with the recorded ε (relative tolerance `rtol`).
    /// `recordedTotal`, when given (≥ 0), is compared with the recomputed total too.
    LedgerVerification verify(double recordedTotal = -1.0, double rtol = 1e-9) const;

private:
    Composition composition_;
    std::vector<LedgerEntry> entries_;
};

}  // namespace dpmix::privacy
