#include "engine/mixmin/objective.h"

#include "engine/privacy/parameters.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace dpmix::mixmin {
namespace {

using privacy::formatNumber;

Error badEntry(const std::string& field, Index row, Index col, double value, const std::string& expected) {
    return Error{field + ": entry (example " + std::to_string(row) + ", source " + std::to_string(col) +
                 ") = " + formatNumber(value) + " is out of range: expected " + expected};
}

Status checkShape(const std::string& field, Index rows, Index cols) {
    if (rows < 1) return Error{field + " has no rows: expected at least one example (n >= 1)"};
    if (cols < 2)
        return Error{field + " has " + std::to_string(cols) +
                     " column(s): expected one column per public source, k >= 2"};
    return std::nullopt;
}

Status checkProbabilities(const std::string& field, const Eigen::MatrixXd& m) {
    for (Index j = 0; j < m.rows(); ++j)
        for (Index i = 0; i < m.cols(); ++i) {
            const double v = m(j, i);
            if (!(v >= 0.0 && v <= 1.0)) return badEntry(field, j, i, v, "a probability in [0, 1]");
        }
    return std::nullopt;
}

Status checkLabels(const std::vector<int>& labels, Index rows, int classes) {
    if (static_cast<Index>(labels.size()) != rows)
        return Error{"labels: " + std::to_string(labels.size()) + " labels for " + std::to_string(rows) +
                     " examples: expected one label per row of the proxy matrix"};
    for (std::size_t j = 0; j < labels.size(); ++j)
        if (labels[j] < 0 || labels[j] >= classes)
            return Error{"labels: label of example " + std::to_string(j) + " = " + std::to_string(labels[j]) +
                         " is out of range: expected a class in 0.." + std::to_string(classes - 1)};
    return std::nullopt;
}

// log Σ exp(a_i), exact for entries of −inf (a zero weight); −inf when all are.
double logSumExp(const Eigen::Ref<const Eigen::RowVectorXd>& a) {
    const double m = a.maxCoeff();
    if (m == -std::numeric_limits<double>::infinity()) return m;
    return m + std::log((a.array() - m).exp().sum());
}

double clampProbability(double f, ObjectiveKind kind) {
    // BCE needs 1 − f > 0 too; the likelihood forms only need f > 0.
    const double hi =
        kind == ObjectiveKind::BinaryCrossEntropy ? 1.0 - kProbabilityFloor : std::numeric_limits<double>::infinity();
    return std::clamp(f, kProbabilityFloor, hi);
}

}  // namespace

const char* toString(ObjectiveKind kind) {
    switch (kind) {
        case ObjectiveKind::BinaryCrossEntropy: return "binary-cross-entropy";
        case ObjectiveKind::TrueClassLikelihood: return "true-class-likelihood";
        case ObjectiveKind::SequenceLikelihood: return "sequence-likelihood";
        case ObjectiveKind::TokenLikelihood: return "token-likelihood";
    }
    return "unknown";
}

// ---------------------------------------------------------------------------------------------
// Per-example values

double MixtureObjective::exampleLoss(const Eigen::VectorXd& lambda, Index j) const {
    switch (kind_) {
        case ObjectiveKind::BinaryCrossEntropy: {
            const double f = clampProbability(values_.row(j).dot(lambda), kind_);
            return labels_(j) > 0.5 ? -std::log(f) : -std::log1p(-f);
        }
        case ObjectiveKind::TrueClassLikelihood: return -std::log(clampProbability(values_.row(j).dot(lambda), kind_));
        case ObjectiveKind::SequenceLikelihood: {
            const Eigen::RowVectorXd a = values_.row(j) + lambda.array().log().matrix().transpose();
            return -inverseLength_(j) * logSumExp(a);
        }
        case ObjectiveKind::TokenLikelihood: {
            double sum = 0.0;
            for (Index t = offsets_[j]; t < offsets_[j + 1]; ++t)
                sum -= std::log(clampProbability(values_.row(t).dot(lambda), kind_));
            return inverseLength_(j) * sum;
        }
    }
    return 0.0;
}

