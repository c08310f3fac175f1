#pragma once
// A trained or freshly initialised network behind a torch-free handle (pimpl), so callers
// outside engine/train never compile torch headers.
#include "engine/core/result.h"
#include "engine/train/images.h"
#include "engine/train/model_spec.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::train {

/// Sets LibTorch's intra-op thread count. Call once at program start-up: changing it while a
/// job runs oversubscribes the cores (docs/DEVELOPING.md, "Threads inside LibTorch").
void setTorchThreads(int threads);

/// Whether `device` names a device this LibTorch build can run on ("cpu", "cuda", "cuda:N" with
/// a GPU); the error names the device and what is expected. Stages ask before any work.
Status checkDevice(const std::string& device);

class Model {
public:
    /// A new network for `spec`, initialised with PyTorch's default schemes from `seed` (on the
    /// CPU, so the initial weights are the same on every device), its parameters on `device`:
    /// LibTorch's name of a device — "cpu", "cuda", "cuda:1" (runtime::chooseDevice resolves a
    /// user's "auto"; docs/GPU.md). Every tensor of the model's training lives there.
    /// Throws std::invalid_argument for a name LibTorch does not know.
    static Model create(const ModelSpec& spec, std::uint64_t seed, const std::string& device);

    const ModelSpec& spec() const;
    std::string device() const;  // "cpu", "cuda:0", ...
    std::int64_t parameterCount() const;

    /// All parameters flattened in a fixed order (for saving in a project file).
    std::vector<float> parameters() const;
    /// Restores parameters saved by parameters(); an error (and no change) on a size mismatch.
    Status setParameters(const std::vector<float>& values);

    /// Logits, row-major N × spec().outputs. Images must match the spec's C×H×W.
    Result<std::vector<float>> logits(const ImageView& images) const;

    /// A deep copy (Model is a handle: copies share one network).
    Model clone() const;

    struct Impl;
    Impl& impl() const { return *impl_; }

private:
    explicit Model(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
    std::shared_ptr<Impl> impl_;
};

}  // namespace dpmix::train
