#pragma once
// The privacy budget of a sensitive dataset: what every DP release of a project has spent on it
// together (docs/PRIVACY.md, "Privacy budget"). A run's ledger says what one run spent; here the
// releases of all runs are composed by the RDP accountant — never by adding ε's:
//  - releases on the same part of the data compose sequentially (RDP curves add per order);
//  - the two sides A and B of one ρ split (one run seed and ρ) are disjoint, so a person pays
//    only for the side they are on: per order, the larger of the two sides' curves;
//  - different ρ splits (other seeds or ρ) cut the data differently, so a person is on one side
//    of every one of them: their worst sides add up; and whole-set splits ("train", or anything
//    not A/B of a known ρ split) add to everyone.
// The result is the guarantee of the worst-placed person, converted once at δ. When every release
// is a Gaussian certified by the PRV accountant, the worst-placed person's releases (one side of
// each ρ split, up to four splits) are also composed by PRV and the smaller bound is kept.
#include "engine/privacy/ledger.h"

#include <optional>
#include <string>
#include <vector>

namespace dpmix::privacy {

/// One DP release: a ledger entry of a run and the ρ split its A/B split belongs to.
struct BudgetRelease {
    long long runId = 0;
    std::string label;      // what the release is, for listings ("dp-mixmin 'warm' eps 1 seed 0")
    std::string partition;  // the ρ split ("seed=0 rho=0.3"); empty: the entry touches everyone
    LedgerEntry entry;
};

/// Releases on one part of the data, composed sequentially.
struct BudgetGroup {
    std::string partition;  // empty for the whole set
    std::string split;      // "A", "B", or the whole-set split's name
    long long releases = 0;
    double epsilon = 0.0;  // this part alone, at the budget's δ
};

struct PrivacyBudget {
    double epsilon = 0.0;  // the dataset total (worst-placed person); 0 with no release
    double delta = 0.0;    // δ of the conversion: the largest δ of the releases
    long long releases = 0;
    std::vector<BudgetGroup> groups;
    bool established = true;  // false if a release's guarantee is only claimed by its authors
    bool seeded = false;      // some release used seeded randomness (not a release in the DP sense)
};

/// Composes the releases as described above. A NonPrivate entry makes the total +inf (callers
/// list non-private runs apart and do not pass them).
PrivacyBudget composeBudget(const std::vector<BudgetRelease>& releases);

/// The partition key of a ρ split: "seed=<seed> rho=<rho>".
std::string rhoPartition(long long seed, double rho);

/// True for the splits that are the two disjoint sides of a ρ split.
bool isRhoSide(const std::string& split);

}  // namespace dpmix::privacy
