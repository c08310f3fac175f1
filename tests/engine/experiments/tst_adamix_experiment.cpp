// The AdaMix-R experiment grid (docs/ADAMIX.md, "The experiment") on generated Gaussian-blob
// features: the draws' bookkeeping (shots removed from the private pool, counts per class),
// determinism across thread counts, the error-increase formula and Spearman's ρ against hand
// computations, the isolation score against brute force, bad input, and the stored run read back
// through readAdamixExperiment.
#include "engine/experiments/adamix_experiment.h"
#include "engine/experiments/adamix_records.h"
#include "engine/privacy/ledger_json.h"
#include "engine/project/project_file.h"

#include "tests/support/unit_test.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>

using namespace dpmix;
using namespace dpmix::experiments;
using namespace dpmix::test_support;

namespace {

// `perClass` points per class around well-separated centres plus some overlap, p dimensions.
struct Blobs {
    Eigen::MatrixXd features;
    Eigen::VectorXi labels;
};

Blobs blobs(int classes, int p, int perClass, double spread, unsigned seed) {
    std::mt19937_64 centreGen(7), gen(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    Eigen::MatrixXd centres(classes, p);
    for (int k = 0; k < classes; ++k)
        for (int j = 0; j < p; ++j) centres(k, j) = 1.5 * normal(centreGen);
    Blobs b;
    b.features.resize(classes * perClass, p);
    b.labels.resize(classes * perClass);
    for (int i = 0; i < classes * perClass; ++i) {
        const int k = i % classes;  // interleaved, so class rows are not contiguous
        b.labels(i) = k;
        for (int j = 0; j < p; ++j) b.features(i, j) = centres(k, j) + spread * normal(gen);
    }
    return b;
}

const std::vector<std::string> kClasses{"a", "b", "c"};

AdamixGridOptions smallOptions() {
    AdamixGridOptions o;
    o.shots = {1, 3};
    o.privatePerClass = {5, kAllPrivate};
    o.epsilons = {1.0, 8.0};
    o.seeds = 2;
    o.steps = 20;
    o.threads = 1;
    return o;
}

AdamixGridInput inputFor(const Blobs& pool, const Blobs& test) {
    AdamixGridInput in;
    in.classes = 3;
    in.poolFeatures = pool.features;
    in.poolLabels = pool.labels;
    for (Eigen::Index i = 0; i < pool.labels.size(); ++i) in.poolSourceIndex.push_back(1000 + i);
    in.testFeatures = test.features;
    in.testLabels = test.labels;
    return in;
}

project::ProjectSpec spec() {
    project::ProjectSpec s;
    s.name = "adamix-test";
    project::SpecSource pub;
    pub.written = {"digits", "idx", "digits.idx", {{"classes", "0,1"}}};
    s.publicSources.push_back(pub);
    s.sensitive.written = {"clothes", "idx", "clothes.idx", {{"classes", "a,b,c"}}};
    s.privacy.epsilons = {1.0};
    s.privacy.delta = 1e-5;
    s.privacy.rho = 0.1;
    s.seeds = {0};
    return s;
}

std::vector<project::SourceFacts> facts() {
    return {{data::SourceKind::Images, 20, {"0", "1"}, {}, 0, std::string(64, 'a'), 1, 4, 4},
            {data::SourceKind::Images, 120, {"a", "b", "c"}, {}, 0, std::string(64, 'b'), 1, 4, 4}};
}

bool sameOrBothNaN(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

}  // namespace

class TestAdamixExperiment : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void shotsAreRemovedFromThePrivatePoolAndCountsArePerClass() {
        const Blobs pool = blobs(3, 4, 12, 0.5, 1);
        const auto o = smallOptions();
        const auto plan = planAdamixDraws(pool.labels, nullptr, kClasses, o).value();
        QVERIFY(plan.shotsFromPool);
        QCOMPARE(plan.seeds.size(), std::size_t(2));
        for (const auto& draw : plan.seeds) {
            std::set<Eigen::Index> shots;
            for (int c = 0; c < 3; ++c) {
                QCOMPARE(draw.shots[c].size(), std::size_t(3));             // the largest k
                QCOMPARE(draw.privateRows[c].size(), std::size_t(12 - 3));  // "all": the rest of the class
                for (auto r : draw.shots[c]) {
                    QCOMPARE(pool.labels(r), c);
                    shots.insert(r);
                }
                std::set<Eigen::Index> priv(draw.privateRows[c].begin(), draw.privateRows[c].end());
                QCOMPARE(priv.size(), draw.privateRows[c].size());  // no repeats
                for (auto r : priv) {
                    QCOMPARE(pool.labels(r), c);
                    QVERIFY2(!shots.count(r), "a shot stayed in the private pool");
                }
            }
        }
        QVERIFY(plan.seeds[0].shots != plan.seeds[1].shots);  // redrawn per seed
        // The same options draw the same rows.
        QVERIFY(planAdamixDraws(pool.labels, nullptr, kClasses, o).value().seeds[1].privateRows ==
                plan.seeds[1].privateRows);

        // The grid's cells see k·K public and n·K private examples (n = all: 9 per class).
        const Blobs test = blobs(3, 4, 10, 0.5, 2);
        const auto result = runAdamixGrid(inputFor(pool, test), plan, o).value();
        for (const auto& c : result.cells) {
            QCOMPARE(c.publicExamples, c.shots * 3);
            QCOMPARE(c.privateExamples, (c.privatePerClass == kAllPrivate ? 9 : c.privatePerClass) * 3);
        }
        // 2 seeds × 2 shots × 2 counts × (2 reference + 6 private × 2 ε) cells.
        QCOMPARE(result.cells.size(), std::size_t(2 * 2 * 2 * (2 + 6 * 2)));
        QCOMPARE(result.perExample.size(), std::size_t(2 * 2 * 2 * 2));
    }

    void aSeparateShotsSourceLeavesThePoolWhole() {
        const Blobs pool = blobs(3, 4, 12, 0.5, 1), shotSource = blobs(3, 4, 4, 0.5, 3);
        auto o = smallOptions();
        const auto plan = planAdamixDraws(pool.labels, &shotSource.labels, kClasses, o).value();
        QVERIFY(!plan.shotsFromPool);
        for (int c = 0; c < 3; ++c) {
            QCOMPARE(plan.seeds[0].privateRows[c].size(), std::size_t(12));
            for (auto r : plan.seeds[0].shots[c]) QCOMPARE(shotSource.labels(r), c);
        }
        QCOMPARE(shotRowsNeeded(plan).size() <= std::size_t(12), true);
        // A shots source with too few examples of a class.
        Eigen::VectorXi poor = shotSource.labels;
        for (Eigen::Index i = 0; i < poor.size(); ++i)
            if (poor(i) == 2) poor(i) = 0;
        const auto bad = planAdamixDraws(pool.labels, &poor, kClasses, o);
        QVERIFY(!bad);
        QCOMPARE(bad.error().field, std::string("shots"));
        QVERIFY2(contains(bad.error().message, "'c'"), bad.error().message.c_str());
    }

    void resultsDoNotDependOnTheThreadCount() {
        const Blobs pool = blobs(3, 4, 12, 0.8, 1), test = blobs(3, 4, 10, 0.8, 2);
        auto o = smallOptions();
        const auto plan = planAdamixDraws(pool.labels, nullptr, kClasses, o).value();
        const auto one = runAdamixGrid(inputFor(pool, test), plan, o).value();
        o.threads = 3;
        const auto three = runAdamixGrid(inputFor(pool, test), plan, o).value();
        QCOMPARE(one.cells.size(), three.cells.size());
        for (std::size_t i = 0; i < one.cells.size(); ++i) {
            QCOMPARE(one.cells[i].testError, three.cells[i].testError);
            QCOMPARE(one.cells[i].sigma, three.cells[i].sigma);
        }
        for (std::size_t i = 0; i < one.perExample.size(); ++i) {
            QVERIFY(one.perExample[i].epsilon == three.perExample[i].epsilon);
            QVERIFY(one.perExample[i].loss == three.perExample[i].loss);
        }
    }

    void partsAssembleIntoTheWholeGrid() {
        // The cluster executor's units (one seed × one private-per-class value), run in any order
        // and assembled, are the whole grid: every cell, per-example record and summary row, bit
        // for bit (NaN included).
        const Blobs pool = blobs(3, 4, 12, 0.8, 1), test = blobs(3, 4, 10, 0.8, 2);
        const auto o = smallOptions();
        const auto plan = planAdamixDraws(pool.labels, nullptr, kClasses, o).value();
        const auto input = inputFor(pool, test);
        const auto whole = runAdamixGrid(input, plan, o).value();
        auto parts = adamixGridParts(o);
        QCOMPARE(parts.size(), std::size_t(4));  // 2 seeds × 2 private counts
        std::reverse(parts.begin(), parts.end());
        std::vector<std::pair<AdamixGridPart, AdamixGridResult>> results;
        for (const auto& part : parts) {
            auto r = runAdamixGridPart(input, plan, o, part);
            QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
            QVERIFY(r->summary.empty());
            results.emplace_back(part, std::move(r).value());
        }
        const auto assembled = assembleAdamixGrid(results, o);
        QVERIFY2(assembled.ok(), assembled.ok() ? "" : assembled.error().message.c_str());
        auto same = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
        QCOMPARE(assembled->cells.size(), whole.cells.size());
        for (std::size_t i = 0; i < whole.cells.size(); ++i) {
            const auto &a = assembled->cells[i], &b = whole.cells[i];
            QVERIFY(a.method == b.method);
            QCOMPARE(a.seed, b.seed);
            QCOMPARE(a.shots, b.shots);
            QCOMPARE(a.privatePerClass, b.privatePerClass);
            QCOMPARE(a.perExample, b.perExample);
            QVERIFY(a.epsilon.has_value() == b.epsilon.has_value() && (!a.epsilon || same(*a.epsilon, *b.epsilon)));
            for (auto [x, y] : {std::pair{a.testError, b.testError},
                                {a.errorIncrease, b.errorIncrease},
                                {a.sigma, b.sigma},
                                {a.certifiedEpsilon, b.certifiedEpsilon}})
                QVERIFY2(same(x, y), ("cell " + std::to_string(i)).c_str());
        }
        QCOMPARE(assembled->perExample.size(), whole.perExample.size());
        QVERIFY(!whole.perExample.empty());
        for (std::size_t i = 0; i < whole.perExample.size(); ++i) {
            const auto &a = assembled->perExample[i], &b = whole.perExample[i];
            QCOMPARE(a.cell, b.cell);
            QVERIFY(a.sourceIndex == b.sourceIndex && a.labels == b.labels);
            QVERIFY(a.epsilon == b.epsilon && a.loss == b.loss && a.isolation == b.isolation);
            QVERIFY(same(a.spearmanIsolation, b.spearmanIsolation) && same(a.datasetEpsilon, b.datasetEpsilon));
        }
        QCOMPARE(assembled->summary.size(), whole.summary.size());
        for (std::size_t i = 0; i < whole.summary.size(); ++i)
            QVERIFY(same(assembled->summary[i].errorIncrease.mean, whole.summary[i].errorIncrease.mean) &&
                    same(assembled->summary[i].testError.std, whole.summary[i].testError.std));
        QCOMPARE(assembled->epsilonSummary.size(), whole.epsilonSummary.size());

        // A part missing, given twice, or holding another part's cells: refused, naming it.
        auto missing = results;
        missing.pop_back();
        const auto m = assembleAdamixGrid(missing, o);
        QVERIFY(!m.ok());
        QVERIFY2(contains(m.error().message, "missing"), m.error().message.c_str());
        auto twice = results;
        twice.push_back(results.front());
        QVERIFY(!assembleAdamixGrid(twice, o).ok());
        auto foreign = results;
        std::swap(foreign[0].first, foreign[1].first);
        const auto f = assembleAdamixGrid(foreign, o);
        QVERIFY(!f.ok());
        QVERIFY2(contains(f.error().message, "another part"), f.error().message.c_str());
    }

    void errorIncreaseIsRelativeToTheParagonOfTheSameDraw() {
        QCOMPARE(errorIncreasePercent(0.15, 0.10), 50.0);
        QCOMPARE(errorIncreasePercent(0.10, 0.10), 0.0);
        QCOMPARE(errorIncreasePercent(0.05, 0.20), -75.0);
        QVERIFY(std::isnan(errorIncreasePercent(0.1, 0.0)));
        const Blobs pool = blobs(3, 4, 12, 1.2, 1), test = blobs(3, 4, 10, 1.2, 2);
        const auto o = smallOptions();
        const auto plan = planAdamixDraws(pool.labels, nullptr, kClasses, o).value();
        const auto r = runAdamixGrid(inputFor(pool, test), plan, o).value();
        for (const auto& c : r.cells) {
            double paragon = -1.0;
            for (const auto& p : r.cells)
                if (p.method == AdamixMethod::Paragon && p.seed == c.seed && p.shots == c.shots &&
                    p.privatePerClass == c.privatePerClass)
                    paragon = p.testError;
            QVERIFY(paragon >= 0.0);
            const double expected = paragon > 0.0 ? (c.testError - paragon) / paragon * 100.0 : std::nan("");
            QVERIFY(sameOrBothNaN(c.errorIncrease, expected) || std::abs(c.errorIncrease - expected) < 1e-12);
            if (isPrivateMethod(c.method)) {
                QCOMPARE(c.steps, 20LL);
                QCOMPARE(c.q, 1.0);
                QVERIFY(c.sigma > 0.0 && c.certifiedEpsilon <= *c.epsilon * (1 + 1e-9));
            }
        }
        // ε_i never exceed the dataset-level ε, and the summary has one row per (method, ε, k, n).
        for (const auto& pe : r.perExample) QVERIFY(pe.epsilon.maxCoeff() <= pe.datasetEpsilon * (1 + 1e-9));
        QCOMPARE(r.summary.size(), std::size_t((2 + 6 * 2) * 2 * 2));
    }

    void spearmanHandlesTiesByAverageRanks() {
        Eigen::VectorXd a(4), b(4);
        a << 1, 2, 2, 3;
        b << 10, 20, 30, 30;
        // ranks a: 1, 2.5, 2.5, 4; b: 1, 2, 3.5, 3.5; centred: (−1.5, 0, 0, 1.5), (−1.5, −.5, 1, 1):
        // 3.75 / sqrt(4.5 · 4.5).
        const Eigen::VectorXd ra = averageRanks(a);
        QCOMPARE(ra(1), 2.5);
        QCOMPARE(ra(2), 2.5);
        QVERIFY(std::abs(spearman(a, b) - 3.75 / 4.5) < 1e-14);
        Eigen::VectorXd up(5), down(5), flat = Eigen::VectorXd::Ones(5);
        up << 1, 5, 7, 8, 100;
        down << 9, 3, 2, 1, -4;
        QVERIFY(std::abs(spearman(up, down) + 1.0) < 1e-14);
        QVERIFY(std::isnan(spearman(up, flat)));
    }

    void isolationMatchesBruteForce() {
        std::mt19937_64 gen(11);
        std::normal_distribution<double> normal(0.0, 1.0);
        Eigen::MatrixXd x(40, 3);
        Eigen::VectorXi y(40);
        for (int i = 0; i < 40; ++i) {
            y(i) = i % 3 == 0 ? 1 : 0;
            for (int j = 0; j < 3; ++j) x(i, j) = normal(gen);
        }
        for (int k : {1, 5, 30}) {
            const Eigen::VectorXd got = isolationScores(x, y, k);
            for (int i = 0; i < 40; ++i) {
                std::vector<double> d;
                for (int j = 0; j < 40; ++j)
                    if (j != i && y(j) == y(i)) d.push_back((x.row(i) - x.row(j)).norm());
                std::sort(d.begin(), d.end());
                const std::size_t take = std::min<std::size_t>(static_cast<std::size_t>(k), d.size());
                double mean = 0.0;
                for (std::size_t t = 0; t < take; ++t) mean += d[t];
                mean /= static_cast<double>(take);
                QVERIFY2(std::abs(got(i) - mean) < 1e-9,
                         ("k " + std::to_string(k) + " row " + std::to_string(i)).c_str());
            }
        }
    }

    void badInputNamesTheOption() {
        const Blobs pool = blobs(3, 4, 12, 0.5, 1);
        auto field = [&](AdamixGridOptions o) {
            auto r = planAdamixDraws(pool.labels, nullptr, kClasses, o);
            return r ? std::string("no error") : r.error().field;
        };
        auto o = smallOptions();
        o.shots = {12};  // 12 per class, none would stay private
        QCOMPARE(field(o), std::string("shots"));
        o = smallOptions();
        o.privatePerClass = {10};  // 12 − 3 shots = 9 left
        QCOMPARE(field(o), std::string("private-per-class"));
        o = smallOptions();
        o.epsilons = {1.0, 0.0};
        QCOMPARE(field(o), std::string("epsilons"));
        o.epsilons = {-1.0};
        QCOMPARE(field(o), std::string("epsilons"));
        o = smallOptions();
        o.seeds = 0;
        QCOMPARE(field(o), std::string("seeds"));
        o = smallOptions();
        o.shots = {0};
        QCOMPARE(field(o), std::string("shots"));
        const auto unknown = parseAdamixMethod("adamix-plus");
        QVERIFY(!unknown);
        QCOMPARE(unknown.error().field, std::string("methods"));
        QVERIFY(parseAdamixMethod("m4B").value() == AdamixMethod::FixedClip);
        QVERIFY(parseAdamixMethod("dp-gd-warm-start").value() == AdamixMethod::DpGdWarmStart);
    }

    void aStoredExperimentReadsBack() {
        TempDir dir;
        auto project = project::ProjectFile::create(dir.filePath("p.dpmix"), spec(), facts()).value();
        const Blobs pool = blobs(3, 4, 12, 0.8, 1), test = blobs(3, 4, 10, 0.8, 2);
        auto o = smallOptions();
        o.methods = {AdamixMethod::Paragon, AdamixMethod::PublicOnly, AdamixMethod::DpGdWarmStart,
                     AdamixMethod::AdamixR};
        const auto plan = planAdamixDraws(pool.labels, nullptr, kClasses, o).value();
        const auto result = runAdamixGrid(inputFor(pool, test), plan, o).value();
        AdamixExperimentSetup setup;
        setup.privateSource = "clothes";
        setup.extractorSource = "digits";
        setup.testSet = "generated";
        setup.classes = kClasses;
        setup.poolExamples = 36;
        setup.testExamples = 30;
        setup.extractorArchitecture = "small-cnn";
        setup.extractorEpochs = 1;
        setup.featureDim = 4;
        const auto id = storeAdamixExperiment(project, setup, o, result, {0.5f, -1.0f}).value();

        const auto back = readAdamixExperiment(project, id).value();
        QCOMPARE(back.setup.privateSource, std::string("clothes"));
        QVERIFY(back.setup.classes == kClasses);
        QVERIFY(back.options.methods == o.methods);
        QVERIFY(back.options.privatePerClass == o.privatePerClass);
        QCOMPARE(back.result.cells.size(), result.cells.size());
        for (std::size_t i = 0; i < result.cells.size(); ++i) {
            const auto &a = result.cells[i], &b = back.result.cells[i];
            QVERIFY(b.method == a.method);
            QVERIFY(b.epsilon == a.epsilon);
            QCOMPARE(b.shots, a.shots);
            QCOMPARE(b.privatePerClass, a.privatePerClass);
            QCOMPARE(b.seed, a.seed);
            QCOMPARE(b.testError, a.testError);
            QVERIFY(sameOrBothNaN(b.errorIncrease, a.errorIncrease));
            QCOMPARE(b.sigma, a.sigma);
            QCOMPARE(b.steps, a.steps);
            QCOMPARE(b.perExample, a.perExample);
        }
        QCOMPARE(back.result.perExample.size(), result.perExample.size());
        for (std::size_t i = 0; i < result.perExample.size(); ++i) {
            const auto &a = result.perExample[i], &b = back.result.perExample[i];
            QVERIFY(b.sourceIndex == a.sourceIndex);
            QVERIFY(b.labels == a.labels);
            QVERIFY(b.epsilon == a.epsilon);
            QVERIFY(b.isolation == a.isolation);
            QVERIFY(b.loss == a.loss);
            QVERIFY(b.quantiles == a.quantiles);
            QVERIFY(sameOrBothNaN(b.spearmanIsolation, a.spearmanIsolation));
            QVERIFY(b.sourceIndex.front() >= 1000);  // the index in the private source, not the pool row
        }
        QCOMPARE(back.result.summary.size(), result.summary.size());
        for (std::size_t i = 0; i < result.summary.size(); ++i)
            QVERIFY(sameOrBothNaN(back.result.summary[i].testError.mean, result.summary[i].testError.mean));
        // Without the per-example records.
        const auto light = readAdamixExperiment(project, id, false).value();
        QVERIFY(light.result.perExample.empty());
        // ... each cell still says where its record sits in a full read.
        QCOMPARE(light.result.cells.size(), back.result.cells.size());
        std::size_t withRecord = 0;
        for (std::size_t i = 0; i < back.result.cells.size(); ++i) {
            QCOMPARE(light.result.cells[i].perExample, back.result.cells[i].perExample);
            withRecord += light.result.cells[i].perExample >= 0;
        }
        QCOMPARE(withRecord, back.result.perExample.size());
        QVERIFY(withRecord > 0);
        // Its ledger: one non-private entry (a diagnostic).
        const auto ledgers = project.ledgers(id).value();
        QCOMPARE(ledgers.size(), std::size_t(1));
        const auto ledger = privacy::ledgerFromJson(ledgers[0].ledgerJson).value();
        QCOMPARE(ledger.entries().size(), std::size_t(1));
        QVERIFY(ledger.entries()[0].mechanism == privacy::MechanismKind::NonPrivate);
        QVERIFY(project.run(id).value().status == project::RunStatus::Done);
        QVERIFY(project.verifyChain().value().ok);
        // Another kind of run is refused.
        const auto other = project.addRun({"k-scaling", "", std::nullopt, 0, "{}"}).value();
        QVERIFY(!readAdamixExperiment(project, other));
        // A per-example record without its quantiles is refused when read, not read out of bounds.
        auto malformed = result;
        malformed.perExample.front().quantiles.clear();
        const auto bad = storeAdamixExperiment(project, setup, o, malformed).value();
        const auto refused = readAdamixExperiment(project, bad);
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.find("quantiles") != std::string::npos, refused.error().message.c_str());
        QVERIFY(readAdamixExperiment(project, bad, false));  // the table itself is still readable
    }
};

QTEST_APPLESS_MAIN(TestAdamixExperiment)
#include "tst_adamix_experiment.moc"