// Gradient conventions (docs/METHODS.md): where the clamp of the mixture probability is active
// the formula is evaluated at the clamped value (a finite push away from the clamp) rather than
// the clamp's zero derivative; everywhere else it is the exact derivative.
void MixtureObjective::exampleGradients(const Eigen::VectorXd& lambda, std::span<const Index> idx,
                                        RowMatrix& out) const {
    const Index b = static_cast<Index>(idx.size());
    out.resize(b, sources_);
    switch (kind_) {
        case ObjectiveKind::BinaryCrossEntropy:
        case ObjectiveKind::TrueClassLikelihood: {
            for (Index r = 0; r < b; ++r) out.row(r) = values_.row(idx[r]);
            const Eigen::VectorXd f = out * lambda;
            Eigen::VectorXd coef(b);
            for (Index r = 0; r < b; ++r) {
                const double fr = clampProbability(f(r), kind_);
                // d/dλ of −[y log f + (1−y) log(1−f)] = −(y/f − (1−y)/(1−f)) · P_j;  of −log f: −Q_j / f.
                if (kind_ == ObjectiveKind::TrueClassLikelihood || labels_(idx[r]) > 0.5)
                    coef(r) = -1.0 / fr;
                else
                    coef(r) = 1.0 / (1.0 - fr);
            }
            out.array().colwise() *= coef.array();
            return;
        }
        case ObjectiveKind::SequenceLikelihood: {
            // g_ji = −(1/L_j) · exp(LL_ji) / Σ_m λ_m exp(LL_jm) = −(1/L_j) · exp(LL_ji − lse_j).
            const Eigen::RowVectorXd logLambda = lambda.array().log().matrix().transpose();
            for (Index r = 0; r < b; ++r) {
                const Index j = idx[r];
                const double lse = logSumExp(values_.row(j) + logLambda);
                out.row(r) = -inverseLength_(j) * (values_.row(j).array() - lse).exp().matrix();
            }
            return;
        }
        case ObjectiveKind::TokenLikelihood: {
            for (Index r = 0; r < b; ++r) {
                const Index j = idx[r];
                const Index start = offsets_[j], len = offsets_[j + 1] - offsets_[j];
                const auto block = values_.middleRows(start, len);
                Eigen::VectorXd invF = block * lambda;
                for (Index t = 0; t < len; ++t) invF(t) = 1.0 / clampProbability(invF(t), kind_);
                out.row(r) = -inverseLength_(j) * (block.transpose() * invF).transpose();
            }
            return;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Full (weighted) objective, used by the non-private solver and Random Search.

namespace {
// Program errors (sizes are validated where users enter data), reported instead of reading
// out of bounds.
void checkSizes(const Eigen::VectorXd& lambda, const Eigen::VectorXd& weights, Index k, Index n) {
    if (lambda.size() != k) throw std::invalid_argument("MixtureObjective: lambda has the wrong number of sources");
    if (weights.size() != 0 && weights.size() != n)
        throw std::invalid_argument("MixtureObjective: weights need one entry per example");
}
}  // namespace

double MixtureObjective::loss(const Eigen::VectorXd& lambda, const Eigen::VectorXd& weights) const {
    checkSizes(lambda, weights, sources_, examples_);
    const bool uniform = weights.size() == 0;
    const double w0 = 1.0 / static_cast<double>(examples_);
    double total = 0.0;
    if (kind_ == ObjectiveKind::BinaryCrossEntropy || kind_ == ObjectiveKind::TrueClassLikelihood) {
        const Eigen::VectorXd f = values_ * lambda;
        for (Index j = 0; j < examples_; ++j) {
            const double fj = clampProbability(f(j), kind_);
            const bool positive = kind_ == ObjectiveKind::TrueClassLikelihood || labels_(j) > 0.5;
            const double l = positive ? -std::log(fj) : -std::log1p(-fj);
            total += (uniform ? w0 : weights(j)) * l;
        }
        return total;
    }
    for (Index j = 0; j < examples_; ++j) total += (uniform ? w0 : weights(j)) * exampleLoss(lambda, j);
    return total;
}

Eigen::VectorXd MixtureObjective::gradient(const Eigen::VectorXd& lambda, const Eigen::VectorXd& weights) const {
    checkSizes(lambda, weights, sources_, examples_);
    const bool uniform = weights.size() == 0;
    const double w0 = 1.0 / static_cast<double>(examples_);
    switch (kind_) {
        case ObjectiveKind::BinaryCrossEntropy:
        case ObjectiveKind::TrueClassLikelihood: {
            const Eigen::VectorXd f = values_ * lambda;
            Eigen::VectorXd coef(examples_);
            for (Index j = 0; j < examples_; ++j) {
                const double fj = clampProbability(f(j), kind_);
                const bool positive = kind_ == ObjectiveKind::TrueClassLikelihood || labels_(j) > 0.5;
                coef(j) = (uniform ? w0 : weights(j)) * (positive ? -1.0 / fj : 1.0 / (1.0 - fj));
            }
            return values_.transpose() * coef;
        }
        case ObjectiveKind::SequenceLikelihood: {
            Eigen::VectorXd g = Eigen::VectorXd::Zero(sources_);
            const Eigen::RowVectorXd logLambda = lambda.array().log().matrix().transpose();
            for (Index j = 0; j < examples_; ++j) {
                const double lse = logSumExp(values_.row(j) + logLambda);
                g -= (uniform ? w0 : weights(j)) * inverseLength_(j) *
                     (values_.row(j).array() - lse).exp().matrix().transpose();
            }
            return g;
        }
        case ObjectiveKind::TokenLikelihood: {
            Eigen::VectorXd coef = values_ * lambda;  // one entry per token
            for (Index j = 0; j < examples_; ++j) {
                const double wj = (uniform ? w0 : weights(j)) * inverseLength_(j);
                for (Index t = offsets_[j]; t < offsets_[j + 1]; ++t) coef(t) = -wj / clampProbability(coef(t), kind_);
            }
            return values_.transpose() * coef;
        }
    }
    return Eigen::VectorXd::Zero(sources_);
}

// ---------------------------------------------------------------------------------------------
// Validating factories

Result<MixtureObjective> makeBinaryObjective(const Eigen::MatrixXd& probabilities, const std::vector<int>& labels) {
    if (auto e = checkShape("proxy probabilities", probabilities.rows(), probabilities.cols())) return *e;
    if (auto e = checkProbabilities("proxy probabilities", probabilities)) return *e;
    if (auto e = checkLabels(labels, probabilities.rows(), 2)) return *e;
    MixtureObjective o;
    o.kind_ = ObjectiveKind::BinaryCrossEntropy;
    o.examples_ = probabilities.rows();
    o.sources_ = probabilities.cols();
    o.values_ = probabilities;
    o.labels_.resize(o.examples_);
    for (Index j = 0; j < o.examples_; ++j) o.labels_(j) = labels[static_cast<std::size_t>(j)];
    return o;
}

Result<MixtureObjective> makeTrueClassObjective(const Eigen::MatrixXd& q) {
    if (auto e = checkShape("true-class probabilities", q.rows(), q.cols())) return *e;
    if (auto e = checkProbabilities("true-class probabilities", q)) return *e;
    MixtureObjective o;
    o.kind_ = ObjectiveKind::TrueClassLikelihood;
    o.examples_ = q.rows();
    o.sources_ = q.cols();
    o.values_ = q;
    return o;
}

Result<Eigen::MatrixXd> trueClassProbabilities(const std::vector<Eigen::MatrixXd>& sourceProbabilities,
                                               const std::vector<int>& labels) {
    const Index k = static_cast<Index>(sourceProbabilities.size());
    if (k < 2)
        return Error{"source probabilities: " + std::to_string(k) + " source(s): expected k >= 2 public sources"};
    const Index n = sourceProbabilities[0].rows(), classes = sourceProbabilities[0].cols();
    if (n < 1) return Error{"source probabilities: no rows: expected at least one example (n >= 1)"};
    if (classes < 2)
        return Error{"source probabilities: " + std::to_string(classes) + " class column(s): expected >= 2"};
    for (Index i = 0; i < k; ++i) {
        const auto& m = sourceProbabilities[static_cast<std::size_t>(i)];
        const std::string field = "source probabilities of source " + std::to_string(i);
        if (m.rows() != n || m.cols() != classes)
            return Error{field + ": shape " + std::to_string(m.rows()) + " x " + std::to_string(m.cols()) +
                         ": expected " + std::to_string(n) + " x " + std::to_string(classes) + " like source 0"};
        for (Index j = 0; j < n; ++j) {
            for (Index c = 0; c < classes; ++c)
                if (!(m(j, c) >= 0.0 && m(j, c) <= 1.0))
                    return Error{field + ": entry (example " + std::to_string(j) + ", class " + std::to_string(c) +
                                 ") = " + formatNumber(m(j, c)) + " is out of range: expected a probability in [0, 1]"};
            const double s = m.row(j).sum();
            if (std::abs(s - 1.0) > 1e-3)
                return Error{field + ": row of example " + std::to_string(j) + " sums to " + formatNumber(s) +
                             ": expected class probabilities summing to 1 (softmax outputs, not logits)"};
        }
    }
    if (auto e = checkLabels(labels, n, static_cast<int>(classes))) return *e;
    Eigen::MatrixXd q(n, k);
    for (Index i = 0; i < k; ++i)
        for (Index j = 0; j < n; ++j)
            q(j, i) = sourceProbabilities[static_cast<std::size_t>(i)](j, labels[static_cast<std::size_t>(j)]);
    return q;
}

Result<Eigen::MatrixXd> binaryTrueClassProbabilities(const Eigen::MatrixXd& probabilities,
                                                     const std::vector<int>& labels) {
    if (auto e = checkShape("proxy probabilities", probabilities.rows(), probabilities.cols())) return *e;
    if (auto e = checkProbabilities("proxy probabilities", probabilities)) return *e;
    if (auto e = checkLabels(labels, probabilities.rows(), 2)) return *e;
    Eigen::MatrixXd q = probabilities;
    for (Index j = 0; j < q.rows(); ++j)
        if (labels[static_cast<std::size_t>(j)] == 0) q.row(j) = (1.0 - probabilities.row(j).array()).matrix();
    return q;
}

Result<MixtureObjective> makeSequenceObjective(const Eigen::MatrixXd& ll, const std::vector<long long>& tokenCounts) {
    if (auto e = checkShape("sequence log-likelihoods", ll.rows(), ll.cols())) return *e;
    for (Index j = 0; j < ll.rows(); ++j)
        for (Index i = 0; i < ll.cols(); ++i)
            if (!(std::isfinite(ll(j, i)) && ll(j, i) <= 0.0))
                return badEntry("sequence log-likelihoods", j, i, ll(j, i),
                                "a finite log-likelihood <= 0 (floor zero probabilities before exporting)");
    if (static_cast<Index>(tokenCounts.size()) != ll.rows())
        return Error{"token counts: " + std::to_string(tokenCounts.size()) + " counts for " +
                     std::to_string(ll.rows()) + " sequences: expected one count per row"};
    MixtureObjective o;
    o.kind_ = ObjectiveKind::SequenceLikelihood;
    o.examples_ = ll.rows();
    o.sources_ = ll.cols();
    o.values_ = ll;
    o.inverseLength_.resize(o.examples_);
    for (Index j = 0; j < o.examples_; ++j) {
        const long long len = tokenCounts[static_cast<std::size_t>(j)];
        if (len < 1)
            return Error{"token counts: count of sequence " + std::to_string(j) + " = " + std::to_string(len) +
                         " is out of range: expected >= 1 token"};
        o.inverseLength_(j) = 1.0 / static_cast<double>(len);
    }
    return o;
}

Result<MixtureObjective> makeTokenObjective(const Eigen::MatrixXd& tokens, const std::vector<Index>& offsets) {
    if (auto e = checkShape("token probabilities", tokens.rows(), tokens.cols())) return *e;
    if (auto e = checkProbabilities("token probabilities", tokens)) return *e;
    if (offsets.size() < 2 || offsets.front() != 0 || offsets.back() != tokens.rows())
        return Error{"sequence offsets: expected 0, ..., " + std::to_string(tokens.rows()) +
                     " (one more offset than sequences, first 0, last the number of token rows)"};
    MixtureObjective o;
    o.kind_ = ObjectiveKind::TokenLikelihood;
    o.examples_ = static_cast<Index>(offsets.size()) - 1;
    o.sources_ = tokens.cols();
    o.values_ = tokens;
    o.offsets_ = offsets;
    o.inverseLength_.resize(o.examples_);
    for (Index j = 0; j < o.examples_; ++j) {
        const Index len = offsets[static_cast<std::size_t>(j) + 1] - offsets[static_cast<std::size_t>(j)];
        if (len < 1)
            return Error{"sequence offsets: sequence " + std::to_string(j) + " has " + std::to_string(len) +
                         " tokens: expected strictly increasing offsets (every sequence has >= 1 token)"};
        o.inverseLength_(j) = 1.0 / static_cast<double>(len);
    }
    return o;
}

}  // namespace dpmix::mixmin
