#include "engine/train/evaluation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <string>

namespace dpmix::train {

Result<double> rocAuc(std::span<const double> scores, std::span<const int> labels) {
    if (scores.size() != labels.size())
        return Error{"AUC: " + std::to_string(scores.size()) + " scores but " + std::to_string(labels.size()) +
                     " labels; expected one score per label"};
    long long positives = 0;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (labels[i] != 0 && labels[i] != 1)
            return Error{"AUC: label " + std::to_string(labels[i]) + " at index " + std::to_string(i) +
                         " is not 0 or 1"};
        if (std::isnan(scores[i])) return Error{"AUC: score at index " + std::to_string(i) + " is NaN"};
        positives += labels[i];
    }
    const long long negatives = static_cast<long long>(labels.size()) - positives;
    if (positives == 0 || negatives == 0)
        return Error{"AUC: undefined without both classes (" + std::to_string(positives) + " positives, " +
                     std::to_string(negatives) + " negatives)"};
    std::vector<std::size_t> order(scores.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
    // Sum of the positives' mid-ranks (1-based; a tie group shares its average rank, which
    // counts each tied positive–negative pair as ½).
    double rankSum = 0.0;
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        long long tiedPositives = 0;
        while (j < order.size() && scores[order[j]] == scores[order[i]]) tiedPositives += labels[order[j++]];
        const double midRank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
        rankSum += midRank * static_cast<double>(tiedPositives);
        i = j;
    }
    const double p = static_cast<double>(positives), n = static_cast<double>(negatives);
    return (rankSum - p * (p + 1.0) / 2.0) / (p * n);
}

Result<MacroAuc> macroAuc(std::span<const double> scores, std::span<const int> labels, int classes) {
    if (classes < 1) return Error{"macro AUC: classes = " + std::to_string(classes) + ", expected at least 1"};
    if (scores.size() != labels.size() || scores.size() % static_cast<std::size_t>(classes) != 0)
        return Error{
            "macro AUC: expected scores and labels of equal size n x classes (classes = " + std::to_string(classes) +
            "), got " + std::to_string(scores.size()) + " scores and " + std::to_string(labels.size()) + " labels"};
    const std::size_t n = scores.size() / static_cast<std::size_t>(classes);
    MacroAuc out;
    double sum = 0.0;
    std::vector<double> s(n);
    std::vector<int> y(n);
    for (int c = 0; c < classes; ++c) {
        for (std::size_t j = 0; j < n; ++j) {
            s[j] = scores[j * static_cast<std::size_t>(classes) + static_cast<std::size_t>(c)];
            y[j] = labels[j * static_cast<std::size_t>(classes) + static_cast<std::size_t>(c)];
        }
        const bool both = std::find(y.begin(), y.end(), 0) != y.end() && std::find(y.begin(), y.end(), 1) != y.end();
        if (!both) {
            out.perClass.push_back(std::numeric_limits<double>::quiet_NaN());
            continue;
        }
        Result<double> auc = rocAuc(s, y);
        if (!auc) return Error{"macro AUC, class " + std::to_string(c) + ": " + auc.error().message};
        out.perClass.push_back(*auc);
        sum += *auc;
        ++out.classesUsed;
    }
    if (out.classesUsed == 0) return Error{"macro AUC: no class has both positive and negative labels"};
    out.macro = sum / out.classesUsed;
    return out;
}

std::string collapsedOutputs(std::span<const float> logits) {
    if (logits.empty()) return {};
    const std::string n = std::to_string(logits.size());
    std::size_t nonFinite = 0, saturated = 0;
    double sum = 0.0;
    for (float z : logits) {
        if (!std::isfinite(z)) {
            ++nonFinite;
            continue;
        }
        sum += z;
        const float p = 1.0f / (1.0f + std::exp(-z));  // the probability as a float model output gives it
        if (p == 0.0f || p == 1.0f) ++saturated;
    }
    if (nonFinite > 0)
        return std::string(kNonFiniteOutputs) + ": " + std::to_string(nonFinite) + " of " + n +
               " logits NaN or infinite";
    const double mean = sum / static_cast<double>(logits.size());
    double squares = 0.0;
    for (float z : logits) squares += (z - mean) * (z - mean);
    const double sd = std::sqrt(squares / static_cast<double>(logits.size()));
    char text[160];
    if (logits.size() > 1 && sd <= kConstantLogitStd) {
        std::snprintf(text, sizeof text, " logits all %.4g (standard deviation %.2g)", mean, sd);
        return "constant outputs: " + n + text;
    }
    if (saturated == logits.size()) return "saturated outputs: all " + n + " probabilities exactly 0 or 1 in float";
    return {};
}

Result<MeanStd> meanAndStd(std::span<const double> values) {
    if (values.empty()) return Error{"mean/std: no values"};
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i])) return Error{"mean/std: value at index " + std::to_string(i) + " is not finite"};
    return meanStd(values);
}

Result<double> perplexity(std::span<const double> tokenNll) {
    if (tokenNll.empty()) return Error{"perplexity: no tokens"};
    double sum = 0.0;
    for (std::size_t i = 0; i < tokenNll.size(); ++i) {
        if (!(tokenNll[i] >= 0.0 && std::isfinite(tokenNll[i])))
            return Error{"perplexity: token NLL at index " + std::to_string(i) + " must be a finite value >= 0 (nats)"};
        sum += tokenNll[i];
    }
    return std::exp(sum / static_cast<double>(tokenNll.size()));
}

}  // namespace dpmix::train
