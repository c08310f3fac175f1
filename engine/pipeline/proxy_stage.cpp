#include "engine/pipeline/proxy_stage.h"

#include "engine/train/evaluation.h"
#include "engine/train/model_spec.h"
#include "engine/train/proxy.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace dpmix::pipeline {

struct Proxy::Impl {
    train::Model model;
    int sources = 0;
};

Proxy::Proxy() = default;
Proxy::Proxy(Proxy&&) noexcept = default;
Proxy& Proxy::operator=(Proxy&&) noexcept = default;
Proxy::~Proxy() = default;

namespace {

// Gathers the rows `indices` of an image set into a contiguous buffer.
std::vector<float> gatherPixels(const data::ImageDataset& images, const std::vector<std::size_t>& indices) {
    const std::size_t size = images.imageSize();
    std::vector<float> out(indices.size() * size);
    for (std::size_t r = 0; r < indices.size(); ++r)
        std::copy_n(images.pixels.begin() + static_cast<std::ptrdiff_t>(indices[r] * size), size,
                    out.begin() + static_cast<std::ptrdiff_t>(r * size));
    return out;
}

std::vector<float> gatherLabels(const data::ImageDataset& images, const std::vector<std::size_t>& indices) {
    const std::size_t k = images.numLabels();
    std::vector<float> out(indices.size() * k);
    for (std::size_t r = 0; r < indices.size(); ++r)
        std::copy_n(images.labels.begin() + static_cast<std::ptrdiff_t>(indices[r] * k), k,
                    out.begin() + static_cast<std::ptrdiff_t>(r * k));
    return out;
}

train::ImageView viewOf(const std::vector<float>& pixels, const data::ImageDataset& like, std::size_t count) {
    return {pixels, static_cast<std::int64_t>(count), like.channels, like.height, like.width};
}

}  // namespace

Result<Eigen::MatrixXd> Proxy::predict(const data::ImageDataset& images, const std::vector<std::size_t>& indices) const {
    if (!impl) return Error{"the proxy has not been trained"};
    const auto pixels = gatherPixels(images, indices);
    auto p = train::predictProxy(impl->model, viewOf(pixels, images, indices.size()));
    if (!p) return p.error();
    Eigen::MatrixXd out(static_cast<Eigen::Index>(indices.size()), impl->sources);
    for (Eigen::Index j = 0; j < out.rows(); ++j)
        for (Eigen::Index i = 0; i < out.cols(); ++i) out(j, i) = (*p)[static_cast<std::size_t>(j * out.cols() + i)];
    return out;
}

std::vector<float> Proxy::parameters() const { return impl ? impl->model.parameters() : std::vector<float>{}; }

Result<Proxy> trainProxy(const ImageStudy& study, const ProxyOptions& options, std::uint64_t seed,
                         const ProgressCallback& progress, const CancellationToken& cancel) {
    const auto& pub = study.publicImages;
    const int k = static_cast<int>(study.components());
    // Hold out 10% of the public images (deterministic from the seed) to report the proxy's
    // quality; public data, so this costs no privacy.
    std::vector<std::size_t> order(pub.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::mt19937_64 rng(seed ^ 0x70726f7879ULL);  // "proxy"
    std::shuffle(order.begin(), order.end(), rng);
    const std::size_t held = std::max<std::size_t>(1, pub.size() / 10);
    std::vector<std::size_t> validation(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(held));
    std::vector<std::size_t> training(order.begin() + static_cast<std::ptrdiff_t>(held), order.end());
    std::sort(validation.begin(), validation.end());
    std::sort(training.begin(), training.end());

    auto spec = train::ModelSpecBuilder().kind(train::ModelKind::SmallCnn).input(pub.channels, pub.height, pub.width)
                    .outputs(2 * k).build();
    if (!spec) return Error{"proxy model: " + spec.error().message};
    auto params = train::SupervisedParamsBuilder()
                      .epochs(options.epochs)
                      .batchSize(static_cast<int>(options.batch))
                      .learningRate(options.lr)
                      .maxExamples(options.maxExamples)
                      .seed(seed)
                      .build();
    if (!params) return Error{"proxy training: " + params.error().message};

    const auto pixels = gatherPixels(pub, training);
    const auto labels = gatherLabels(pub, training);
    auto model = train::trainProxy(viewOf(pixels, pub, training.size()), labels, k, *spec, *params, progress, cancel);
    if (!model) return Error{"proxy training: " + model.error().message};

    Proxy proxy;
    proxy.impl = std::make_unique<Proxy::Impl>(Proxy::Impl{std::move(model).value(), k});
    auto heldOut = proxy.predict(pub, validation);
    if (!heldOut) return heldOut.error();
    std::vector<double> scores(heldOut->size());
    std::vector<int> truth(heldOut->size());
    for (Eigen::Index j = 0; j < heldOut->rows(); ++j)
        for (Eigen::Index i = 0; i < k; ++i) {
            scores[static_cast<std::size_t>(j * k + i)] = (*heldOut)(j, i);
            truth[static_cast<std::size_t>(j * k + i)] =
                pub.labels[validation[static_cast<std::size_t>(j)] * pub.numLabels() + static_cast<std::size_t>(i)] > 0.5f;
        }
    auto auc = train::macroAuc(scores, truth, k);
    proxy.publicValidationAuc = auc ? auc->macro : 0.0;
    return proxy;
}

}  // namespace dpmix::pipeline
