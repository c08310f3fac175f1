// The λ document sampler: validation, zero-weight domains, reproducibility per seed.
#include "engine/text/domain_sampler.h"

#include "tests/support/unit_test.h"

using namespace dpmix::text;

class TestDomainSampler : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void zeroWeightDomainsAreNeverDrawn() {
        auto sampler = makeDomainSampler(Eigen::Vector3d(0.0, 1.0, 0.0), {{10, 11}, {20, 21, 22}, {30}});
        QVERIFY(sampler.ok());
        std::mt19937_64 gen(1);
        for (int i = 0; i < 2000; ++i) {
            const auto s = sampler->sample(gen);
            QCOMPARE(s.domain, std::size_t{1});
            QVERIFY(s.document >= 20 && s.document <= 22);
        }
        // A zero-weight domain may be empty.
        QVERIFY(makeDomainSampler(Eigen::Vector2d(1.0, 0.0), {{1}, {}}).ok());
    }

    void sameSeedSameDraws() {
        auto sampler = makeDomainSampler(Eigen::Vector3d(0.2, 0.3, 0.5), {{1, 2}, {3}, {4, 5, 6}});
        QVERIFY(sampler.ok());
        std::mt19937_64 a(42), b(42), c(43);
        std::vector<std::size_t> da, db, dc;
        for (int i = 0; i < 100; ++i) {
            da.push_back(sampler->sample(a).document);
            db.push_back(sampler->sample(b).document);
            dc.push_back(sampler->sample(c).document);
        }
        QCOMPARE(da, db);
        QVERIFY(da != dc);
    }

    void rejectsBadWeights() {
        auto sum = makeDomainSampler(Eigen::Vector2d(0.5, 0.6), {{1}, {2}});
        QVERIFY(!sum.ok());
        QVERIFY(sum.error().message.find("sums to") != std::string::npos);
        auto negative = makeDomainSampler(Eigen::Vector2d(1.5, -0.5), {{1}, {2}});
        QVERIFY(!negative.ok());
        QVERIFY(negative.error().message.find("λ[1]") != std::string::npos);
        auto emptyDomain = makeDomainSampler(Eigen::Vector2d(0.5, 0.5), {{1}, {}});
        QVERIFY(!emptyDomain.ok());
        QVERIFY(emptyDomain.error().message.find("domain 1") != std::string::npos);
        QVERIFY(!makeDomainSampler(Eigen::Vector2d(0.5, 0.5), {{1}}).ok());
        QVERIFY(!makeDomainSampler(Eigen::VectorXd(), {}).ok());
    }
};

QTEST_APPLESS_MAIN(TestDomainSampler)
#include "tst_domain_sampler.moc"
