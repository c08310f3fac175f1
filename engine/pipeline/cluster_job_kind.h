#pragma once
// The kinds of cluster job (docs/CLUSTER.md), defined once: the spelling job.json stores (and a
// job id starts with), what people read, how a merge stores the units' results and what a unit
// is. The worker and the merge parse the stored spelling once and switch on the enum; a kind this
// dpmix does not know is an error there, naming it.
#include "engine/core/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace dpmix::pipeline::cluster {

enum class JobKind { Audit, Run, Sweep, KScaling, Adamix };

struct JobKindTraits {
    JobKind kind = JobKind::Run;
    std::string_view name;   // as job.json stores it: "kscaling"
    std::string_view label;  // for people: "k-scaling"
    // Stored together as one run once every unit is done (the audit, the k-scaling, the AdaMix-R
    // experiment); otherwise (a run grid, a sweep) each unit's runs are stored as they land.
    bool storedAsOneRun = false;
    std::string_view units;  // a run grid's or sweep's unit, plural: "seed(s)", "sweep point(s)"
};

const std::vector<JobKindTraits>& allJobKinds();
const JobKindTraits& traitsOf(JobKind kind);
/// The spelling job.json stores.
std::string nameOf(JobKind kind);
/// A stored spelling; the error names the value and lists the accepted ones.
Result<JobKind> parseJobKind(std::string_view name);

/// Kinds whose units are stored together as one run once every unit is done.
inline bool isStoredAsOneRun(JobKind kind) { return traitsOf(kind).storedAsOneRun; }

}  // namespace dpmix::pipeline::cluster
