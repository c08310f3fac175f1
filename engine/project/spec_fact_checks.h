#pragma once
// What a new project checks of its spec against the facts its sources gave when they were loaded
// (ProjectFile::create): every task class is a label of its data, every public image source fits
// the study's image shape by its rules, and AdaMix-R's shots come from a public image source that
// has labels. Separate from the file itself: these are rules of a study, not of storage.
#include "engine/core/result.h"
#include "engine/project/project_records.h"
#include "engine/project/project_spec.h"

#include <vector>

namespace dpmix::project {

/// The first problem, naming the spec field (public sources in spec order, then the sensitive one).
Status checkSpecAgainstFacts(const ProjectSpec& spec, const std::vector<SourceFacts>& facts);

}  // namespace dpmix::project
