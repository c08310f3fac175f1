#include "engine/pipeline/mixture_reuse.h"

#include "engine/mixmin/dp_mixmin.h"
#include "engine/pipeline/planned_releases.h"

namespace dpmix::pipeline {

Result<StoredMixtures> findReusableMixtures(const project::ProjectFile& project, const ImageStudy& study,
                                            const MixtureReuseScope& scope) {
    StoredMixtures reused;
    const auto runs = project.runs();
    if (!runs) return runs.error();
    for (auto seed : scope.seeds) {
        auto split = splitForRun(study, scope.rho, seed);
        if (!split) return split.error();
        const long long unitsA =
            study.userLevel() ? distinctUsers(study, split->a) : static_cast<long long>(split->a.size());
        for (std::size_t t : scope.tasks)
            for (double eps : scope.epsilons) {
                const std::string& task = study.taskNames[t];
                auto params = dpMixMinParams(*scope.request, unitsA, study.userLevel(), task, eps, seed);
                if (!params) return params.error();
                const MixtureReuseQuery query{seed,
                                              task,
                                              eps,
                                              eps * scope.request->budgetShare,
                                              scope.configJson,
                                              scope.composition,
                                              mixmin::plannedLedgerEntry(*params),
                                              study.componentNames};
                if (auto stored = findStoredMixture(project, *runs, query))
                    reused.emplace(std::make_tuple(seed, task, eps), std::move(*stored));
            }
    }
    return reused;
}

}  // namespace dpmix::pipeline
