#include "engine/training_audit/training_canary.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace dpmix::training_audit {
namespace {

double meanNorm(const train::ImageView& images, long long count) {
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
    return sum / static_cast<double>(count);
}

/// The images' mean L2 norm, or an Error for invalid or all-blank images.
Result<double> checkedMeanNorm(const std::string& what, const train::ImageView& images) {
    if (auto e = train::checkImages(what, images)) return *e;
    const double norm = meanNorm(images, images.count);
    if (!(norm > 0.0)) return Error{what + ": every image is blank (norm 0)"};
    return norm;
}

}  // namespace

const char* toString(TrainingCanaryKind kind) {
    switch (kind) {
        case TrainingCanaryKind::FlippedLabel: return "flipped-label";
        case TrainingCanaryKind::LargeNorm: return "large-norm";
        case TrainingCanaryKind::GradientAligned: return "gradient-aligned";
    }
    return "?";
}

bool parseTrainingCanaryKind(const std::string& text, TrainingCanaryKind& out) {
    for (auto k :
         {TrainingCanaryKind::FlippedLabel, TrainingCanaryKind::LargeNorm, TrainingCanaryKind::GradientAligned})
        if (text == toString(k)) {
            out = k;
            return true;
        }
    return false;
}

TrainingCanary flippedLabelCanary(std::span<const float> image, int trueLabel) {
    TrainingCanary c;
    c.kind = TrainingCanaryKind::FlippedLabel;
    c.pixels.assign(image.begin(), image.end());
    c.label = trueLabel == 1 ? 0 : 1;
    c.description = "a held-out image with its label flipped to " + std::to_string(c.label);
    return c;
}

Result<TrainingCanary> largeNormCanary(const train::ImageView& reference, double normMultiple, int label) {
    const auto referenceNorm = checkedMeanNorm("reference images", reference);
    if (!referenceNorm) return referenceNorm.error();
    if (!(normMultiple > 0.0 && std::isfinite(normMultiple)))
        return Error{"norm multiple = " + std::to_string(normMultiple) +
                     " is out of range: expected a finite value > 0"};
    TrainingCanary c;
    c.kind = TrainingCanaryKind::LargeNorm;
    c.label = label;
    const double norm = normMultiple * *referenceNorm;
    const auto d = reference.imageSize();
    c.pixels.resize(static_cast<std::size_t>(d));
    const double value = norm / std::sqrt(static_cast<double>(d));  // every pixel ±value: the norm is exact
    for (int ch = 0; ch < reference.channels; ++ch)
        for (int y = 0; y < reference.height; ++y)
            for (int x = 0; x < reference.width; ++x)
                c.pixels[static_cast<std::size_t>((ch * reference.height + y) * reference.width + x)] =
                    static_cast<float>((x + y) % 2 == 0 ? value : -value);
    std::ostringstream s;
    s << "a ±1 checkerboard of L2 norm " << norm << " (" << normMultiple << "× the mean image norm), label " << label;
    c.description = s.str();
    return c;
}

Result<TrainingCanary> gradientAlignedCanary(const train::ImageView& publicImages, int label, long long maxImages) {
    if (auto checked = checkedMeanNorm("public images", publicImages); !checked) return checked.error();
    const long long n = std::min<long long>(publicImages.count, std::max<long long>(1, maxImages));
    const auto d = static_cast<Eigen::Index>(publicImages.imageSize());
    // The first n images: which public images are used is not a private choice.
    const Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> x(
        publicImages.pixels.data(), static_cast<Eigen::Index>(n), d);
    const Eigen::MatrixXd x64 = x.cast<double>();
    const Eigen::MatrixXd second = (x64.transpose() * x64) / static_cast<double>(n);
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(second);
    if (eig.info() != Eigen::Success)
        return Error{"public images: the eigen-decomposition of their second moment failed"};
    const Eigen::VectorXd direction = eig.eigenvectors().col(0);  // eigenvalues ascend: the least occupied
    const double norm = meanNorm(publicImages, n);
    TrainingCanary c;
    c.kind = TrainingCanaryKind::GradientAligned;
    c.label = label;
    c.pixels.resize(static_cast<std::size_t>(d));
    for (Eigen::Index j = 0; j < d; ++j)
        c.pixels[static_cast<std::size_t>(j)] = static_cast<float>(norm * direction(j));
    std::ostringstream s;
    s << "the least-occupied direction of " << n << " public images (second-moment eigenvalue " << eig.eigenvalues()(0)
      << "), L2 norm " << norm << ", label " << label;
    c.description = s.str();
    return c;
}

}  // namespace dpmix::training_audit
