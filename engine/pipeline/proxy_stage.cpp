#include "engine/pipeline/proxy_stage.h"

#include "engine/core/seed_derivation.h"
#include "engine/pipeline/run_storage.h"

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

std::vector<float> gatherLabels(const data::ImageDataset& images, const std::vector<std::size_t>& indices) {
    const std::size_t k = images.numLabels();
    std::vector<float> out(indices.size() * k);
    for (std::size_t r = 0; r < indices.size(); ++r)
        std::copy_n(images.labels.begin() + static_cast<std::ptrdiff_t>(indices[r] * k), k,
                    out.begin() + static_cast<std::ptrdiff_t>(r * k));
    return out;
}

std::vector<unsigned char> gatherDefined(const ImageStudy& study, const std::vector<std::size_t>& indices) {
    const std::size_t k = study.components();
    std::vector<unsigned char> out(indices.size() * k);
    for (std::size_t r = 0; r < indices.size(); ++r)
        std::copy_n(study.componentDefined.begin() + static_cast<std::ptrdiff_t>(indices[r] * k), k,
                    out.begin() + static_cast<std::ptrdiff_t>(r * k));
    return out;
}

train::ImageView viewOf(const std::vector<float>& pixels, const data::ImageDataset& like, std::size_t count) {
    return {pixels, static_cast<std::int64_t>(count), like.channels, like.height, like.width};
}

}  // namespace

Result<Eigen::MatrixXd> Proxy::predict(const data::ImageDataset& images,
                                       const std::vector<std::size_t>& indices) const {
    if (!impl) return Error{"the proxy has not been trained"};
    const auto pixels = gatherImages(images, indices);
    auto p = train::predictProxy(impl->model, viewOf(pixels, images, indices.size()));
    if (!p) return p.error();
    Eigen::MatrixXd out(static_cast<Eigen::Index>(indices.size()), impl->sources);
    for (Eigen::Index j = 0; j < out.rows(); ++j)
        for (Eigen::Index i = 0; i < out.cols(); ++i) out(j, i) = (*p)[static_cast<std::size_t>(j * out.cols() + i)];
    return out;
}

std::vector<float> Proxy::parameters() const { return impl ? impl->model.parameters() : std::vector<float>{}; }

namespace {

struct PublicSplit {
    std::vector<std::size_t> training, validation;
};

// 10% of the public images (deterministic from the seed) are held out to report the proxy's
// quality; public data, so this costs no privacy.
PublicSplit splitPublic(std::size_t publicImages, std::uint64_t seed) {
    std::vector<std::size_t> order(publicImages);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::mt19937_64 rng(seeds::proxyHoldOut(seed));
    std::shuffle(order.begin(), order.end(), rng);
    const std::size_t held = std::max<std::size_t>(1, publicImages / 10);
    PublicSplit s;
    s.validation.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(held));
    s.training.assign(order.begin() + static_cast<std::ptrdiff_t>(held), order.end());
    std::sort(s.validation.begin(), s.validation.end());
    std::sort(s.training.begin(), s.training.end());
    return s;
}

Result<train::ModelSpec> proxySpec(const ImageStudy& study) {
    const auto& pub = study.publicImages;
    auto spec = train::ModelSpecBuilder()
                    .kind(train::ModelKind::SmallCnn)
                    .input(pub.channels, pub.height, pub.width)
                    .outputs(2 * static_cast<int>(study.components()))
                    .build();
    if (!spec) return Error{"proxy model: " + spec.error().message};
    return spec;
}

// Several sources: each component's AUC on the held-out images of its own source, then their mean.
double heldOutAucPerSource(const Eigen::MatrixXd& heldOut, const ImageStudy& study,
                           const std::vector<std::size_t>& validation) {
    const auto& pub = study.publicImages;
    double sum = 0.0;
    int counted = 0;
    for (std::size_t c = 0; c < study.components(); ++c) {
        std::vector<double> scores;
        std::vector<int> truth;
        for (std::size_t r = 0; r < validation.size(); ++r) {
            const std::size_t j = validation[r];
            if (study.publicImageSource[j] != study.componentSource[c]) continue;
            scores.push_back(heldOut(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)));
            truth.push_back(pub.labels[j * pub.numLabels() + c] > 0.5f);
        }
        auto auc = train::macroAuc(scores, truth, 1);
        if (!auc) continue;  // a component without positives and negatives there
        sum += auc->macro;
        ++counted;
    }
    return counted > 0 ? sum / counted : 0.0;
}

