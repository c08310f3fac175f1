#include "app/workbench/parameters/rho_guidance_text.h"

#include "app/workbench/parameters/number_parsing.h"
#include "app/workbench/parameters/privacy_plan.h"
#include "engine/experiments/rho_guidance.h"

#include <QLocale>

#include <cmath>

namespace dpmix::workbench {

namespace {
QString count(double v) { return QLocale(QLocale::English).toString(std::llround(v)); }
// Two significant digits, never scientific for the shares a panel shows.
QString share(double v) { return v >= 0.01 ? QString::number(v, 'f', 2) : QString::number(v, 'g', 2); }
}  // namespace

QString rhoGuidanceHtml(const widgets::RunParameters& p, long long components) {
    if (components < 2 || !(p.rho > 0.0 && p.rho < 1.0) || p.sensitiveCount < 2) return {};
    const auto delta = parseDouble("delta", p.delta, "a probability");
    if (!delta) return {};
    // Mixture learning's own budget: all of (ε, δ) in parallel, half of each in sequence.
    const StageBudget budget = stageBudget(p.epsilon, *delta, p.composition);
    const auto balance = experiments::privacyBalance(p.sensitiveCount, budget.epsilon, budget.delta, components);
    if (!balance) return {};
    const double splitA = static_cast<double>(splitSizes(p.sensitiveCount, p.rho).a);
    QString html = QStringLiteral("<b>Sufficient ρ for ε = %1 and k = %2:</b> ")
                       .arg(QString::number(budget.epsilon, 'g', 4))
                       .arg(components);
    if (balance->rho >= 1.0) {
        html += QStringLiteral(
                    "more than all the data (split A would need ≈ %1). The mixture stays "
                    "<b>privacy-limited</b> at any ρ: raise ε, or weigh uniform weights.")
                    .arg(count(balance->examples));
    } else {
        html += QStringLiteral("≈ %1 (split A of ≈ %2) before the privacy noise stops dominating λ's error. ")
                    .arg(share(balance->rho), count(balance->examples));
        html += splitA >= balance->examples
                    ? QStringLiteral(
                          "At ρ = %1 (≈ %2) the split is <b>statistics-limited</b>: a larger ρ "
                          "helps λ more than a larger ε.")
                          .arg(share(p.rho), count(splitA))
                    : QStringLiteral("At ρ = %1 (≈ %2) it is <b>privacy-limited</b>: raise ε or ρ.")
                          .arg(share(p.rho), count(splitA));
    }
    html += QStringLiteral(" <i>Uncalibrated bound (c₁ = c₂ = 1): a scale, not a promise.</i>");
    return html;
}

}  // namespace dpmix::workbench
