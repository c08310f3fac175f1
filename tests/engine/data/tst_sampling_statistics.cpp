// Statistical checks (label "statistical", many seeds, z-score tolerances) of Poisson sampling
// and of the ρ split's fairness. Expected values are binomial closed forms.
#include "engine/data/poisson_sampler.h"
#include "engine/data/splits.h"

#include "tests/support/unit_test.h"

#include <cmath>
#include <map>

using namespace dpmix::data;
using dpmix::test_support::str;

class TestSamplingStatistics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void edgeRatesAndBadRate() {
        std::mt19937_64 gen(1);
        QVERIFY(poissonSample(100, 0.0, gen).empty());
        QCOMPARE(poissonSample(100, 1.0, gen).size(), std::size_t(100));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, poissonSample(10, 1.5, gen));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, poissonSample(10, -0.1, gen));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, poissonSample(10, std::nan(""), gen));
    }
    void batchSizeMeanAndVarianceOverManySeeds() {
        // |B| ~ Binomial(n, q): mean nq, variance nq(1-q). Per seed 400 draws; z-tests at 5σ.
        const std::size_t n = 1000, draws = 400;
        const double q = 0.05, mean = n * q, var = n * q * (1 - q);
        double pooled = 0;
        for (std::uint64_t seed = 1; seed <= 25; ++seed) {
            std::mt19937_64 gen(seed);
            double sum = 0, sumSq = 0;
            for (std::size_t t = 0; t < draws; ++t) {
                const double b = static_cast<double>(poissonSample(n, q, gen).size());
                sum += b;
                sumSq += b * b;
            }
            const double m = sum / draws, v = (sumSq - draws * m * m) / (draws - 1);
            QVERIFY2(std::fabs(m - mean) < 5 * std::sqrt(var / draws), str("seed ", seed, " mean ", m).c_str());
            // Sample variance sd ≈ var·sqrt(2/(draws-1)) (normal approximation; kurtosis ≈ 3 here).
            QVERIFY2(std::fabs(v - var) < 5 * var * std::sqrt(2.0 / (draws - 1)),
                     str("seed ", seed, " var ", v).c_str());
            pooled += m;
        }
        pooled /= 25;
        DPMIX_COMPARE_NEAR(pooled, mean, 4 * std::sqrt(var / (25 * draws)));
    }
    void eachIndexIncludedIndependentlyWithRateQ() {
        // Per-index inclusion ~ Binomial(T, q); pairs (0,1) both included ~ Binomial(T, q²).
        const std::size_t n = 10, draws = 20000;
        const double q = 0.3;
        for (std::uint64_t seed = 100; seed < 110; ++seed) {
            std::mt19937_64 gen(seed);
            std::vector<double> count(n, 0);
            double both = 0;
            for (std::size_t t = 0; t < draws; ++t) {
                const auto batch = poissonSample(n, q, gen);
                for (std::size_t j : batch) ++count[j];
                if (batch.size() >= 2 && batch[0] == 0 && batch[1] == 1) ++both;
            }
            for (double c : count) QVERIFY(std::fabs(c - draws * q) < 5 * std::sqrt(draws * q * (1 - q)));
            DPMIX_COMPARE_NEAR(both, draws * q * q, 5 * std::sqrt(draws * q * q * (1 - q * q)));
        }
    }
    void userLevelSamplesWholeUsers() {
        std::vector<std::string> users;
        for (int u = 0; u < 50; ++u)
            for (int k = 0; k < 1 + u % 4; ++k) users.push_back("u" + std::to_string(u));
        const UserGroups groups = groupByUser(users);
        QCOMPARE(groups.userIds.size(), std::size_t(50));
        const double q = 0.2, m = 50, draws = 2000;
        for (std::uint64_t seed = 1; seed <= 10; ++seed) {
            std::mt19937_64 gen(seed);
            double sumUsers = 0;
            for (int t = 0; t < draws; ++t) {
                const auto batch = poissonSampleUsers(groups, q, gen);
                std::map<std::string, int> perUser;
                for (std::size_t i : batch) ++perUser[users[i]];
                for (const auto& [u, c] : perUser) {
                    const std::size_t index = std::stoul(u.substr(1));
                    QCOMPARE(static_cast<std::size_t>(c), groups.examples[index].size());  // whole user
                }
                sumUsers += perUser.size();
            }
            DPMIX_COMPARE_NEAR(sumUsers / draws, q * m, 5 * std::sqrt(m * q * (1 - q) / draws));
        }
    }
    void rhoSplitIsUniformOverExamples() {
        // A stable split puts each example in split A with probability ρ, independently of the others.
        const std::size_t n = 200, seeds = 2000;
        const double p = 0.25;
        std::vector<double> count(n, 0);
        for (std::uint64_t seed = 0; seed < seeds; ++seed) {
            const auto split = rhoSplit(n, 0.25, seed);
            QVERIFY(split.ok());
            for (std::size_t i : split->first) ++count[i];
        }
        for (double c : count) QVERIFY(std::fabs(c - seeds * p) < 5 * std::sqrt(seeds * p * (1 - p)));
    }
};

QTEST_APPLESS_MAIN(TestSamplingStatistics)
#include "tst_sampling_statistics.moc"
