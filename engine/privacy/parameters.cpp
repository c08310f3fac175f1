#include "engine/privacy/parameters.h"

#include <charconv>
#include <cmath>

namespace dpmix::privacy {
namespace {

Error outOfRange(const std::string& field, const std::string& value, const std::string& expected) {
    return Error{field + " = " + value + " is out of range: expected " + expected};
}

Error missing(const std::string& field) { return Error{"missing " + field + ": it is required"}; }

}  // namespace

std::string formatNumber(double value) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    return ec == std::errc() ? std::string(buf, end) : std::to_string(value);
}

Status checkSamplingRate(const std::string& field, double q) {
    if (!(q > 0.0 && q <= 1.0)) return outOfRange(field, formatNumber(q), "a sampling rate in (0, 1]");
    return std::nullopt;
}

Status checkDelta(const std::string& field, double delta) {
    if (!(delta > 0.0 && delta < 1.0)) return outOfRange(field, formatNumber(delta), "a probability in (0, 1)");
    return std::nullopt;
}

std::string deltaWarning(double delta, long long units, const std::string& unitName) {
    if (units < 1 || !(delta >= 1.0 / (10.0 * static_cast<double>(units)))) return {};
    return "delta = " + formatNumber(delta) +
           " is not well below 1/n = " + formatNumber(1.0 / static_cast<double>(units)) +
           " for n = " + std::to_string(units) + " " + unitName +
           ": a mechanism with delta >= 1/n may reveal one of them outright; choose delta < 1/(10 n) = " +
           formatNumber(1.0 / (10.0 * static_cast<double>(units)));
}

Status checkPositive(const std::string& field, double value) {
    if (!(value > 0.0) || !std::isfinite(value)) return outOfRange(field, formatNumber(value), "a finite number > 0");
    return std::nullopt;
}

Status checkSteps(const std::string& field, long long steps) {
    if (steps < 1) return outOfRange(field, std::to_string(steps), "a whole number of steps >= 1");
    return std::nullopt;
}

Status checkCount(const std::string& field, long long value) {
    if (value < 0) return outOfRange(field, std::to_string(value), "a count >= 0");
    return std::nullopt;
}

// First error wins; fields are checked in the order a user reads the command.
#define DPMIX_REQUIRE(opt, field) \
    if (!(opt)) return missing(field);
#define DPMIX_CHECK(expr) \
    if (auto err = (expr)) return *err;

Result<GaussianEpsilonQuery> GaussianEpsilonQueryBuilder::build() const {
    DPMIX_REQUIRE(q_, "q");
    DPMIX_REQUIRE(sigma_, "sigma");
    DPMIX_REQUIRE(steps_, "steps");
    DPMIX_REQUIRE(delta_, "delta");
    DPMIX_CHECK(checkSamplingRate("q", *q_));
    DPMIX_CHECK(checkPositive("sigma", *sigma_));
    DPMIX_CHECK(checkSteps("steps", *steps_));
    DPMIX_CHECK(checkDelta("delta", *delta_));
    return GaussianEpsilonQuery{{*q_, *sigma_, *steps_}, *delta_};
}

Result<SigmaQuery> SigmaQueryBuilder::build() const {
    DPMIX_REQUIRE(epsilon_, "epsilon");
    DPMIX_REQUIRE(delta_, "delta");
    DPMIX_REQUIRE(q_, "q");
    DPMIX_REQUIRE(steps_, "steps");
    DPMIX_CHECK(checkPositive("epsilon", *epsilon_));
    DPMIX_CHECK(checkDelta("delta", *delta_));
    DPMIX_CHECK(checkSamplingRate("q", *q_));
    DPMIX_CHECK(checkSteps("steps", *steps_));
    return SigmaQuery{*epsilon_, *delta_, *q_, *steps_};
}

Result<DirichletRQuery> DirichletRQueryBuilder::build() const {
    DPMIX_REQUIRE(epsilon_, "epsilon");
    DPMIX_REQUIRE(delta_, "delta");
    DPMIX_REQUIRE(alpha_, "alpha");
    DPMIX_REQUIRE(q_, "q");
    DPMIX_REQUIRE(steps_, "steps");
    DPMIX_CHECK(checkPositive("epsilon", *epsilon_));
    DPMIX_CHECK(checkDelta("delta", *delta_));
    DPMIX_CHECK(checkPositive("alpha", *alpha_));
    DPMIX_CHECK(checkSamplingRate("q", *q_));
    DPMIX_CHECK(checkSteps("steps", *steps_));
    return DirichletRQuery{*epsilon_, *delta_, *alpha_, *q_, *steps_};
}

Result<DirichletMechanism> DirichletMechanismBuilder::build() const {
    DPMIX_REQUIRE(alpha_, "alpha");
    DPMIX_REQUIRE(r_, "r");
    DPMIX_REQUIRE(q_, "q");
    DPMIX_REQUIRE(steps_, "steps");
    DPMIX_CHECK(checkPositive("alpha", *alpha_));
    DPMIX_CHECK(checkPositive("r", *r_));
    if (!(*r_ < *alpha_))
        return outOfRange("r", formatNumber(*r_), "a scale in (0, alpha) with alpha = " + formatNumber(*alpha_));
    DPMIX_CHECK(checkSamplingRate("q", *q_));
    DPMIX_CHECK(checkSteps("steps", *steps_));
    return DirichletMechanism{*alpha_, *r_, *q_, *steps_};
}

Result<AuditBoundQuery> AuditBoundQueryBuilder::build() const {
    DPMIX_REQUIRE(fp_, "fp");
    DPMIX_REQUIRE(fn_, "fn");
    DPMIX_REQUIRE(negatives_, "negatives");
    DPMIX_REQUIRE(positives_, "positives");
    DPMIX_REQUIRE(delta_, "delta");
    DPMIX_CHECK(checkCount("fp", *fp_));
    DPMIX_CHECK(checkCount("fn", *fn_));
    if (*negatives_ < 1) return outOfRange("negatives", std::to_string(*negatives_), "a number of runs >= 1");
    if (*positives_ < 1) return outOfRange("positives", std::to_string(*positives_), "a number of runs >= 1");
    if (*fp_ > *negatives_)
        return outOfRange("fp", std::to_string(*fp_), "at most negatives = " + std::to_string(*negatives_));
    if (*fn_ > *positives_)
        return outOfRange("fn", std::to_string(*fn_), "at most positives = " + std::to_string(*positives_));
    DPMIX_CHECK(checkDelta("delta", *delta_));
    if (!(confidence_ > 0.0 && confidence_ < 1.0))
        return outOfRange("confidence", formatNumber(confidence_), "a level in (0, 1), e.g. 0.95");
    return AuditBoundQuery{{*fp_, *fn_, *negatives_, *positives_}, *delta_, confidence_};
}

#undef DPMIX_REQUIRE
#undef DPMIX_CHECK

}  // namespace dpmix::privacy
