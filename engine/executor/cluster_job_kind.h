#pragma once
// The kinds of cluster job (docs/CLUSTER.md), defined once: the spelling job.json stores (and a
// job id starts with), what people read, how a merge stores the units' results and what a unit
// is. The worker and the merge parse the stored spelling once and switch on the enum; a kind this
// dpmix does not know is an error there, naming it. Header-only: the workbench (which does not link
// the torch side of engine/executor) reads job kinds too.
#include "engine/core/kind_table.h"
#include "engine/core/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace dpmix::executor::cluster {

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

// One row per kind; a new kind is a row here, a case in the worker (cluster_jobs.cpp) and one in
// the merge (cluster_merge.cpp).
inline const std::vector<JobKindTraits>& allJobKinds() {
    static const std::vector<JobKindTraits> table = {
        {.kind = JobKind::Audit, .name = "audit", .label = "audit", .storedAsOneRun = true},
        {.kind = JobKind::Run, .name = "run", .label = "run grid", .units = "seed(s)"},
        {.kind = JobKind::Sweep, .name = "sweep", .label = "sweep", .units = "sweep point(s)"},
        {.kind = JobKind::KScaling, .name = "kscaling", .label = "k-scaling", .storedAsOneRun = true},
        {.kind = JobKind::Adamix, .name = "adamix", .label = "AdaMix-R experiment", .storedAsOneRun = true},
    };
    return table;
}

inline const JobKindTraits& traitsOf(JobKind kind) {
    return core::rowOf(allJobKinds(), &JobKindTraits::kind, kind, "cluster::JobKind");
}

inline std::string nameOf(JobKind kind) { return std::string(traitsOf(kind).name); }

inline Result<JobKind> parseJobKind(std::string_view name) {
    for (const auto& t : allJobKinds())
        if (name == t.name) return t.kind;
    return Error{"job kind \'" + std::string(name) + "\' is not one of " + core::spellingList(allJobKinds(), false)};
}

/// Kinds whose units are stored together as one run once every unit is done.
inline bool isStoredAsOneRun(JobKind kind) { return traitsOf(kind).storedAsOneRun; }

}  // namespace dpmix::executor::cluster
