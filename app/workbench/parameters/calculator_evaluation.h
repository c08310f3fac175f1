#pragma once
// The privacy calculator's computation, separate from any widget so it can run on
// a worker thread: parse the typed inputs, validate them with the engine's builders
// (engine/privacy/parameters.h), then call both accountants (RDP and PRV, side by side).
#include "widgets/privacy_calculator_panel.h"

#include <QString>

namespace dpmix::workbench {

struct CalculatorResult {
    // ε from σ
    bool epsilonOk = false;
    double epsilon = 0.0;
    double epsilonOrder = 0.0;
    QString epsilonError;
    // σ from a target ε
    bool sigmaOk = false;
    double sigma = 0.0;
    double sigmaEpsilon = 0.0;
    double sigmaOrder = 0.0;
    QString sigmaError;
    // The same two directions by the PRV accountant (certified ε; the smallest certified σ)
    bool prvEpsilonOk = false;
    double prvEpsilon = 0.0, prvEpsilonLower = 0.0, prvEpsilonUpper = 0.0;
    QString prvEpsilonError;
    bool prvSigmaOk = false;
    double prvSigma = 0.0, prvSigmaEpsilon = 0.0;
    QString prvSigmaError;
};

/// Pure function of the inputs; thread-safe.
CalculatorResult evaluateCalculator(const widgets::CalculatorInputs& inputs);

/// Shows a result in the panel (GUI thread).
void applyCalculatorResult(widgets::PrivacyCalculatorPanel& panel, const CalculatorResult& result);

}  // namespace dpmix::workbench
