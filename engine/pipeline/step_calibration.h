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
    double secondsPerExample = 0.0;  // one example forward and backward in a plain training step
    int batch = 0;                   // the batch it was measured at
    double stepSeconds = 0.0;        // one step of that batch
};

/// Times pretraining of the downstream small CNN on random images of `study`'s shape: a warm-up
/// step, then one step and five, the difference over four steps (model creation cancels).
Result<StepCalibration> calibrateTrainingStep(const ImageStudy& study, int batch, const std::string& device);

}  // namespace dpmix::pipeline
