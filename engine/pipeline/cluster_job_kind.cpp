#include "engine/pipeline/cluster_job_kind.h"

#include <stdexcept>

namespace dpmix::pipeline::cluster {

// One row per kind; a new kind is a row here, a case in the worker (cluster_jobs.cpp) and one in
// the merge (cluster_merge.cpp).
const std::vector<JobKindTraits>& allJobKinds() {
    static const std::vector<JobKindTraits> table = {
        {.kind = JobKind::Audit, .name = "audit", .label = "audit", .storedAsOneRun = true},
        {.kind = JobKind::Run, .name = "run", .label = "run grid", .units = "seed(s)"},
        {.kind = JobKind::Sweep, .name = "sweep", .label = "sweep", .units = "sweep point(s)"},
        {.kind = JobKind::KScaling, .name = "kscaling", .label = "k-scaling", .storedAsOneRun = true},
        {.kind = JobKind::Adamix, .name = "adamix", .label = "AdaMix-R experiment", .storedAsOneRun = true},
    };
    return table;
}

const JobKindTraits& traitsOf(JobKind kind) {
    for (const auto& t : allJobKinds())
        if (t.kind == kind) return t;
    throw std::logic_error("cluster::traitsOf: a JobKind without a row in the table");
}

std::string nameOf(JobKind kind) { return std::string(traitsOf(kind).name); }

Result<JobKind> parseJobKind(std::string_view name) {
    std::string expected;
    const auto& all = allJobKinds();
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (name == all[i].name) return all[i].kind;
        if (i > 0) expected += i + 1 == all.size() ? " or " : ", ";
        expected += all[i].name;
    }
    return Error{"job kind '" + std::string(name) + "' is not one of " + expected};
}

}  // namespace dpmix::pipeline::cluster