double heldOutAuc(const Proxy& proxy, const ImageStudy& study, const std::vector<std::size_t>& validation, int k) {
    const auto& pub = study.publicImages;
    auto heldOut = proxy.predict(pub, validation);
    if (!heldOut) return 0.0;
    if (study.multiSource()) return heldOutAucPerSource(*heldOut, study, validation);
    std::vector<double> scores(static_cast<std::size_t>(heldOut->size()));
    std::vector<int> truth(scores.size());
    for (Eigen::Index j = 0; j < heldOut->rows(); ++j)
        for (Eigen::Index i = 0; i < k; ++i) {
            const auto at = static_cast<std::size_t>(j * k + i);
            scores[at] = (*heldOut)(j, i);
            truth[at] =
                pub.labels[validation[static_cast<std::size_t>(j)] * pub.numLabels() + static_cast<std::size_t>(i)] >
                0.5f;
        }
    auto auc = train::macroAuc(scores, truth, k);
    return auc ? auc->macro : 0.0;
}

}  // namespace

std::vector<std::size_t> proxyHeldOutRows(std::size_t publicImages, std::uint64_t seed) {
    return splitPublic(publicImages, seed).validation;
}

Result<Proxy> trainProxy(const ImageStudy& study, const ProxyOptions& options, std::uint64_t seed,
                         const ProgressCallback& progress, const CancellationToken& cancel) {
    const auto& pub = study.publicImages;
    const int k = static_cast<int>(study.components());
    const PublicSplit split = splitPublic(pub.size(), seed);
    auto spec = proxySpec(study);
    if (!spec) return spec.error();
    auto params = train::SupervisedParamsBuilder()
                      .epochs(options.epochs)
                      .batchSize(static_cast<int>(options.batch))
                      .learningRate(options.lr)
                      .maxExamples(options.maxExamples)
                      .seed(seed)
                      .device(options.device)
                      .build();
    if (!params) return Error{"proxy training: " + params.error().message};

    const auto pixels = gatherImages(pub, split.training);
    const auto labels = gatherLabels(pub, split.training);
    const auto images = viewOf(pixels, pub, split.training.size());
    // Several sources: each component's head learns from its own source's images only.
    auto model = study.multiSource() ? train::trainMaskedProxy(images, labels, gatherDefined(study, split.training), k,
                                                               *spec, *params, progress, cancel)
                                     : train::trainProxy(images, labels, k, *spec, *params, progress, cancel);
    if (!model) return Error{"proxy training: " + model.error().message};

    Proxy proxy;
    proxy.impl = std::make_unique<Proxy::Impl>(Proxy::Impl{std::move(model).value(), k});
    proxy.publicValidationAuc = heldOutAuc(proxy, study, split.validation, k);
    return proxy;
}

Result<Proxy> restoreProxy(const ImageStudy& study, const std::vector<float>& parameters, std::uint64_t seed,
                           const std::string& device) {
    auto spec = proxySpec(study);
    if (!spec) return spec.error();
    auto model = train::Model::create(*spec, seed, device);
    if (auto err = model.setParameters(parameters)) return Error{"stored proxy weights: " + err->message};
    const int k = static_cast<int>(study.components());
    Proxy proxy;
    proxy.impl = std::make_unique<Proxy::Impl>(Proxy::Impl{std::move(model), k});
    proxy.publicValidationAuc = heldOutAuc(proxy, study, splitPublic(study.publicImages.size(), seed).validation, k);
    return proxy;
}

}  // namespace dpmix::pipeline
