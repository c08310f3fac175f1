#pragma once
// StudyCreator over engine/project: the draft's spec goes through the same strict spec
// validation as a spec file (projectSpecToJson → parseProjectSpec, which also resolves paths and
// checks the files exist), every source is loaded and hashed once more (the data may have
// changed since the preview), and ProjectFile::create builds the .dpmix under a temporary name
// and renames it, so a failure leaves nothing behind.
#include "app/workbench/study/study_builder.h"
#include "engine/project/project_opener.h"

namespace dpmix::workbench {

class EngineStudyCreator : public StudyCreator {
public:
    /// `summarize` loads a source's facts (main.cpp passes the data layer's summariser).
    explicit EngineStudyCreator(project::SourceSummarizer summarize) : summarize_(std::move(summarize)) {}
    Result<QString> create(const QString& path, const project::ProjectSpec& spec, bool replaceRunless = false) override;

private:
    project::SourceSummarizer summarize_;
};

}  // namespace dpmix::workbench
