#include "engine/training_audit/one_run_canaries.h"

#include "engine/core/seed_derivation.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

namespace dpmix::training_audit {
namespace {

constexpr std::uint64_t kDirectionStream = 0x6f6e6572756e64ULL;  // "onerund": the directions
constexpr std::uint64_t kLabelStream = 0x6f6e6572756e6cULL;      // "onerunl": the labels

Status checkCount(long long count) {
    if (count < 1) return Error{"canaries = " + std::to_string(count) + " is out of range: expected >= 1", "canaries"};
    return std::nullopt;
}

Result<double> meanImageNorm(const std::string& what, const train::ImageView& images, long long count) {
    if (auto e = train::checkImages(what, images)) return *e;
    const auto d = images.imageSize();
    double sum = 0.0;
    for (long long i = 0; i < count; ++i) {
        double s = 0.0;
        for (std::int64_t j = 0; j < d; ++j) {
            const double v = images.pixels[static_cast<std::size_t>(i * d + j)];
            s += v * v;
        }
        sum += std::sqrt(s);
    }
    const double norm = sum / static_cast<double>(count);
    if (!(norm > 0.0)) return Error{what + ": every image is blank (norm 0)"};
    return norm;
}

/// One fair-coin label per canary (portable: the top bit of mt19937_64, whose output C++ fixes).
std::vector<int> coinLabels(long long count, std::uint64_t seed) {
    std::mt19937_64 rng(seeds::derive(seed, kLabelStream, 0));
    std::vector<int> labels(static_cast<std::size_t>(count));
    for (int& y : labels) y = static_cast<int>(rng() >> 63);
    return labels;
}

TrainingCanary directionCanary(TrainingCanaryKind kind, const Eigen::VectorXd& unit, double norm, int label) {
    TrainingCanary c;
    c.kind = kind;
    c.label = label;
    c.pixels.resize(static_cast<std::size_t>(unit.size()));
    for (Eigen::Index j = 0; j < unit.size(); ++j)
        c.pixels[static_cast<std::size_t>(j)] = static_cast<float>(norm * unit(j));
    return c;
}

/// `columns` orthonormal columns of R^d: the Q of a QR of a seeded random ±1 matrix.
Eigen::MatrixXd randomOrthonormal(Eigen::Index d, Eigen::Index columns, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    Eigen::MatrixXd signs(d, columns);
    for (Eigen::Index c = 0; c < columns; ++c)
        for (Eigen::Index r = 0; r < d; ++r) signs(r, c) = (rng() >> 63) != 0 ? 1.0 : -1.0;
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(signs);
    return qr.householderQ() * Eigen::MatrixXd::Identity(d, columns);
}

}  // namespace

Result<std::vector<TrainingCanary>> largeNormCanaries(const train::ImageView& reference, long long count,
                                                      double normMultiple, std::uint64_t seed) {
    if (auto e = checkCount(count)) return *e;
    if (!(normMultiple > 0.0 && std::isfinite(normMultiple)))
        return Error{
            "norm multiple = " + std::to_string(normMultiple) + " is out of range: expected a finite value > 0",
            "norm-multiple"};
    const auto referenceNorm = meanImageNorm("reference images", reference, reference.count);
    if (!referenceNorm) return referenceNorm.error();
    const double norm = normMultiple * *referenceNorm;
    const auto d = static_cast<Eigen::Index>(reference.imageSize());
    const auto labels = coinLabels(count, seed);
    std::vector<TrainingCanary> out;
    out.reserve(static_cast<std::size_t>(count));
    for (long long block = 0; static_cast<long long>(out.size()) < count; ++block) {
        const auto columns =
            static_cast<Eigen::Index>(std::min<long long>(d, count - static_cast<long long>(out.size())));
        const Eigen::MatrixXd q = randomOrthonormal(d, columns, seeds::derive(seed, kDirectionStream, block));
        for (Eigen::Index c = 0; c < columns; ++c) {
            auto canary = directionCanary(TrainingCanaryKind::LargeNorm, q.col(c), norm, labels[out.size()]);
            canary.description = "random direction " + std::to_string(out.size()) + " (block " + std::to_string(block) +
                                 "), L2 norm " + std::to_string(norm) + ", label " + std::to_string(canary.label);
            out.push_back(std::move(canary));
        }
    }
    return out;
}

Result<std::vector<TrainingCanary>> flippedLabelCanaries(const train::ImageView& heldOut, std::span<const int> labels,
                                                         long long count) {
    if (auto e = checkCount(count)) return *e;
    if (auto e = train::checkImages("held-out images", heldOut)) return *e;
    if (heldOut.count < count || static_cast<long long>(labels.size()) < count)
        return Error{"canaries = " + std::to_string(count) + " flipped-label canaries need as many held-out images; " +
                         std::to_string(std::min<long long>(heldOut.count, static_cast<long long>(labels.size()))) +
                         " were given",
                     "canaries"};
    const auto d = static_cast<std::size_t>(heldOut.imageSize());
    std::vector<TrainingCanary> out;
    out.reserve(static_cast<std::size_t>(count));
    for (long long i = 0; i < count; ++i) {
        const auto y = labels[static_cast<std::size_t>(i)];
        if (y != 0 && y != 1) return Error{"held-out labels: " + std::to_string(y) + " is not a binary label (0 or 1)"};
        out.push_back(flippedLabelCanary(heldOut.pixels.subspan(static_cast<std::size_t>(i) * d, d), y));
    }
    return out;
}

Result<std::vector<TrainingCanary>> gradientAlignedCanaries(const train::ImageView& publicImages, long long count,
                                                            std::uint64_t seed, long long maxImages) {
    if (auto e = checkCount(count)) return *e;
    const auto d = static_cast<Eigen::Index>(publicImages.imageSize());
    if (count > d)
        return Error{"canaries = " + std::to_string(count) +
                         " gradient-aligned canaries need as many directions; the " + "images have " +
                         std::to_string(d) + " values",
                     "canaries"};
    const long long n = std::min<long long>(publicImages.count, std::max<long long>(1, maxImages));
    const auto norm = meanImageNorm("public images", publicImages, n);
    if (!norm) return norm.error();
    const Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> x(
        publicImages.pixels.data(), static_cast<Eigen::Index>(n), d);
    const Eigen::MatrixXd x64 = x.cast<double>();
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig((x64.transpose() * x64) / static_cast<double>(n));
    if (eig.info() != Eigen::Success)
        return Error{"public images: the eigen-decomposition of their second moment failed"};
    const auto labels = coinLabels(count, seed);
    std::vector<TrainingCanary> out;
    for (long long i = 0; i < count; ++i) {  // eigenvalues ascend: the least occupied first
        auto c = directionCanary(TrainingCanaryKind::GradientAligned, eig.eigenvectors().col(i), *norm,
                                 labels[static_cast<std::size_t>(i)]);
        c.description = "least-occupied direction " + std::to_string(i) + " (second-moment eigenvalue " +
                        std::to_string(eig.eigenvalues()(i)) + "), label " + std::to_string(c.label);
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace dpmix::training_audit
