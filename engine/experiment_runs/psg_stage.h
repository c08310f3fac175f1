#pragma once
// Private Set Generation on a study (docs/PSG.md): the sensitive source's classes, its training
// split (the study's train / validation / test split by content), S generated under (ε, δ) and
// stored as a run of method "psg" (S as the run's model "private-set", its accuracies as
// metrics), and the two references of the evaluation as runs of their own, each with its own
// ledger: a random real subset of the same size (method "psg-real-subset", non-private: analysis
// only) and a ConvNet trained directly by DP-SGD at the same (ε, δ) ("psg-dp-sgd").
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/pipeline/study_runner.h"
#include "engine/project/project_file.h"
#include "engine/psg/private_set.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::experiment_runs {

inline constexpr const char* kPsgMethod = "psg";
inline constexpr const char* kPsgRealSubsetMethod = "psg-real-subset";
inline constexpr const char* kPsgDpSgdMethod = "psg-dp-sgd";
inline constexpr const char* kPrivateSetModel = "private-set";

struct PsgStageOptions {
    std::optional<int> imagesPerClass;              // unset: the spec's psg section (or 10)
    std::optional<long long> iterations;            // unset: the spec's
    std::optional<double> epsilon;                  // unset: the spec's first ε
    std::optional<privacy::Accountant> accountant;  // unset: the spec's
    std::optional<bool> reproducible;               // unset: the spec's privacy.reproducible
    std::optional<int> evaluations;                 // unset: the spec's
    std::optional<int> evaluationEpochs;            // unset: the spec's
    std::optional<long long> dpSgdSteps;            // unset: the spec's; 0: no DP-SGD reference
    bool references = true;                         // also run the real-subset and DP-SGD references
    std::uint64_t seed = 0;                         // S's start, the networks, the evaluations, the real subset
    std::string device = "cpu";                     // where every network and S live (train::Model::create's names)
};

/// The values alone, before a project is opened (messages name the option).
Status checkPsgValues(const PsgStageOptions& options);

/// The parameters a PSG run of this project uses: the spec's psg section (defaults when absent),
/// overridden by the options; validated by psg::PsgParamsBuilder.
Result<psg::PsgParams> psgParamsFor(const project::ProjectSpec& spec, const PsgStageOptions& options);

/// One row of the evaluation table: test accuracies of fresh networks trained on a set.
struct PsgAccuracyRow {
    std::string key;    // metric name as stored: "accuracy-convnet", ...
    std::string label;  // for people: "S (PSG), ConvNet"
    std::vector<double> values;
    double mean = 0.0, std = 0.0;
};

struct PsgStageReport {
    long long runId = 0;
    long long realSubsetRunId = 0;  // 0: not run
    long long dpSgdRunId = 0;       // 0: not run
    psg::PsgResult result;
    psg::PsgParams params;
    std::vector<std::string> classNames;
    long long trainExamples = 0, testExamples = 0;
    std::vector<PsgAccuracyRow> rows;  // S (ConvNet, MLP), noise S, real subset, DP-SGD
    double dpSgdEpsilon = 0.0;         // what the DP-SGD reference's ledger certifies
};

/// Receives S while it is generated (every few iterations) and once finished: for a live view.
using PsgSnapshot = std::function<void(const psg::PrivateSet& set, int iteration)>;

/// Runs PSG and its evaluation on the project's sensitive images and stores the runs. Errors
/// (nothing stored): a user-level study (PSG protects one example), a sensitive source that is
/// not images or has no single class per image, bad parameters. A cancelled run is stored as
/// cancelled with its ledger (the planned cost) and without S; Cancelled is rethrown.
/// Progress stages: "load", "psg", "evaluate", "dp-sgd".
Result<PsgStageReport> runPsgStage(project::ProjectFile& project, const PsgStageOptions& options,
                                   const ProgressCallback& progress = {}, const CancellationToken& cancel = {},
                                   const pipeline::LogSink& log = {}, const PsgSnapshot& snapshot = {});

/// The set a finished PSG run stored (its shape and class count from the run's configuration).
Result<psg::PrivateSet> loadStoredPrivateSet(const project::ProjectFile& project, long long runId);

}  // namespace dpmix::experiment_runs
