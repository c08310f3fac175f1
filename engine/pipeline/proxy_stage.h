#pragma once
// The proxy stage: one multi-class proxy trained on the public images over the concatenated
// label space of the k public label tasks (docs/METHODS.md §1, docs/TRAINING.md "Proxy"), and its
// predictions P(source i positive | x) on sensitive examples. With several public sources each
// component's head learns from its own source's images only (docs/METHODS.md, "Several public
// sources").
//
// The proxy sees public data only, so training it costs no privacy. Its predictions on
// sensitive examples are features of private data: they are inputs of the DP mixture stage
// and are never stored in the project file or shown (only the proxy's weights are stored).
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/pipeline/image_study.h"
#include "engine/study_plan/run_options.h"

#include <Eigen/Dense>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dpmix::pipeline {

using study_plan::ProxyOptions;

class Proxy {
public:
    Proxy();
    Proxy(Proxy&&) noexcept;
    Proxy& operator=(Proxy&&) noexcept;
    ~Proxy();

    /// n × k probabilities for the given sensitive examples.
    Result<Eigen::MatrixXd> predict(const data::ImageDataset& images, const std::vector<std::size_t>& indices) const;
    /// Weights for storage (public-data only).
    std::vector<float> parameters() const;
    /// Held-out quality on public images it did not train on: mean AUC over the k sources.
    double publicValidationAuc = 0.0;

    struct Impl;
    std::unique_ptr<Impl> impl;
};

/// The rows of the public images (of `publicImages` in all) that the proxy trained with `seed`
/// holds out to report its quality and never trains on, ascending. AdaMix-R draws its public
/// shots among them (docs/ADAMIX.md, "As a study's fine-tuning mechanism").
std::vector<std::size_t> proxyHeldOutRows(std::size_t publicImages, std::uint64_t seed);

Result<Proxy> trainProxy(const ImageStudy& study, const ProxyOptions& options, std::uint64_t seed,
                         const ProgressCallback& progress = {}, const CancellationToken& cancel = {});

/// A proxy from weights saved by Proxy::parameters() (same study shape); its held-out public
/// AUC is recomputed on the same held-out public images trainProxy used for `seed`.
Result<Proxy> restoreProxy(const ImageStudy& study, const std::vector<float>& parameters, std::uint64_t seed,
                           const std::string& device);

}  // namespace dpmix::pipeline
