#include "app/workbench/parameters/calculator_evaluation.h"

#include "app/workbench/parameters/number_parsing.h"
#include "engine/privacy/gaussian_accountant.h"
#include "engine/privacy/parameters.h"


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
                               .q(shared->q).sigma(*sigma).steps(shared->steps).delta(shared->delta).build();
        if (!query) {
            out.epsilonError = qs(query.error().message);
        } else {
            const auto e = privacy::gaussianEpsilon(query->mechanism, query->delta);
            out.epsilonOk = true;
            out.epsilon = e.epsilon;
            out.epsilonOrder = e.order;
        }
    }

    // σ for a target ε
    if (!shared) {
        out.sigmaError = qs(shared.error().message);
    } else if (auto target = parseDouble("epsilon", in.targetEpsilon, "a finite number > 0"); !target) {
        out.sigmaError = qs(target.error().message);
    } else {
        const auto query = privacy::SigmaQueryBuilder()
                               .epsilon(*target).delta(shared->delta).q(shared->q).steps(shared->steps).build();
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
        }
    }
    return out;
}

void applyCalculatorResult(widgets::PrivacyCalculatorPanel& panel, const CalculatorResult& r) {
    if (r.epsilonOk) panel.showEpsilon(r.epsilon, r.epsilonOrder);
    else panel.showEpsilonError(r.epsilonError);
    if (r.sigmaOk) panel.showSigma(r.sigma, r.sigmaEpsilon, r.sigmaOrder);
    else panel.showSigmaError(r.sigmaError);
}

}  // namespace dpmix::workbench
