// The panel's live ρ guidance: the balance point of the bound (n = k·log(1/δ)/ε² for uncalibrated
// constants), computed by hand here, the regime of the chosen ρ, and mixture learning's own
// budget under sequential composition.
#include "app/workbench/parameters/rho_guidance_text.h"

#include <QtTest>

#include <cmath>

using namespace dpmix::workbench;
using dpmix::widgets::CompositionMode;
using dpmix::widgets::RunParameters;

class TstRhoGuidanceText : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void statisticsLimitedWhenSplitAIsPastTheBalance() {
        // k = 14, ε = 2, δ = 1e-5: n = 14·ln(1e5)/4 = 40.29 → ρ = 40.29 / 10,000 = 0.0040.
        RunParameters p;
        p.sensitiveCount = 10000;
        p.epsilon = 2.0;
        p.delta = "1e-5";
        p.rho = 0.1;
        const QString html = rhoGuidanceHtml(p, 14);
        QVERIFY2(html.contains("Sufficient ρ for ε = 2 and k = 14:</b> ≈ 0.004 (split A of ≈ 40)"), qPrintable(html));
        QVERIFY(html.contains("At ρ = 0.10 (≈ 1,000) the split is <b>statistics-limited</b>"));
        QVERIFY(html.contains("Uncalibrated"));
    }

    void privacyLimitedBelowTheBalance() {
        // ε = 0.1: n = 14·ln(1e5)/0.01 = 16,118 of 100,000 → ρ ≈ 0.16; ρ = 0.1 gives 10,000 < 16,118.
        RunParameters p;
        p.sensitiveCount = 100000;
        p.epsilon = 0.1;
        p.rho = 0.1;
        const QString html = rhoGuidanceHtml(p, 14);
        QVERIFY2(html.contains("≈ 0.16 (split A of ≈ 16,118)"), qPrintable(html));
        QVERIFY(html.contains("<b>privacy-limited</b>: raise ε or ρ"));
    }

    void moreThanAllTheData() {
        RunParameters p;
        p.sensitiveCount = 1000;
        p.epsilon = 0.05;  // n = 14·ln(1e5)/0.0025 = 64,472 > 1,000
        const QString html = rhoGuidanceHtml(p, 14);
        QVERIFY2(html.contains("more than all the data (split A would need ≈ 64,472)"), qPrintable(html));
    }

    void sequentialCompositionUsesTheMixtureStagesHalf() {
        // ε = 2, δ = 1e-5 in sequence: the mixture stage gets (1, 5e-6): n = 14·ln(2e5) = 170.9.
        RunParameters p;
        p.sensitiveCount = 100000;
        p.composition = CompositionMode::Sequential;
        const QString html = rhoGuidanceHtml(p, 14);
        QVERIFY2(html.contains("ε = 1 and k = 14") && html.contains("split A of ≈ 171)"), qPrintable(html));
        QCOMPARE(std::llround(14.0 * std::log(2e5)), 171LL);
    }

    void nothingWhenItCannotBeComputed() {
        RunParameters p;
        QVERIFY(rhoGuidanceHtml(p, 1).isEmpty());  // one component: nothing to mix
        p.delta = "abc";
        QVERIFY(rhoGuidanceHtml(p, 14).isEmpty());
        p.delta = "1e-5";
        p.epsilon = 0.0;
        QVERIFY(rhoGuidanceHtml(p, 14).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TstRhoGuidanceText)
#include "tst_rho_guidance_text.moc"
