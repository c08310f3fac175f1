#pragma once
// The privacy calculator's computation, separate from any widget so it can run on
// a worker thread: parse the typed inputs, validate them with the engine's builders
// (engine/privacy/parameters.h), then call the accountant.
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
};

/// Pure function of the inputs; thread-safe.
CalculatorResult evaluateCalculator(const widgets::CalculatorInputs& inputs);

/// Shows a result in the panel (GUI thread).
void applyCalculatorResult(widgets::PrivacyCalculatorPanel& panel, const CalculatorResult& result);

}  // namespace dpmix::workbench
