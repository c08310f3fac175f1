#pragma once
// The identities that key a reproducible PSG run's mechanisms (docs/PSG.md, docs/PRIVACY.md
// "Secret randomness"). A seeded stream is keyed by the seed and this text, so it must name
// everything that makes two releases differ: two seeded PSG runs at different ε (or δ, clip,
// batch, schedule, ...) once shared their batches and noise, and the difference of two such
// releases cancels the noise. Every value is written round-trip exact (%.17g).
#include "engine/pipeline/release_randomness.h"
#include "engine/privacy/accountant.h"
#include "engine/psg_set/psg_params.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace dpmix::experiment_runs {

inline std::string exactNumber(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

/// PSG's DP real gradients: "psg/psg/task=classes/eps=E/seed=S" and every other value of the
/// mechanism and of the trajectory it is applied along.
inline std::string psgReleaseIdentity(const psg::PsgParams& p) {
    return pipeline::releaseIdentity("psg", "psg", "classes", p.epsilon, p.seed) + "/delta=" + exactNumber(p.delta) +
           "/accountant=" + privacy::toString(p.accountant) +
           (p.sigma ? "/sigma=" + exactNumber(*p.sigma) : std::string()) + "/spc=" + std::to_string(p.imagesPerClass) +
           "/iterations=" + std::to_string(p.iterations) + "/batch_loop=" + std::to_string(p.batchLoop) +
           "/clip=" + exactNumber(p.clipNorm) + "/batch=" + std::to_string(p.expectedBatchSize) +
           "/lr_image=" + exactNumber(p.imageLearningRate) + "/momentum_image=" + exactNumber(p.imageMomentum) +
           "/lr_network=" + exactNumber(p.networkLearningRate) +
           "/network_batch=" + std::to_string(p.networkBatchSize) + "/network=" + std::to_string(p.networkWidth) + "x" +
           std::to_string(p.networkDepth) + "/pixels=" + exactNumber(p.pixelMean) + "," + exactNumber(p.pixelStd) +
           "/split=" + p.split;
}

/// The DP-SGD reference of a PSG run: at PSG's (ε, δ) and accountant, with its own settings.
inline std::string psgDpSgdReferenceIdentity(const psg::PsgParams& p, double clip, double learningRate, int batch,
                                             long long steps) {
    return pipeline::releaseIdentity("psg-dp-sgd", "psg-dp-sgd", "classes", p.epsilon, p.seed) +
           "/delta=" + exactNumber(p.delta) + "/accountant=" + privacy::toString(p.accountant) +
           "/clip=" + exactNumber(clip) + "/lr=" + exactNumber(learningRate) + "/batch=" + std::to_string(batch) +
           "/steps=" + std::to_string(steps);
}

}  // namespace dpmix::experiment_runs
