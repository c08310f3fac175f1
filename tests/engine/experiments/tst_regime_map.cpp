// The regime map's arithmetic and words (engine/experiments/regime_*.h, paired_difference.h):
// Student-t quantiles against published table values, paired differences worked by hand, cells
// from synthetic observations, the stored map's round trip and errors, the advice's nearest cell
// and headline, and the study spec of one sensitive set size.
#include "engine/experiments/paired_difference.h"
#include "engine/experiments/regime_advice.h"
#include "engine/experiments/regime_grid.h"
#include "engine/experiments/regime_map.h"
#include "engine/experiments/source_weights.h"
#include "engine/project/spec_json.h"
#include "tests/engine/project/project_fixture.h"
#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix;
using namespace dpmix::experiments;

namespace {

project::ResultObservation obs(const std::string& method, const std::string& task, long long seed, double eps,
                               double value) {
    return {method, task, seed, eps, value, 0};
}

// A cell whose per-seed values are given, round-tripped through the stored JSON (which recomputes
// the summaries from them).
RegimeCell cellWith(PoolKind kind, long long n, double eps, const std::map<long long, double>& dp,
                    const std::map<long long, double>& randomInit, const std::map<long long, double>& uniform) {
    std::vector<project::ResultObservation> o;
    for (const auto& [s, v] : dp) o.push_back(obs("dp-mixmin", "t", s, eps, v));
    for (const auto& [s, v] : randomInit) o.push_back(obs("random-init", "t", s, eps, v));
    for (const auto& [s, v] : uniform) o.push_back(obs("uniform", "t", s, eps, v));
    return regimeCellsOf(o, kind == PoolKind::OneSource ? "one" : "mixed", kind, n).at(0);
}

}  // namespace

