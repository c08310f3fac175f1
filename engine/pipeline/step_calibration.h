#pragma once
// How long a training step of the study's downstream network takes on this machine, measured
// in a second or two before a run — the confirm dialog's time estimate multiplies it with the
// run's planned work (study_plan/study_work.h). Random pixels of the study's shape: the timing
// does not depend on them, and no data, public or sensitive, is read.
#include "engine/core/result.h"
#include "engine/pipeline/image_study.h"

#include <string>

namespace dpmix::pipeline {

struct StepCalibration {
    double secondsPerExample = 0.0;  // each example of a step's batch, forward and backward
    double secondsPerStep = 0.0;     // a step's fixed cost, whatever its batch
    double stepSeconds(int batch) const { return secondsPerStep + batch * secondsPerExample; }
    /// The fixed cost in examples (study_plan/study_work.h's step overhead).
    double stepOverheadExamples() const { return secondsPerExample > 0.0 ? secondsPerStep / secondsPerExample : 0.0; }
};

/// Times pretraining of the downstream small CNN on random images of `study`'s shape at two batch
/// sizes (16 and 128), each as a one-step and a five-step training after a warm-up (the fastest of
/// three each: other work only adds time) — the difference over four steps, so model creation
/// cancels — and splits a step's time into a fixed part and a part per example: at a patient
/// study's small batches the fixed part dominates.
Result<StepCalibration> calibrateTrainingStep(const ImageStudy& study, const std::string& device);

}  // namespace dpmix::pipeline
