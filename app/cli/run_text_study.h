#pragma once
// `dpmix run` on a text study: dpmix-text (a process without LibTorch, since sentencepiece's
// embedded protobuf cannot share one with it) runs the proxies and mixture stages as a child
// process; the language-model stages then run in this process on the exported token cache.
#include "engine/pipeline/study_runner.h"
#include "engine/project/project_file.h"

#include <string>

namespace dpmix::cli {

/// True when the project's sensitive source is text.
bool isTextProject(const project::ProjectFile& project);

/// What the command line gave besides the parsed options: the child gets the user's spelling.
struct TextRunArguments {
    std::string epsilons, rho, seeds;
    bool json = false;
    bool keepTokens = false;
};

/// Runs the text study's stages; returns the exit code (0 ok, 1 failure, 130 cancelled).
int runTextProject(project::ProjectFile& project, const pipeline::StudyRunOptions& options,
                   const TextRunArguments& given);

}  // namespace dpmix::cli
