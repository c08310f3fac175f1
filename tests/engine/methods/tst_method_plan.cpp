// The method table and the plans built from it: what each method pretrains on, what its ledger
// starts with, which λ record it stores and which data it fine-tunes on — each expected value
// written out by hand from the method's definition (docs/ALGORITHMS.md, "Methods").
#include "engine/methods/method_plan.h"

#include "tests/support/unit_test.h"

#include <algorithm>
#include <set>

using namespace dpmix;
using methods::Method;

namespace {

methods::MixtureChoices sampleChoices() {
    methods::MixtureChoices c;
    c.lambdaStar = {0.7, 0.2, 0.1};
    c.lambdaUniform = {1.0 / 3, 1.0 / 3, 1.0 / 3};
    c.lambdaRandomSearch = {0.5, 0.4, 0.1};
    c.lambdaPrivate = {0.6, 0.3, 0.1};
    c.privateEntries = {
        privacy::gaussianEntry("mixture", "A", privacy::PrivacyUnit::Example, 0.1, 2.0, 100, 1e-5, 1.0)};
    return c;
}

}  // namespace

class TestMethodPlan : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everySpellingParsesToItsMethod() {
        const std::vector<std::pair<std::string, Method>> spellings = {{"dp-mixmin", Method::DpMixMin},
                                                                       {"dpmixmin", Method::DpMixMin},
                                                                       {"uniform", Method::Uniform},
                                                                       {"random-search", Method::RandomSearch},
                                                                       {"random-init", Method::RandomInit},
                                                                       {"non-private-mixmin", Method::NonPrivateMixMin},
                                                                       {"nonprivate", Method::NonPrivateMixMin},
                                                                       {"non-private", Method::NonPrivateMixMin}};
        for (const auto& [spelling, method] : spellings) {
            auto parsed = methods::parseMethod(spelling);
            QVERIFY2(parsed.ok(), spelling.c_str());
            QVERIFY(*parsed == method);
        }
    }

    void anUnknownSpellingNamesTheAllowedOnes() {
        auto parsed = methods::parseMethod("best-guess");
        QVERIFY(!parsed.ok());
        QCOMPARE(
            parsed.error().message,
            std::string(
                "unknown method 'best-guess': expected dpmixmin, uniform, random-search, random-init or nonprivate"));
        QVERIFY(!methods::parseMethod("").ok());
        QVERIFY(!methods::parseMethod("DP-MixMin").ok());  // a label is not a spelling
    }

    void namesAreUniqueAndRoundTrip() {
        std::set<std::string_view> seen;
        for (const auto& t : methods::allMethods()) {
            QVERIFY2(seen.insert(t.name).second, std::string(t.name).c_str());
            QVERIFY(methods::methodOfRun(t.name) == t.method);
            QCOMPARE(methods::nameOf(t.method), std::string(t.name));
            if (!t.lambdaKind.empty()) QVERIFY(methods::methodOfLambdaKind(t.lambdaKind) == t.method);
        }
        QCOMPARE(methods::allMethodNames(), (std::vector<std::string>{"dp-mixmin", "uniform", "random-search",
                                                                      "random-init", "non-private-mixmin"}));
        QVERIFY(!methods::methodOfRun("proxy"));
        QVERIFY(!methods::methodOfLambdaKind(""));
        QVERIFY(!methods::methodOfLambdaKind("made-up"));
    }

    void dpMixMinPretrainsOnItsReleaseAndFineTunesOnSplitB() {
        const auto c = sampleChoices();
        const auto plan = methods::planMethod(Method::DpMixMin, c);
        QVERIFY(plan.lambda && *plan.lambda == c.lambdaPrivate);
        QCOMPARE(plan.mixtureEntries.size(), std::size_t(1));
        QCOMPARE(plan.mixtureEntries[0].sigma, 2.0);
        QCOMPARE(plan.lambdaKind, std::string("private"));
        QCOMPARE(plan.finetuneSplit(), std::string("B"));
        QVERIFY(plan.lambdaPerEpsilon);
        QVERIFY(plan.release);
    }

    void theBaselinesPlansAreAsDefined() {
        const auto c = sampleChoices();
        const auto uniform = methods::planMethod(Method::Uniform, c);
        QVERIFY(uniform.lambda && *uniform.lambda == c.lambdaUniform);
        QVERIFY(uniform.mixtureEntries.empty());  // chosen without looking at data: nothing to charge
        QCOMPARE(uniform.finetuneSplit(), std::string("train"));
        QVERIFY(uniform.release && !uniform.lambdaPerEpsilon);

        const auto search = methods::planMethod(Method::RandomSearch, c);
        QVERIFY(search.lambda && *search.lambda == c.lambdaRandomSearch);
        QCOMPARE(search.mixtureEntries.size(), std::size_t(1));
        QVERIFY(search.mixtureEntries[0].mechanism == privacy::MechanismKind::NonPrivate);
        QCOMPARE(search.mixtureEntries[0].split, std::string("A"));
        QCOMPARE(search.finetuneSplit(), std::string("B"));  // split A was looked at: fine-tune on B
        QVERIFY(!search.release);

        const auto star = methods::planMethod(Method::NonPrivateMixMin, c);
        QVERIFY(star.lambda && *star.lambda == c.lambdaStar);
        QCOMPARE(star.mixtureEntries.size(), std::size_t(1));
        QVERIFY(star.mixtureEntries[0].mechanism == privacy::MechanismKind::NonPrivate);
        QCOMPARE(star.lambdaKind, std::string("non-private"));
        QCOMPARE(star.finetuneSplit(), std::string("train"));
        QVERIFY(!star.release);

        const auto init = methods::planMethod(Method::RandomInit, c);
        QVERIFY(!init.lambda);
        QVERIFY(init.mixtureEntries.empty());
        QVERIFY(init.lambdaKind.empty());
        QCOMPARE(init.finetuneSplit(), std::string("train"));
        QVERIFY(init.release);
    }

    void aNonPrivateChoiceMakesTheLedgerInfinite() {
        for (Method m : {Method::RandomSearch, Method::NonPrivateMixMin}) {
            privacy::Ledger ledger;
            for (const auto& e : methods::planMethod(m, sampleChoices()).mixtureEntries) ledger.record(e);
            QVERIFY(std::isinf(ledger.total().epsilon));
        }
    }

    void aNonPrivateChoiceNamesTheStudysUnit() {
        for (auto unit : {privacy::PrivacyUnit::Example, privacy::PrivacyUnit::User}) {
            methods::MixtureChoices c = sampleChoices();
            c.unit = unit;
            for (Method m : {Method::RandomSearch, Method::NonPrivateMixMin}) {
                const auto entries = methods::planMethod(m, c).mixtureEntries;
                QCOMPARE(entries.size(), std::size_t{1});
                QVERIFY(entries.front().unit == unit);
                QVERIFY(entries.front().mechanism == privacy::MechanismKind::NonPrivate);
            }
        }
    }

    void thePapersOrder() {
        std::vector<Method> all;
        for (const auto& t : methods::allMethods()) all.push_back(t.method);
        std::stable_sort(all.begin(), all.end(),
                         [](Method a, Method b) { return methods::paperRank(a) < methods::paperRank(b); });
        QVERIFY(all == (std::vector<Method>{Method::DpMixMin, Method::NonPrivateMixMin, Method::RandomSearch,
                                            Method::Uniform, Method::RandomInit}));
    }
};

QTEST_APPLESS_MAIN(TestMethodPlan)
#include "tst_method_plan.moc"