class TestRegimeMap : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void studentQuantilesMatchTheTable() {
        // Two-sided 95% critical values of Student's t (any statistics table).
        QVERIFY(std::abs(studentT975(1) - 12.7062047) < 1e-6);
        QVERIFY(std::abs(studentT975(2) - 4.3026527) < 1e-6);
        QVERIFY(std::abs(studentT975(4) - 2.7764451) < 1e-6);
        QVERIFY(std::abs(studentT975(30) - 2.0422725) < 1e-6);
    }

    void pairedDifferenceByHand() {
        // Common seeds 0, 1, 2: differences 0.10, 0.02, 0.04 (seeds 3 and 7 are one-sided).
        const auto d =
            pairedDifference({{0, 0.90}, {1, 0.85}, {2, 0.88}, {7, 0.5}}, {{0, 0.80}, {1, 0.83}, {2, 0.84}, {3, 0.1}});
        QCOMPARE(d.seeds, 3);
        const double mean = (0.10 + 0.02 + 0.04) / 3.0;
        const double sd =
            std::sqrt((std::pow(0.10 - mean, 2) + std::pow(0.02 - mean, 2) + std::pow(0.04 - mean, 2)) / 2);
        const double half = 4.3026527 * sd / std::sqrt(3.0);
        QVERIFY(std::abs(d.mean - mean) < 1e-12);
        QVERIFY(std::abs(d.low - (mean - half)) < 1e-6);
        QVERIFY(std::abs(d.high - (mean + half)) < 1e-6);
        QVERIFY(!d.aheadBeyondNoise());  // the interval (−0.050, 0.157) holds zero
        QVERIFY(!d.behindBeyondNoise());
    }

    void aClearGainIsAheadAndOneSeedMakesNoClaim() {
        const auto ahead = pairedDifference({{0, 0.9}, {1, 0.91}, {2, 0.92}}, {{0, 0.8}, {1, 0.81}, {2, 0.82}});
        QVERIFY(ahead.aheadBeyondNoise());  // a constant 0.1: zero width
        const auto one = pairedDifference({{0, 0.9}}, {{0, 0.1}});
        QCOMPARE(one.seeds, 1);
        QVERIFY(!one.hasInterval());
        QVERIFY(!one.aheadBeyondNoise());
        QCOMPARE(pairedDifference({}, {{0, 0.1}}).seeds, 0);
    }

    void cellsAverageTasksWithinASeedOverTasksEveryMethodHas() {
        std::vector<project::ResultObservation> o = {
            obs("dp-mixmin", "a", 0, 1.0, 0.90), obs("dp-mixmin", "b", 0, 1.0, 0.70),
            obs("random-init", "a", 0, 1.0, 0.80), obs("random-init", "b", 0, 1.0, 0.60),
            obs("uniform", "a", 0, 1.0, 0.85), obs("uniform", "b", 0, 1.0, 0.65),
            // Seed 1: random-init lacks task b, so seed 1 compares task a only.
            obs("dp-mixmin", "a", 1, 1.0, 0.95), obs("dp-mixmin", "b", 1, 1.0, 0.10),
            obs("random-init", "a", 1, 1.0, 0.85), obs("uniform", "a", 1, 1.0, 0.90), obs("uniform", "b", 1, 1.0, 0.20),
            // A re-run of (dp-mixmin, a, seed 0) is averaged first: 0.90 and 0.92 → 0.91.
            obs("dp-mixmin", "a", 0, 1.0, 0.92), obs("dp-mixmin", "a", 0, 4.0, 0.99)};  // ε 4 holds one method only
        const auto cells = regimeCellsOf(o, "pool", PoolKind::Heterogeneous, 500);
        QCOMPARE(cells.size(), std::size_t(2));
        const auto& c = cells[0];
        QCOMPARE(c.epsilon, 1.0);
        QCOMPARE(c.n, 500LL);
        QCOMPARE(c.tasks, 2);
        QVERIFY(std::abs(c.perSeed.at("dp-mixmin").at(0) - (0.91 + 0.70) / 2) < 1e-12);
        QVERIFY(std::abs(c.perSeed.at("dp-mixmin").at(1) - 0.95) < 1e-12);
        QVERIFY(std::abs(c.perSeed.at("random-init").at(1) - 0.85) < 1e-12);
        QCOMPARE(c.vsRandomInit.seeds, 2);
        QVERIFY(std::abs(c.vsRandomInit.mean - ((0.805 - 0.70) + (0.95 - 0.85)) / 2) < 1e-12);
        QVERIFY(std::abs(c.vsUniform.mean - ((0.805 - 0.75) + (0.95 - 0.90)) / 2) < 1e-12);
        QCOMPARE(cells[1].epsilon, 4.0);
        QCOMPARE(cells[1].vsRandomInit.seeds, 0);
    }

    void theStoredMapRoundTripsAndNamesBadFields() {
        RegimeMap map;
        map.reference = "synthetic";
        map.cells.push_back(cellWith(PoolKind::Heterogeneous, 1000, 1.0, {{0, 0.9}, {1, 0.92}, {2, 0.91}},
                                     {{0, 0.8}, {1, 0.81}, {2, 0.83}}, {{0, 0.85}, {1, 0.84}, {2, 0.86}}));
        const auto back = regimeMapFromJson(regimeMapToJson(map), "map.json").value();
        QCOMPARE(back.reference, std::string("synthetic"));
        QCOMPARE(back.cells.size(), std::size_t(1));
        const auto& c = back.cells[0];
        QCOMPARE(c.poolKind, PoolKind::Heterogeneous);
        QCOMPARE(c.n, 1000LL);
        QVERIFY(std::abs(c.vsRandomInit.low - map.cells[0].vsRandomInit.low) < 1e-12);
        QVERIFY(c.paysOff());
        QVERIFY(regimeMapFromJson("[]", "m.json").error().message.find("m.json") != std::string::npos);
        const std::string noN = R"({"schema": "dpmix-regime-map-v1", "cells": [{"pool": "p", "pool_kind": "one-source",
                                   "epsilon": 1, "methods": {}}]})";
        QVERIFY(regimeMapFromJson(noN, "m.json").error().message.find("m.json.cells[0].n") != std::string::npos);
        const std::string badKind = R"({"schema": "dpmix-regime-map-v1", "cells": [{"pool": "p", "pool_kind": "x",
                                   "n": 5, "epsilon": 1, "methods": {}}]})";
        QVERIFY(regimeMapFromJson(badKind, "m.json").error().message.find("pool_kind") != std::string::npos);
    }

    void adviceReadsTheNearestCellOfTheSamePoolKind() {
        RegimeMap map;
        map.reference = "reference data";
        map.cells.push_back(cellWith(PoolKind::OneSource, 1000, 1.0, {{0, 0.9}, {1, 0.92}, {2, 0.91}},
                                     {{0, 0.8}, {1, 0.81}, {2, 0.83}}, {{0, 0.85}, {1, 0.84}, {2, 0.86}}));
        map.cells.push_back(cellWith(PoolKind::Heterogeneous, 8000, 4.0, {{0, 0.80}, {1, 0.81}, {2, 0.79}},
                                     {{0, 0.90}, {1, 0.91}, {2, 0.92}}, {{0, 0.80}, {1, 0.80}, {2, 0.80}}));
        map.cells.push_back(cellWith(PoolKind::Heterogeneous, 500, 0.5, {{0, 0.9}, {1, 0.9}, {2, 0.9}},
                                     {{0, 0.9}, {1, 0.9}, {2, 0.9}}, {{0, 0.9}, {1, 0.9}, {2, 0.9}}));
        const auto near = regimeAdvice(map, PoolKind::Heterogeneous, 6000, 2.0).value();
        QCOMPARE(near.cell.n, 8000LL);  // |ln 6000/8000| + |ln 2/4| < |ln 6000/500| + |ln 2/0.5|
        QVERIFY(near.samePoolKind);
        QVERIFY(near.headline.find("not expected to help") != std::string::npos);
        QVERIFY(near.detail.find("not a promise") != std::string::npos);
        QVERIFY(near.detail.find("n = 8,000") != std::string::npos);
        // The one-source cell is nearer in n and ε but of the other kind: the same kind wins.
        QCOMPARE(regimeAdvice(map, PoolKind::Heterogeneous, 1000, 1.0)->cell.poolKind, PoolKind::Heterogeneous);
        const auto pays = regimeAdvice(map, PoolKind::OneSource, 1000, 1.0).value();
        QVERIFY(pays.headline.find("expected to pay") != std::string::npos);
        QVERIFY(pays.detail.find("beat Random Init") != std::string::npos);
        QVERIFY(!regimeAdvice(RegimeMap{}, PoolKind::OneSource, 1000, 1.0));
        QVERIFY(!regimeAdvice(map, PoolKind::OneSource, 0, 1.0));
    }

    void aMapWithoutThePoolKindSaysSo() {
        RegimeMap map;
        map.reference = "r";
        map.cells.push_back(
            cellWith(PoolKind::OneSource, 1000, 1.0, {{0, 0.9}, {1, 0.9}}, {{0, 0.9}, {1, 0.9}}, {{0, 0.9}, {1, 0.9}}));
        const auto advice = regimeAdvice(map, PoolKind::Heterogeneous, 1000, 1.0).value();
        QVERIFY(!advice.samePoolKind);
        QVERIFY(advice.detail.find("no regime with several public data sets") != std::string::npos);
        QVERIFY(advice.headline.find("No method was ahead") != std::string::npos);
    }

    void theVerdictNamesEachBaseline() {
        const auto c = cellWith(PoolKind::OneSource, 1000, 1.0, {{0, 0.90}, {1, 0.91}, {2, 0.92}},
                                {{0, 0.80}, {1, 0.81}, {2, 0.82}}, {{0, 0.95}, {1, 0.96}, {2, 0.97}});
        const std::string verdict = baselineVerdict(c);
        QVERIFY(verdict.find("beat Random Init (+0.100 [+0.100, +0.100] AUC, 3 seeds)") != std::string::npos);
        QVERIFY(verdict.find("lost to Uniform") != std::string::npos);
        const auto one = cellWith(PoolKind::OneSource, 1000, 1.0, {{0, 0.9}}, {{0, 0.8}}, {});
        QVERIFY(baselineVerdict(one).find("no claim without 2 or more seeds") != std::string::npos);
        QVERIFY(baselineVerdict(one).find("no Uniform result") != std::string::npos);
    }

    void theStudyOfOneSizeLimitsTheSensitiveSourceAndLowersDelta() {
        auto pool = project::testing::tinySpec();
        pool.sensitive.resolved = pool.sensitive.written;
        pool.sensitive.resolved.path = "/abs/private/images.idx";
        auto small = regimeStudySpec(pool, 500).value();
        QCOMPARE(small.name, std::string("tiny-n500"));
        QCOMPARE(small.sensitive.written.options.at("limit"), std::string("500"));
        QCOMPARE(small.sensitive.written.path, std::string("/abs/private/images.idx"));
        QCOMPARE(small.privacy.delta, 1e-5);  // 1/(10·500) = 2e-4: the spec's 1e-5 is already below
        auto large = regimeStudySpec(pool, 50000).value();
        QVERIFY(std::abs(large.privacy.delta - 1e-6) < 1e-18);  // 1/(10·50,000) = 2e-6 → 1e-6
        auto all = regimeStudySpec(pool, 0).value();
        QCOMPARE(all.name, std::string("tiny-all"));
        QVERIFY(!all.sensitive.written.options.count("limit"));
        pool.sensitive.written.options["limit"] = "10";
        QVERIFY(regimeStudySpec(pool, 500).error().message.find("sensitive.options.limit") != std::string::npos);
    }

    void theGridNamesTheFlagItRefuses() {
        RegimeGrid grid{{500, 2000}, {1.0, 4.0}, {0, 1, 2}, {}, {}, {}, {}, {}, {}};
        QVERIFY(!checkRegimeGrid(grid));
        auto twice = grid;
        twice.sizes = {500, 500};
        QVERIFY(checkRegimeGrid(twice)->message.find("--sizes") != std::string::npos);
        auto negative = grid;
        negative.epsilons = {-1.0};
        QVERIFY(checkRegimeGrid(negative)->message.find("--epsilons") != std::string::npos);
        auto noSeeds = grid;
        noSeeds.seeds.clear();
        QVERIFY(checkRegimeGrid(noSeeds)->message.find("--seeds") != std::string::npos);
        auto resnet = grid;
        resnet.model = "resnet18";
        QVERIFY(!checkRegimeGrid(resnet));
        auto unknown = grid;
        unknown.model = "vgg16";
        QVERIFY(checkRegimeGrid(unknown)->message.find("--model: vgg16") != std::string::npos);
        auto oddWidth = resnet;
        oddWidth.resnetWidth = 20;
        QVERIFY(checkRegimeGrid(oddWidth)->message.find("--resnet-width: 20") != std::string::npos);
    }

    void anotherModelThanThePoolsRunsInAStudyOfItsOwn() {
        auto pool = project::testing::tinySpec();
        QCOMPARE(pool.finetune.model, std::string("small-cnn"));
        auto resnet = regimeStudySpec(pool, 500, std::string("resnet18")).value();
        QCOMPARE(resnet.name, std::string("tiny-n500-resnet18"));
        QCOMPARE(resnet.finetune.model, std::string("resnet18"));
        QCOMPARE(resnet.sensitive.written.options.at("limit"), std::string("500"));
        // The pool's own model, given or not, keeps the study's name and spec.
        auto same = regimeStudySpec(pool, 500, std::string("small-cnn")).value();
        QCOMPARE(same.name, std::string("tiny-n500"));
        QCOMPARE(project::projectSpecToJson(same), project::projectSpecToJson(regimeStudySpec(pool, 500).value()));
        QCOMPARE(regimeStudySpec(pool, 0, std::string("resnet18"))->name, std::string("tiny-all-resnet18"));
        auto narrow = regimeStudySpec(pool, 500, std::string("resnet18"), 16).value();
        QCOMPARE(narrow.name, std::string("tiny-n500-resnet18-w16"));
        QCOMPARE(narrow.finetune.resnetWidth, 16LL);
        QVERIFY(regimeStudySpec(pool, 500, std::nullopt, 16).error().message.find("needs --model resnet18") !=
                std::string::npos);
    }

    void weightsAddUpPerSource() {
        const auto w = weightBySource({"fashion / a", "digits / 1", "fashion / b", "digits / 2"}, {0.5, 0.1, 0.3, 0.1});
        QCOMPARE(w.size(), std::size_t(2));
        QCOMPARE(w[0].first, std::string("fashion"));
        QVERIFY(std::abs(w[0].second - 0.8) < 1e-15);
        QVERIFY(std::abs(w[1].second - 0.2) < 1e-15);
        QCOMPARE(weightBySource({"a", "b"}, {0.4, 0.6}).at(0).first, std::string("the public source"));
    }

    void storedWeightsJoinTheDpRunWithTheLambdaStarOfItsSeed() {
        test_support::TempDir dir;
        auto p = project::ProjectFile::create(dir.filePath("w.dpmix"), project::testing::tinySpec(),
                                              project::testing::tinyFacts())
                     .value();
        const std::vector<std::string> names{"fashion / a", "fashion / b", "digits / 1"};
        const auto store = [&](const std::string& method, long long seed, const std::string& kind,
                               std::vector<double> values) {
            const long long id = p.addRun({method, "ac", 1.0, seed, "{}"}).value();
            (void)p.addLambda({id, kind, names, std::move(values)}).value();
            (void)p.setRunStatus(id, project::RunStatus::Running).value();
            (void)p.setRunStatus(id, project::RunStatus::Done).value();
        };
        // Seed 0: λ* ignores digits (0.01 < 0.02), λ_DP gives them 0.05. Seed 1: λ* wants digits.
        store("dp-mixmin", 0, "private", {0.60, 0.35, 0.05});
        store("non-private-mixmin", 0, "non-private", {0.70, 0.29, 0.01});
        store("dp-mixmin", 1, "private", {0.50, 0.20, 0.30});
        store("non-private-mixmin", 1, "non-private", {0.40, 0.20, 0.40});
        store("dp-mixmin", 2, "private", {1.0, 0.0, 0.0});  // no λ* of seed 2: left out
        const auto rows = storedSourceWeights(p).value();
        QCOMPARE(rows.size(), std::size_t(1));
        const auto& r = rows[0];
        QCOMPARE(r.seeds, 2);
        QCOMPARE(r.sources, (std::vector<std::string>{"fashion", "digits"}));
        QVERIFY(std::abs(r.dp[0] - (0.95 + 0.70) / 2) < 1e-12);
        QVERIFY(std::abs(r.star[1] - (0.01 + 0.40) / 2) < 1e-12);
        QVERIFY(std::abs(r.dpOnNeglectedMean - 0.05 / 2) < 1e-12);
        QVERIFY(std::abs(r.dpOnNeglectedMax - 0.05) < 1e-12);
        QVERIFY(r.neglectedEverySeed.empty());  // digits are wanted on seed 1
    }
};

QTEST_APPLESS_MAIN(TestRegimeMap)
#include "tst_regime_map.moc"
