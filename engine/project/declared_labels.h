#pragma once
// A sensitive source's label set must be declared in the spec, never read from the data: a label
// set read from the data reveals which classes occur in it (a class held by one record becomes a
// task, and its run's ledger would say the labels were public), docs/PRIVACY.md "Trust boundary".
// The spec reader refuses such a source in a new spec; every stage that reads the sensitive data
// (and the release export) refuses it in a project an older dpmix created.
#include "engine/core/result.h"
#include "engine/data/source_spec.h"

#include <string>

namespace dpmix::project {

/// The option that declares a sensitive image source's label set: "classes" (idx, mnist-json),
/// "labels" (csv-images), "contexts" (icon-theme); empty for a loader whose data has no labels
/// (text, idx without a label file) or whose classes never come from the data (glyphs: its
/// characters, "ABCDEFGHIJ" by default).
std::string declaredLabelOption(const data::SourceSpec& source);

/// An error naming the field to set (`<path>.options.classes`, for `path` "sensitive") when the
/// source's label set would be read from the data; nothing when it is declared or there is none.
Status refuseUndeclaredLabels(const data::SourceSpec& source, const std::string& path = "sensitive");

}  // namespace dpmix::project
