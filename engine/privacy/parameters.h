#pragma once
// Validating builders for every DP parameter set a user can type. They never assert: a bad
// value comes back as an Error naming the field, the value and the allowed range, in words a
// user can act on ("q = 1.5 is out of range: expected a sampling rate in (0, 1]").
// Field names are those of the CLI flags and CSV columns (q, sigma, steps, delta, ...).
#include "engine/core/builder_setter.h"
#include "engine/core/result.h"
#include "engine/privacy/audit_bound.h"
#include "engine/privacy/dirichlet_accountant.h"
#include "engine/privacy/gaussian_accountant.h"

#include <optional>
#include <string>

namespace dpmix::privacy {

/// Per-field checks, reusable by other builders (mixture learning, fine-tuning).
Status checkSamplingRate(const std::string& field, double q);  // (0, 1]
Status checkDelta(const std::string& field, double delta);     // (0, 1)
/// A warning (not an error) when δ is not well below 1/units: (ε, δ)-DP with δ ≥ 1/n allows
/// releasing one unit's data outright; dpmix warns from δ ≥ 1/(10·n). `unitName` is "examples",
/// "users", "patients", ...; empty when δ is small enough.
std::string deltaWarning(double delta, long long units, const std::string& unitName);
Status checkPositive(const std::string& field, double value);  // > 0, finite
Status checkSteps(const std::string& field, long long steps);  // >= 1
Status checkCount(const std::string& field, long long value);  // >= 0

/// Formats a double the way messages show it (shortest round-trip form).
std::string formatNumber(double value);

struct GaussianEpsilonQuery {
    GaussianMechanism mechanism;
    double delta;
};

class GaussianEpsilonQueryBuilder {
public:
    GaussianEpsilonQueryBuilder& q(double v) { return core::setField(*this, q_, v); }
    GaussianEpsilonQueryBuilder& sigma(double v) { return core::setField(*this, sigma_, v); }
    GaussianEpsilonQueryBuilder& steps(long long v) { return core::setField(*this, steps_, v); }
    GaussianEpsilonQueryBuilder& delta(double v) { return core::setField(*this, delta_, v); }
    Result<GaussianEpsilonQuery> build() const;

private:
    std::optional<double> q_, sigma_, delta_;
    std::optional<long long> steps_;
};

struct SigmaQuery {
    double epsilon;
    double delta;
    double q;
    long long steps;
};

class SigmaQueryBuilder {
public:
    SigmaQueryBuilder& epsilon(double v) { return core::setField(*this, epsilon_, v); }
    SigmaQueryBuilder& delta(double v) { return core::setField(*this, delta_, v); }
    SigmaQueryBuilder& q(double v) { return core::setField(*this, q_, v); }
    SigmaQueryBuilder& steps(long long v) { return core::setField(*this, steps_, v); }
    Result<SigmaQuery> build() const;

private:
    std::optional<double> epsilon_, delta_, q_;
    std::optional<long long> steps_;
};

struct DirichletRQuery {
    double epsilon;
    double delta;
    double alpha;
    double q;
    long long steps;
};

class DirichletRQueryBuilder {
public:
    DirichletRQueryBuilder& epsilon(double v) { return core::setField(*this, epsilon_, v); }
    DirichletRQueryBuilder& delta(double v) { return core::setField(*this, delta_, v); }
    DirichletRQueryBuilder& alpha(double v) { return core::setField(*this, alpha_, v); }
    DirichletRQueryBuilder& q(double v) { return core::setField(*this, q_, v); }
    DirichletRQueryBuilder& steps(long long v) { return core::setField(*this, steps_, v); }
    Result<DirichletRQuery> build() const;

private:
    std::optional<double> epsilon_, delta_, alpha_, q_;
    std::optional<long long> steps_;
};

/// A Dirichlet mechanism with a given scale r (for ledger entries and ε queries).
class DirichletMechanismBuilder {
public:
    DirichletMechanismBuilder& alpha(double v) { return core::setField(*this, alpha_, v); }
    DirichletMechanismBuilder& r(double v) { return core::setField(*this, r_, v); }
    DirichletMechanismBuilder& q(double v) { return core::setField(*this, q_, v); }
    DirichletMechanismBuilder& steps(long long v) { return core::setField(*this, steps_, v); }
    Result<DirichletMechanism> build() const;

private:
    std::optional<double> alpha_, r_, q_;
    std::optional<long long> steps_;
};

struct AuditBoundQuery {
    AuditCounts counts;
    double delta;
    double confidence;
};

class AuditBoundQueryBuilder {
public:
    AuditBoundQueryBuilder& fp(long long v) { return core::setField(*this, fp_, v); }
    AuditBoundQueryBuilder& fn(long long v) { return core::setField(*this, fn_, v); }
    AuditBoundQueryBuilder& negatives(long long v) { return core::setField(*this, negatives_, v); }
    AuditBoundQueryBuilder& positives(long long v) { return core::setField(*this, positives_, v); }
    AuditBoundQueryBuilder& delta(double v) { return core::setField(*this, delta_, v); }
    AuditBoundQueryBuilder& confidence(double v) { return core::setField(*this, confidence_, v); }
    Result<AuditBoundQuery> build() const;

private:
    std::optional<long long> fp_, fn_, negatives_, positives_;
    std::optional<double> delta_;
    double confidence_ = 0.95;
};

}  // namespace dpmix::privacy
