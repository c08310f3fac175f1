// Pretraining, user-level DP fine-tuning and perplexity of the causal LM (see lm_training.h).
#include "engine/train/lm_training.h"

#include "engine/privacy/accountant.h"
#include "engine/privacy/mechanism_random.h"
#include "engine/privacy/parameters.h"
#include "engine/train/detail/causal_lm_impl.h"
#include "engine/train/detail/ghost_clipping.h"
#include "engine/train/detail/optimizer.h"
#include "engine/train/detail/poisson_sampler.h"

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

namespace dpmix::train {

using privacy::formatNumber;

Status checkTokenIds(const TokenStreams& streams, int vocabulary, const std::string& what) {
    for (std::size_t i = 0; i < streams.size(); ++i)
        for (std::size_t j = 0; j < streams[i].size(); ++j)
            if (streams[i][j] < 0 || streams[i][j] >= vocabulary)
                return Error{what + ": stream " + std::to_string(i) + ", position " + std::to_string(j) +
                             " holds token id " + std::to_string(streams[i][j]) +
                             ", outside the model's vocabulary 0.." + std::to_string(vocabulary - 1)};
    return std::nullopt;
}

Result<LmPretrainParams> checkLmPretrainParams(const LmPretrainParams& p) {
    if (p.steps < 1) return Error{"pretrain steps = " + std::to_string(p.steps) + " is out of range: expected >= 1"};
    if (p.batchSize < 1)
        return Error{"pretrain batch = " + std::to_string(p.batchSize) + " is out of range: expected >= 1"};
    if (auto e = privacy::checkPositive("pretrain lr", p.learningRate)) return *e;
    return p;
}

Result<LmDpParams> checkLmDpParams(const LmDpParams& p) {
    for (auto e :
         {privacy::checkPositive("epsilon", p.epsilon), privacy::checkDelta("delta", p.delta),
          privacy::checkPositive("finetune clip", p.clipNorm), privacy::checkPositive("finetune lr", p.learningRate)})
        if (e) return *e;
    if (p.expectedUsers < 1)
        return Error{"finetune batch = " + std::to_string(p.expectedUsers) +
                     " is out of range: expected >= 1 user per step"};
    if (p.steps < 1) return Error{"finetune steps = " + std::to_string(p.steps) + " is out of range: expected >= 1"};
    if (p.trainLastBlocks < 0)
        return Error{"trainLastBlocks = " + std::to_string(p.trainLastBlocks) + " is out of range: expected >= 0"};
    if (p.evaluateEvery < 0)
        return Error{"evaluateEvery = " + std::to_string(p.evaluateEvery) + " is out of range: expected >= 0"};
    if (p.sigma && !(*p.sigma >= 0.0 && std::isfinite(*p.sigma)))
        return Error{"sigma = " + formatNumber(*p.sigma) + " is out of range: expected a finite noise multiplier >= 0"};
    if (p.split.empty()) return Error{"split: expected the name of the data split (e.g. \"B\"), got an empty name"};
    return p;
}

namespace {

// A uniformly random window start in a stream (0 when the stream is no longer than T+1). On
// private streams `rng` is the mechanism's secret sampling randomness.
template <typename Gen>
std::int64_t randomStart(std::span<const std::int32_t> s, int context, Gen& rng) {
    const auto last = static_cast<std::int64_t>(s.size()) - (context + 1);
    if (last <= 0) return 0;
    return std::uniform_int_distribution<std::int64_t>(0, last)(rng);
}

}  // namespace

Result<double> pretrainCausalLm(CausalLm& model, const TokenStreams& domains, std::span<const double> lambda,
                                const LmPretrainParams& rawParams, const ProgressCallback& progress,
                                const CancellationToken& cancel) {
    auto checked = checkLmPretrainParams(rawParams);
    if (!checked) return checked.error();
    const LmPretrainParams& params = *checked;
    auto& impl = model.impl();
    const int context = impl.spec.context;
    if (lambda.size() != domains.size())
        return Error{"pretraining: lambda has " + std::to_string(lambda.size()) + " weights for " +
                     std::to_string(domains.size()) + " domains: expected one weight per domain"};
    double total = 0.0;
    for (std::size_t i = 0; i < lambda.size(); ++i) {
        if (!(lambda[i] >= 0.0 && std::isfinite(lambda[i])))
            return Error{"pretraining: lambda[" + std::to_string(i) + "] = " + formatNumber(lambda[i]) +
                         " is out of range: mixture weights must be finite and >= 0"};
        if (lambda[i] > 0.0 && domains[i].size() < 2)
            return Error{"pretraining: domain " + std::to_string(i) + " has weight " + formatNumber(lambda[i]) +
                         " but only " + std::to_string(domains[i].size()) +
                         " token(s): expected at least 2 to predict one"};
        total += lambda[i];
    }
    if (std::abs(total - 1.0) > 1e-6)
        return Error{"pretraining: lambda sums to " + formatNumber(total) +
                     ", expected mixture weights on the simplex (sum 1)"};
    if (auto e = checkTokenIds(domains, impl.spec.vocabulary, "pretraining text")) return *e;

    detail::Network& net = impl.network;
    std::vector<at::Tensor*> weights = net.parameters();
    detail::AdamOptimizer optimizer(weights, params.learningRate);
    std::mt19937_64 rng(params.seed);
    std::discrete_distribution<std::size_t> pickDomain(lambda.begin(), lambda.end());
    const long long tail = std::max<long long>(1, params.steps / 10);
    double tailLoss = 0.0;
    std::vector<std::span<const std::int32_t>> windows(static_cast<std::size_t>(params.batchSize));
    std::vector<std::int64_t> starts(windows.size());
    for (long long step = 0; step < params.steps; ++step) {
        throwIfCancelled(cancel);
        for (std::size_t b = 0; b < windows.size(); ++b) {
            windows[b] = domains[pickDomain(rng)];
            starts[b] = randomStart(windows[b], context, rng);
        }
        detail::WindowBatch batch = detail::makeWindows(windows, starts, context, impl.device);
        detail::zeroGradients(weights);
        at::Tensor loss = detail::windowLoss(net.forward(batch.inputs), batch).mean();
        loss.backward();
        optimizer.step();
        const double value = loss.item<double>();
        if (step >= params.steps - tail) tailLoss += value / static_cast<double>(tail);
        if (step % 20 == 0 || step + 1 == params.steps)
            report(progress, {"pretrain", step + 1, params.steps, "loss " + std::to_string(value)});
    }
    detail::zeroGradients(weights);
    return tailLoss;
}

Result<privacy::LedgerEntry> plannedLmDpEntry(const LmDpParams& params, std::int64_t users) {
    const double q = static_cast<double>(params.expectedUsers) / static_cast<double>(users);
    double sigma = 0.0;
    if (params.sigma) {
        sigma = *params.sigma;
    } else {
        auto calibrated = privacy::calibrateSigma(params.accountant, params.epsilon, params.delta, q, params.steps);
        if (!calibrated) return Error{"DP fine-tuning: " + calibrated.error().message};
        sigma = calibrated->sigma;
    }
    // One window per sampled user, clipped as a whole: each user's contribution to a step is
    // bounded by C, so the accounting is per user.
    privacy::LedgerEntry e = privacy::gaussianEntry("finetune", params.split, privacy::PrivacyUnit::User, q, sigma,
                                                    params.steps, params.delta, params.clipNorm, params.accountant);
    privacy::setRandomness(e, params.randomness.mode);
    return e;
}

Result<LmFinetuneResult> finetuneCausalLmDpSgd(CausalLm& model, const TokenStreams& users, const LmDpParams& rawParams,
                                               privacy::Ledger& ledger, const std::function<void(long long)>& evaluate,
                                               const ProgressCallback& progress, const CancellationToken& cancel) {
    auto checked = checkLmDpParams(rawParams);
    if (!checked) return checked.error();
    const LmDpParams& params = *checked;
    auto& impl = model.impl();
    const auto m = static_cast<std::int64_t>(users.size());
    if (m == 0) return Error{"DP fine-tuning: no users to fine-tune on"};
    if (params.expectedUsers > m)
        return Error{"finetune batch = " + std::to_string(params.expectedUsers) + " users exceeds the " +
                     std::to_string(m) + " fine-tuning users: the sampling rate q = batch/m must be <= 1"};
    if (params.trainLastBlocks > impl.spec.blockCount())
        return Error{"trainLastBlocks = " + std::to_string(params.trainLastBlocks) + " exceeds the " +
                     std::to_string(impl.spec.blockCount()) + " freezable units of the transformer"};
    if (auto e = checkTokenIds(users, impl.spec.vocabulary, "fine-tuning text")) return *e;

    auto planned = plannedLmDpEntry(params, m);
    if (!planned) return planned.error();
    LmFinetuneResult result;
    result.entry = std::move(planned).value();
    result.steps = params.steps;
    result.q = result.entry.q;
    result.sigma = result.entry.sigma;
    const double q = result.q;
    const double sigma = result.sigma;
    ledger.record(result.entry);

    detail::Network& net = impl.network;
    detail::FrozenBlocks frozen(net, params.trainLastBlocks);
    std::vector<at::Tensor*> trainable = net.trainableParameters();
    detail::AdamOptimizer optimizer(trainable, params.learningRate);
    privacy::MechanismRng noiseGen(params.randomness, "noise");
    detail::PoissonSampler sampler(m, q, params.randomness);
    privacy::MechanismRng windowRng(params.randomness, "window starts");
    const double expected = q * static_cast<double>(m);
    long long sampled = 0, clipped = 0;
    const bool hook = evaluate && params.evaluateEvery > 0;
    if (hook) evaluate(0);
    for (long long t = 0; t < params.steps; ++t) {
        throwIfCancelled(cancel);
        std::vector<std::int64_t> batch = sampler.next();
        detail::zeroGradients(trainable);
        if (batch.empty()) {
            result.stepLoss.push_back(std::numeric_limits<double>::quiet_NaN());  // noise is still released
        } else {
            std::vector<std::span<const std::int32_t>> windows;
            std::vector<std::int64_t> starts;
            for (auto u : batch) {
                windows.push_back(users[static_cast<std::size_t>(u)]);
                starts.push_back(randomStart(windows.back(), impl.spec.context, windowRng));
            }
            detail::WindowBatch wb = detail::makeWindows(windows, starts, impl.spec.context, impl.device);
            detail::Tape tape;
            at::Tensor perUser = detail::windowLoss(net.forward(wb.inputs, &tape), wb);
            result.stepLoss.push_back(perUser.detach().mean().item<double>());
            at::Tensor norms = detail::clipAndSumGradients(tape, perUser, params.clipNorm);
            sampled += static_cast<long long>(batch.size());
            clipped += norms.gt(params.clipNorm).sum().item<std::int64_t>();
        }
        detail::privatiseGradients(trainable, sigma * params.clipNorm, params.clipNorm, expected, noiseGen);
        optimizer.step();
        if (hook && ((t + 1) % params.evaluateEvery == 0 || t + 1 == params.steps)) evaluate(t + 1);
        if (t % 10 == 0 || t + 1 == params.steps)
            report(progress,
                   {"finetune", t + 1, params.steps, "DP-SGD loss " + std::to_string(result.stepLoss.back())});
    }
    detail::zeroGradients(trainable);
    result.clippedFraction = sampled > 0 ? static_cast<double>(clipped) / static_cast<double>(sampled) : 0.0;
    return result;
}

Result<double> causalLmPerplexity(const CausalLm& model, const TokenStreams& streams, long long maxTargets) {
    auto& impl = model.impl();
    const int context = impl.spec.context;
    if (auto e = checkTokenIds(streams, impl.spec.vocabulary, "evaluation text")) return *e;
    // Window list, round-robin across streams so a cap still covers every stream.
    std::vector<std::pair<std::size_t, std::int64_t>> windows;
    long long targets = 0;
    for (std::int64_t start = 0;; start += context) {
        bool any = false;
        for (std::size_t i = 0; i < streams.size(); ++i) {
            const auto n = static_cast<std::int64_t>(streams[i].size());
            if (start + 1 >= n) continue;
            any = true;
            windows.emplace_back(i, start);
            targets += std::min<std::int64_t>(context, n - 1 - start);
            if (maxTargets > 0 && targets >= maxTargets) break;
        }
        if (!any || (maxTargets > 0 && targets >= maxTargets)) break;
    }
    if (windows.empty()) return Error{"perplexity: no stream has two tokens (nothing to predict)"};
    at::NoGradGuard noGrad;
    double nll = 0.0, count = 0.0;
    constexpr std::size_t kBatch = 64;
    for (std::size_t first = 0; first < windows.size(); first += kBatch) {
        std::vector<std::span<const std::int32_t>> ws;
        std::vector<std::int64_t> starts;
        for (std::size_t w = first; w < std::min(windows.size(), first + kBatch); ++w) {
            ws.push_back(streams[windows[w].first]);
            starts.push_back(windows[w].second);
        }
        detail::WindowBatch batch = detail::makeWindows(ws, starts, context, impl.device);
        at::Tensor perWindow = detail::windowLoss(impl.network.forward(batch.inputs), batch);
        at::Tensor counts = batch.mask.sum(1);
        nll += (perWindow * counts).sum().item<double>();
        count += counts.sum().item<double>();
    }
    return std::exp(nll / count);
}

}  // namespace dpmix::train
