// ρ split and train/validation/test split: sizes, disjointness, user boundaries, strata, seeds.
#include "engine/data/splits.h"

#include <QtTest>

#include <algorithm>
#include <set>

using namespace dpmix::data;

namespace {
bool disjointCover(const std::vector<std::vector<std::size_t>>& parts, std::size_t n) {
    std::vector<int> seen(n, 0);
    for (const auto& p : parts) {
        if (!std::is_sorted(p.begin(), p.end())) return false;
        for (std::size_t i : p) ++seen[i];
    }
    return std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; });
}
}  // namespace

class TestSplits : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void exampleLevelSizesAndDeterminism() {
        auto a = rhoSplit(1000, 0.1, 42);
        QVERIFY(a.ok());
        QCOMPARE(a->first.size(), std::size_t(100));
        QCOMPARE(a->second.size(), std::size_t(900));
        QVERIFY(disjointCover({a->first, a->second}, 1000));
        auto again = rhoSplit(1000, 0.1, 42);
        QCOMPARE(again->first, a->first);
        auto other = rhoSplit(1000, 0.1, 43);
        QVERIFY(other->first != a->first);
        // round(0.25 · 10) = 3 (llround rounds half away from zero: 2.5 → 3)
        QCOMPARE(rhoSplit(10, 0.25, 1)->first.size(), std::size_t(3));
    }
    void userLevelKeepsUsersTogether() {
        // 10 users with 1..10 examples each (55 examples).
        SplitGrouping g;
        for (int u = 0; u < 10; ++u)
            for (int k = 0; k <= u; ++k) g.users.push_back("user" + std::to_string(u));
        for (std::uint64_t seed = 0; seed < 50; ++seed) {
            auto s = rhoSplit(g.users.size(), 0.3, seed, g);
            QVERIFY(s.ok());
            QVERIFY(disjointCover({s->first, s->second}, g.users.size()));
            std::set<std::string> a, b;
            for (std::size_t i : s->first) a.insert(g.users[i]);
            for (std::size_t i : s->second) b.insert(g.users[i]);
            QCOMPARE(a.size(), std::size_t(3));  // round(0.3 · 10) users
            QCOMPARE(b.size(), std::size_t(7));
            for (const auto& u : a) QVERIFY(!b.count(u));
        }
    }
    void stratifiedKeepsLabelProportions() {
        SplitGrouping g;
        for (int i = 0; i < 90; ++i) g.strata.push_back(i < 60 ? 0 : (i < 80 ? 1 : 2));  // 60/20/10
        auto s = splitByFraction(90, 0.2, 7, g);
        QVERIFY(s.ok());
        int count[3] = {0, 0, 0};
        for (std::size_t i : s->first) ++count[g.strata[i]];
        QCOMPARE(count[0], 12);
        QCOMPARE(count[1], 4);
        QCOMPARE(count[2], 2);
    }
    void trainValidationTest() {
        auto s = trainValidationTestSplit(1000, 5);
        QVERIFY(s.ok());
        QCOMPARE(s->train.size(), std::size_t(800));
        QCOMPARE(s->validation.size(), std::size_t(100));
        QCOMPARE(s->test.size(), std::size_t(100));
        QVERIFY(disjointCover({s->train, s->validation, s->test}, 1000));
        QCOMPARE(trainValidationTestSplit(1000, 5)->test, s->test);
        // The ρ split of the same run seed uses another stream: not the same 10% as validation.
        QVERIFY(rhoSplit(1000, 0.1, 5)->first != s->validation);
        SplitGrouping g;
        for (int i = 0; i < 200; ++i) g.users.push_back("u" + std::to_string(i % 40));
        auto users = trainValidationTestSplit(200, 9, g);
        QVERIFY(users.ok());
        std::set<std::string> tr, va, te;
        for (std::size_t i : users->train) tr.insert(g.users[i]);
        for (std::size_t i : users->validation) va.insert(g.users[i]);
        for (std::size_t i : users->test) te.insert(g.users[i]);
        QCOMPARE(tr.size(), std::size_t(32));
        QCOMPARE(va.size() + te.size(), std::size_t(8));
        for (const auto& u : va) QVERIFY(!tr.count(u) && !te.count(u));
    }
    void badInputs() {
        QVERIFY(rhoSplit(10, 0.0, 1).error().message.find("expected a value in (0, 1)") != std::string::npos);
        QVERIFY(!rhoSplit(10, 1.0, 1).ok());
        QVERIFY(!rhoSplit(10, std::nan(""), 1).ok());
        QVERIFY(rhoSplit(0, 0.5, 1).error().message.find("empty data set") != std::string::npos);
        QVERIFY(rhoSplit(3, 0.01, 1).error().message.find("leaves one part empty") != std::string::npos);
        SplitGrouping wrongLength{{"a", "b"}, {}};
        QVERIFY(rhoSplit(3, 0.5, 1, wrongLength).error().message.find("expected one per example") != std::string::npos);
        SplitGrouping emptyUser{{"a", "", "b"}, {}};
        QVERIFY(rhoSplit(3, 0.5, 1, emptyUser).error().message.find("example 1 has no user id") != std::string::npos);
        SplitGrouping oneUser{{"a", "a", "a"}, {}};
        QVERIFY(rhoSplit(3, 0.5, 1, oneUser).error().message.find("users leaves one part without users") != std::string::npos);
        SplitGrouping both{{"a", "b"}, {0, 1}};
        QVERIFY(rhoSplit(2, 0.5, 1, both).error().message.find("only available for example-level") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestSplits)
#include "tst_splits.moc"
