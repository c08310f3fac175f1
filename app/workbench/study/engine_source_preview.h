#pragma once
// SourcePreviewer over the data layer: loads the source with data::loadImageSource /
// loadTextSource (cancellable), records the same facts data::summarizeSource gives the project
// file, and keeps the first examples as thumbnails or text snippets.
#include "app/workbench/study/source_preview.h"

namespace dpmix::workbench {

class EngineSourcePreviewer : public SourcePreviewer {
public:
    Result<SourcePreview> preview(const data::SourceSpec& spec, const CancellationToken& cancel) const override;
};

}  // namespace dpmix::workbench
