#include "engine/train/detail/plain_training.h"

#include "engine/core/seed_derivation.h"
#include "engine/train/detail/optimizer.h"

#include <algorithm>
#include <random>

namespace dpmix::train::detail {

std::vector<int64_t> trainingSubset(int64_t n, const SupervisedParams& params) {
    std::vector<int64_t> rows(static_cast<std::size_t>(n));
    for (int64_t i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = i;
    if (params.maxExamples > 0 && params.maxExamples < n) {
        std::mt19937_64 rng(seeds::trainingSubset(params.seed));
        std::shuffle(rows.begin(), rows.end(), rng);
        rows.resize(static_cast<std::size_t>(params.maxExamples));
        std::sort(rows.begin(), rows.end());
    }
    return rows;
}

double trainSupervised(Network& net, at::Device device, const ImageView& images, const std::vector<int64_t>& rows,
                       const SupervisedParams& params, const BatchLoss& loss, const std::string& stage,
                       const ProgressCallback& progress, const CancellationToken& cancel) {
    std::vector<at::Tensor*> trainable = net.trainableParameters();
    SgdOptimizer sgd(trainable, params.learningRate, params.momentum, params.weightDecay);
    AdamOptimizer adam(trainable, params.learningRate, params.weightDecay);
    std::mt19937_64 rng(params.seed);
    std::vector<int64_t> order = rows;
    const auto batchesPerEpoch = static_cast<long long>((order.size() + params.batchSize - 1) / params.batchSize);
    const long long total = batchesPerEpoch * params.epochs;
    long long done = 0;
    double epochLoss = 0.0;
    for (int epoch = 0; epoch < params.epochs; ++epoch) {
        std::shuffle(order.begin(), order.end(), rng);
        double lossSum = 0.0;
        for (std::size_t start = 0; start < order.size(); start += static_cast<std::size_t>(params.batchSize)) {
            throwIfCancelled(cancel);
            std::vector<int64_t> batch(
                order.begin() + static_cast<std::ptrdiff_t>(start),
                order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), start + params.batchSize)));
            at::Tensor l = loss(net.forward(gatherImages(images, batch, device)), batch);
            zeroGradients(trainable);
            l.backward();
            if (params.optimizer == OptimizerKind::Sgd)
                sgd.step();
            else
                adam.step();
            lossSum += l.item<double>() * static_cast<double>(batch.size());
            ++done;
            if (done % 20 == 0 || done == total)
                report(progress, {stage, done, total,
                                  "epoch " + std::to_string(epoch + 1) + " loss " + std::to_string(l.item<double>())});
        }
        epochLoss = lossSum / static_cast<double>(order.size());
    }
    return epochLoss;
}

}  // namespace dpmix::train::detail
