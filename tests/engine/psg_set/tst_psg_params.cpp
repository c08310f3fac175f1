// PSG's parameters: the published loop schedule, validation that names field and value, and the
// ledger entry — K = iterations × outer × batch_loop steps at q = B/N, σ from the accountant.
#include "engine/privacy/gaussian_rdp.h"
#include "engine/privacy/rdp_conversion.h"
#include "engine/privacy/rdp_orders.h"
#include "engine/psg_set/psg_params.h"
#include "tests/support/unit_test.h"

using namespace dpmix;
using namespace dpmix::psg;

class TestPsgParams : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void loopScheduleIsThePublishedOne() {
        const std::vector<std::pair<int, PsgLoops>> table{{1, {1, 1}}, {10, {10, 50}}, {20, {20, 25}}, {50, {50, 10}}};
        for (const auto& [spc, loops] : table) {
            auto l = loopsForImagesPerClass(spc);
            QVERIFY(l);
            QCOMPARE(l->outer, loops.outer);
            QCOMPARE(l->inner, loops.inner);
        }
        for (int bad : {0, 2, 5, 11, 100, -1}) {
            auto l = loopsForImagesPerClass(bad);
            QVERIFY(!l);
            QVERIFY2(l.error().message.find(std::to_string(bad)) != std::string::npos, l.error().message.c_str());
            QVERIFY(l.error().message.find("1, 10, 20 or 50") != std::string::npos);
        }
    }

    void builderRefusesBadValuesNamingTheField() {
        struct Case {
            PsgParamsBuilder builder;
            const char* field;
        };
        const std::vector<Case> cases{
            {PsgParamsBuilder().imagesPerClass(7), "images per class = 7"},
            {PsgParamsBuilder().epsilon(0), "epsilon = 0"},
            {PsgParamsBuilder().epsilon(-1), "epsilon = -1"},
            {PsgParamsBuilder().delta(1), "delta = 1"},
            {PsgParamsBuilder().iterations(0), "iterations = 0"},
            {PsgParamsBuilder().clipNorm(0), "clip = 0"},
            {PsgParamsBuilder().expectedBatchSize(0), "batch = 0"},
            {PsgParamsBuilder().imageMomentum(1), "momentum_image = 1"},
            {PsgParamsBuilder().pixelNormalisation(0.5, 0), "pixel_std = 0"},
            {PsgParamsBuilder().sigma(-2), "sigma = -2"},
        };
        for (const auto& c : cases) {
            auto p = c.builder.build();
            QVERIFY2(!p, c.field);
            QVERIFY2(p.error().message.find(c.field) != std::string::npos, p.error().message.c_str());
        }
        QVERIFY(PsgParamsBuilder().build());
    }

    void compositionsCountEveryMatchingStep() {
        auto p = PsgParamsBuilder().imagesPerClass(10).iterations(7).batchLoop(3).build();
        QVERIFY(p);
        QCOMPARE(p->compositions(), 7LL * 10 * 3);
        p = PsgParamsBuilder().imagesPerClass(1).iterations(1000).build();
        QCOMPARE(p->compositions(), 1000LL * 1 * 10);
    }

    void plannedEntryHasTheCompositionsAndTheCalibratedSigma() {
        auto p = PsgParamsBuilder().imagesPerClass(10).iterations(5).epsilon(10).delta(1e-5).clipNorm(0.1).build();
        QVERIFY(p);
        auto e = plannedPsgEntry(*p, 6000);
        QVERIFY2(e, e ? "" : e.error().message.c_str());
        QCOMPARE(e->steps, 500LL);
        DPMIX_COMPARE_NEAR(e->q, 256.0 / 6000.0, 1e-15);
        QCOMPARE(e->clipNorm, 0.1);
        QCOMPARE(e->stage, std::string("psg"));
        // Independently: the RDP of 500 subsampled Gaussian steps at this σ gives ε <= 10, and
        // 1% less noise gives more than 10 (σ is the smallest that meets the target).
        auto epsAt = [&](double sigma) {
            std::vector<double> rdp;
            for (double a : privacy::defaultRdpOrders())
                rdp.push_back(500 * privacy::subsampledGaussianRdp(e->q, sigma, a));
            return privacy::rdpToEpsilon(privacy::defaultRdpOrders(), rdp, 1e-5).epsilon;
        };
        QVERIFY(epsAt(e->sigma) <= 10.0 + 1e-9);
        QVERIFY(epsAt(e->sigma * 0.99) > 10.0);
    }

    void givenSigmaIsUsedAsIs() {
        auto p = PsgParamsBuilder().imagesPerClass(1).iterations(2).sigma(1.7).build();
        auto e = plannedPsgEntry(*p, 1000);
        QVERIFY(e);
        QCOMPARE(e->sigma, 1.7);
        QCOMPARE(e->steps, 20LL);
    }

    void batchLargerThanTheDataIsRefused() {
        auto p = PsgParamsBuilder().expectedBatchSize(300).build();
        auto e = plannedPsgEntry(*p, 299);
        QVERIFY(!e);
        QVERIFY2(e.error().message.find("batch = 300 exceeds the 299") != std::string::npos, e.error().message.c_str());
    }
};

QTEST_APPLESS_MAIN(TestPsgParams)
#include "tst_psg_params.moc"
