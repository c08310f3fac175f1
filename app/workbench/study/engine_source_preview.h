#pragma once
// SourcePreviewer over the data layer: loads the source with data::loadImageSource /
// loadTextSource (cancellable), records the same facts data::summarizeSource gives the project
// file, and keeps the first examples as thumbnails or text snippets. A DICOM folder is surveyed
// too: patients, studies and images counted, the tags found, each unreadable file's reason.
#include "app/workbench/study/source_preview.h"

namespace dpmix::workbench {

class EngineSourcePreviewer : public SourcePreviewer {
public:
    Result<SourcePreview> preview(const data::SourceSpec& spec, const CancellationToken& cancel) const override;

private:
    // The one load of any source; a DICOM folder is surveyed first (dicom_source.h).
    static Result<SourcePreview> loadPreview(const data::SourceSpec& spec, const CancellationToken& cancel);
};

}  // namespace dpmix::workbench
