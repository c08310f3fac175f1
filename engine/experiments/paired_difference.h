#pragma once
// "Method A beats method B" as dpmix says it: the paired difference A − B over seeds (the same
// seed gives both methods the same split, the same test images and the same initialisation, so
// the pairing removes what the seeds share) with a two-sided 95% Student-t interval. A claim is
// made only when the interval excludes zero ("beyond seed noise"); with one seed there is no
// interval and no claim. Used by the regime map (regime_map.h) and the Summary's verdict.
#include <map>

namespace dpmix::experiments {

struct PairedDifference {
    int seeds = 0;      // seeds present for both methods
    double mean = 0.0;  // mean over those seeds of A − B
    double low = 0.0;   // 95% interval; equal to mean when seeds < 2 (no interval)
    double high = 0.0;
    bool hasInterval() const { return seeds >= 2; }
    /// The interval excludes zero: A is ahead (> 0) or behind (< 0) beyond seed noise.
    bool aheadBeyondNoise() const { return hasInterval() && low > 0.0; }
    bool behindBeyondNoise() const { return hasInterval() && high < 0.0; }
};

/// The 0.975 quantile of Student's t with `degreesOfFreedom` (≥ 1) degrees of freedom.
double studentT975(int degreesOfFreedom);

/// A − B over the seeds both maps hold (seed → value); seeds only one side holds are ignored.
PairedDifference pairedDifference(const std::map<long long, double>& a, const std::map<long long, double>& b);

}  // namespace dpmix::experiments
