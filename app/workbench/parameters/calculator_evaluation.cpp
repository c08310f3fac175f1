#include "app/workbench/parameters/calculator_evaluation.h"

#include "app/workbench/parameters/number_parsing.h"
#include "engine/privacy/gaussian_accountant.h"
#include "engine/privacy/parameters.h"
#include "engine/privacy/prv_accountant.h"

namespace dpmix::workbench {
namespace {

struct ParsedShared {
    double q = 0.0;
    long long steps = 0;
    double delta = 0.0;
};

// Parse failures are reported in the order the fields appear on screen.
Result<ParsedShared> parseShared(const widgets::CalculatorInputs& in) {
    auto q = parseDouble("q", in.q, "a sampling rate in (0, 1]");
    if (!q) return q.error();
    auto steps = parseInteger("steps", in.steps, "a whole number of steps >= 1");
    if (!steps) return steps.error();
    auto delta = parseDouble("delta", in.delta, "a probability in (0, 1)");
    if (!delta) return delta.error();
    return ParsedShared{*q, *steps, *delta};
}

QString qs(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

CalculatorResult evaluateCalculator(const widgets::CalculatorInputs& in) {
    CalculatorResult out;
    const auto shared = parseShared(in);

    // ε from σ
    if (!shared) {
        out.epsilonError = qs(shared.error().message);
    } else if (auto sigma = parseDouble("sigma", in.sigma, "a finite number > 0"); !sigma) {
        out.epsilonError = qs(sigma.error().message);
    } else {
        const auto query = privacy::GaussianEpsilonQueryBuilder()
                               .q(shared->q)
                               .sigma(*sigma)
                               .steps(shared->steps)
                               .delta(shared->delta)
                               .build();
        if (!query) {
            out.epsilonError = qs(query.error().message);
        } else {
            const auto e = privacy::gaussianEpsilon(query->mechanism, query->delta);
            out.epsilonOk = true;
            out.epsilon = e.epsilon;
            out.epsilonOrder = e.order;
            if (const auto c = privacy::prvCertifiedEpsilon({query->mechanism}, query->delta)) {
                out.prvEpsilonOk = true;
                out.prvEpsilon = c->epsilon;
                out.prvEpsilonLower = c->prv.lower;
                out.prvEpsilonUpper = c->prv.upper;
            } else {
                out.prvEpsilonError = qs(c.error().message);
            }
        }
    }

    // σ for a target ε
    if (!shared) {
        out.sigmaError = qs(shared.error().message);
    } else if (auto target = parseDouble("epsilon", in.targetEpsilon, "a finite number > 0"); !target) {
        out.sigmaError = qs(target.error().message);
    } else {
        const auto query = privacy::SigmaQueryBuilder()
                               .epsilon(*target)
                               .delta(shared->delta)
                               .q(shared->q)
                               .steps(shared->steps)
                               .build();
        if (!query) {
            out.sigmaError = qs(query.error().message);
        } else {
            const auto c = privacy::calibrateGaussianSigma(query->epsilon, query->delta, query->q, query->steps);
            if (c) {
                out.sigmaOk = true;
                out.sigma = c->sigma;
                out.sigmaEpsilon = c->epsilon;
                out.sigmaOrder = c->order;
            } else {
                out.sigmaError = qs(c.error().message);
            }
            if (const auto p =
                    privacy::calibrateGaussianSigmaPrv(query->epsilon, query->delta, query->q, query->steps)) {
                out.prvSigmaOk = true;
                out.prvSigma = p->sigma;
                out.prvSigmaEpsilon = p->certificate.epsilon;
            } else {
                out.prvSigmaError = qs(p.error().message);
            }
        }
    }
    if (!out.epsilonOk) out.prvEpsilonError = out.epsilonError;
    if (!out.sigmaOk && out.prvSigmaError.isEmpty()) out.prvSigmaError = out.sigmaError;
    return out;
}

void applyCalculatorResult(widgets::PrivacyCalculatorPanel& panel, const CalculatorResult& r) {
    if (r.epsilonOk)
        panel.showEpsilon(r.epsilon, r.epsilonOrder);
    else
        panel.showEpsilonError(r.epsilonError);
    if (r.sigmaOk)
        panel.showSigma(r.sigma, r.sigmaEpsilon, r.sigmaOrder);
    else
        panel.showSigmaError(r.sigmaError);
    if (r.prvEpsilonOk)
        panel.showPrvEpsilon(r.prvEpsilon, r.prvEpsilonLower, r.prvEpsilonUpper);
    else
        panel.showPrvEpsilonError(r.prvEpsilonError);
    if (r.prvSigmaOk)
        panel.showPrvSigma(r.prvSigma, r.prvSigmaEpsilon, r.sigmaOk ? r.sigma : 0.0);
    else
        panel.showPrvSigmaError(r.prvSigmaError);
}

}  // namespace dpmix::workbench
