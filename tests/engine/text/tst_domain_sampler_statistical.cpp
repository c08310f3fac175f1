// Frequencies of the λ sampler match λ (per domain) and λ_g / n_g (per document), over many seeds.
// Tolerance: each count is Binomial(N, p); we allow 5 standard deviations, so a correct sampler
// fails one of the ~1000 comparisons with probability about 1000 · 6e-7 < 1e-3.
#include "engine/text/domain_sampler.h"

#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix::text;
using dpmix::test_support::str;

class TestDomainSamplerStatistical : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void frequenciesMatchLambda() {
        const Eigen::VectorXd lambda = (Eigen::VectorXd(4) << 0.5, 0.3, 0.0, 0.2).finished();
        const std::vector<std::vector<std::size_t>> docs{{0, 1, 2, 3}, {4}, {5, 6}, {7, 8, 9, 10, 11}};
        auto sampler = makeDomainSampler(lambda, docs);
        QVERIFY(sampler.ok());
        const int draws = 20000;
        for (std::uint64_t seed = 1; seed <= 50; ++seed) {
            std::mt19937_64 gen(seed);
            std::vector<int> byDomain(4, 0), byDocument(12, 0);
            for (int i = 0; i < draws; ++i) {
                const auto s = sampler->sample(gen);
                ++byDomain[s.domain];
                ++byDocument[s.document];
            }
            for (int g = 0; g < 4; ++g) {
                const double p = lambda[g];
                const double sd = std::sqrt(draws * p * (1 - p));
                QVERIFY2(std::abs(byDomain[g] - draws * p) <= 5 * sd + 1e-12,
                         str("seed ", seed, " domain ", g, ": ", byDomain[g], " draws, expected ", draws * p).c_str());
                for (const std::size_t d : docs[g]) {
                    const double q = p / static_cast<double>(docs[g].size());
                    const double sdq = std::sqrt(draws * q * (1 - q));
                    QVERIFY(std::abs(byDocument[d] - draws * q) <= 5 * sdq + 1e-12);
                }
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestDomainSamplerStatistical)
#include "tst_domain_sampler_statistical.moc"
