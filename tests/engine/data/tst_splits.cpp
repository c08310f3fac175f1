// ρ split and train/validation/test split: stable per unit (adding or removing a unit moves no
// other unit), sizes within their binomial range, disjointness, user boundaries, seeds, errors.
#include "engine/data/source_loader.h"
#include "engine/data/splits.h"

#include "tests/support/unit_test.h"

#include <algorithm>
#include <cmath>
#include <map>
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

// Binomial(n, p) within 6 standard deviations.
bool plausibleCount(std::size_t count, std::size_t n, double p) {
    return std::fabs(static_cast<double>(count) - n * p) <= 6.0 * std::sqrt(n * p * (1 - p));
}

std::vector<std::string> keysFor(std::size_t n, std::size_t offset = 0) {
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < n; ++i) keys.push_back("example-content-" + std::to_string(i + offset));
    return keys;
}

// Side of each unit identity under a two-way split.
std::map<std::string, int> sides(const TwoWaySplit& s, const std::vector<std::string>& identity) {
    std::map<std::string, int> out;
    for (std::size_t i : s.first) out[identity[i]] = 0;
    for (std::size_t i : s.second) out[identity[i]] = 1;
    return out;
}

std::map<std::string, int> sides(const ThreeWaySplit& s, const std::vector<std::string>& identity) {
    std::map<std::string, int> out;
    for (std::size_t i : s.train) out[identity[i]] = 0;
    for (std::size_t i : s.validation) out[identity[i]] = 1;
    for (std::size_t i : s.test) out[identity[i]] = 2;
    return out;
}

// Units present in both maps whose side differs.
int moved(const std::map<std::string, int>& a, const std::map<std::string, int>& b) {
    int count = 0;
    for (const auto& [unit, side] : a)
        if (auto it = b.find(unit); it != b.end() && it->second != side) ++count;
    return count;
}
}  // namespace

class TestSplits : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void exampleLevelSizesAndDeterminism() {
        SplitGrouping g{{}, keysFor(10000)};
        auto a = rhoSplit(10000, 0.1, 42, g);
        QVERIFY(a.ok());
        QVERIFY(plausibleCount(a->first.size(), 10000, 0.1));
        QVERIFY(disjointCover({a->first, a->second}, 10000));
        QCOMPARE(rhoSplit(10000, 0.1, 42, g)->first, a->first);
        QVERIFY(rhoSplit(10000, 0.1, 43, g)->first != a->first);
        // Without keys the index is the identity.
        auto byIndex = rhoSplit(10000, 0.1, 42);
        QVERIFY(byIndex.ok() && plausibleCount(byIndex->first.size(), 10000, 0.1));
    }

    void addingOrRemovingOneUnitMovesNoOtherUnit() {
        // The acceptance test of stability, for the ρ split and train/validation/test, at example
        // level (content keys) and user level (several examples per user).
        for (std::uint64_t seed = 0; seed < 5; ++seed) {
            const std::vector<std::string> keys = keysFor(5000);
            std::vector<std::string> plusOne = keys;
            plusOne.insert(plusOne.begin() + 1234, "a new example");  // anywhere, not only at the end
            std::vector<std::string> minusOne = keys;
            minusOne.erase(minusOne.begin() + 77);
            const auto base = sides(*rhoSplit(keys.size(), 0.1, seed, {{}, keys}), keys);
            QCOMPARE(moved(base, sides(*rhoSplit(plusOne.size(), 0.1, seed, {{}, plusOne}), plusOne)), 0);
            QCOMPARE(moved(base, sides(*rhoSplit(minusOne.size(), 0.1, seed, {{}, minusOne}), minusOne)), 0);
            const auto base3 = sides(*trainValidationTestSplit(keys.size(), seed, {{}, keys}), keys);
            QCOMPARE(moved(base3, sides(*trainValidationTestSplit(plusOne.size(), seed, {{}, plusOne}), plusOne)), 0);
            QCOMPARE(moved(base3, sides(*trainValidationTestSplit(minusOne.size(), seed, {{}, minusOne}), minusOne)),
                     0);

            std::vector<std::string> users;
            for (int u = 0; u < 800; ++u)
                for (int k = 0; k < 1 + u % 4; ++k) users.push_back("patient-" + std::to_string(u));
            std::vector<std::string> moreUsers = users;
            moreUsers.insert(moreUsers.begin() + 10, 3, "a new patient");
            std::vector<std::string> fewerUsers;
            for (const auto& u : users)
                if (u != "patient-5") fewerUsers.push_back(u);
            const auto ub = sides(*rhoSplit(users.size(), 0.3, seed, {users, {}}), users);
            QCOMPARE(moved(ub, sides(*rhoSplit(moreUsers.size(), 0.3, seed, {moreUsers, {}}), moreUsers)), 0);
            QCOMPARE(moved(ub, sides(*rhoSplit(fewerUsers.size(), 0.3, seed, {fewerUsers, {}}), fewerUsers)), 0);
            const auto ub3 = sides(*trainValidationTestSplit(users.size(), seed, {users, {}}), users);
            QCOMPARE(moved(ub3, sides(*trainValidationTestSplit(moreUsers.size(), seed, {moreUsers, {}}), moreUsers)),
                     0);
            QCOMPARE(
                moved(ub3, sides(*trainValidationTestSplit(fewerUsers.size(), seed, {fewerUsers, {}}), fewerUsers)), 0);
        }
    }

    void userLevelKeepsUsersTogether() {
        SplitGrouping g;
        for (int u = 0; u < 300; ++u)
            for (int k = 0; k <= u % 5; ++k) g.users.push_back("user" + std::to_string(u));
        for (std::uint64_t seed = 0; seed < 20; ++seed) {
            auto s = rhoSplit(g.users.size(), 0.3, seed, g);
            QVERIFY(s.ok());
            QVERIFY(disjointCover({s->first, s->second}, g.users.size()));
            std::set<std::string> a, b;
            for (std::size_t i : s->first) a.insert(g.users[i]);
            for (std::size_t i : s->second) b.insert(g.users[i]);
            QCOMPARE(a.size() + b.size(), std::size_t(300));  // no user on both sides
            QVERIFY(plausibleCount(a.size(), 300, 0.3));
        }
    }

    void trainValidationTest() {
        const auto keys = keysFor(20000);
        auto s = trainValidationTestSplit(keys.size(), 5, {{}, keys});
        QVERIFY(s.ok());
        QVERIFY(plausibleCount(s->train.size(), 20000, 0.8));
        QVERIFY(plausibleCount(s->validation.size(), 20000, 0.1));
        QVERIFY(plausibleCount(s->test.size(), 20000, 0.1));
        QVERIFY(disjointCover({s->train, s->validation, s->test}, 20000));
        QCOMPARE(trainValidationTestSplit(keys.size(), 5, {{}, keys})->test, s->test);
        // The ρ split of the same run seed uses another stream: not the same 10% as validation.
        QVERIFY(rhoSplit(keys.size(), 0.1, 5, {{}, keys})->first != s->validation);
        SplitGrouping g;
        for (int i = 0; i < 2000; ++i) g.users.push_back("u" + std::to_string(i % 400));
        auto users = trainValidationTestSplit(2000, 9, g);
        QVERIFY(users.ok());
        std::set<std::string> tr, va, te;
        for (std::size_t i : users->train) tr.insert(g.users[i]);
        for (std::size_t i : users->validation) va.insert(g.users[i]);
        for (std::size_t i : users->test) te.insert(g.users[i]);
        QCOMPARE(tr.size() + va.size() + te.size(), std::size_t(400));
        QVERIFY(plausibleCount(tr.size(), 400, 0.8));
        for (const auto& u : va) QVERIFY(!tr.count(u) && !te.count(u));
    }

    void contentKeysFollowTheContent() {
        ImageDataset d;
        d.channels = 1;
        d.height = d.width = 2;
        d.pixels = {0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0};
        d.labelNames = {"x"};
        d.labels = {0, 1, 1};
        const auto keys = contentKeys(d);
        QCOMPARE(keys.size(), std::size_t(3));
        QVERIFY(keys[0] != keys[1]);
        QVERIFY(keys[0] != keys[2]);  // same pixels, another label
        d.labels = {0, 1, 0};
        QCOMPARE(contentKeys(d)[2], keys[0]);  // identical examples share a key (and a side)
    }

    void badInputs() {
        QVERIFY(rhoSplit(10, 0.0, 1).error().message.find("expected a value in (0, 1)") != std::string::npos);
        QVERIFY(!rhoSplit(10, 1.0, 1).ok());
        QVERIFY(!rhoSplit(10, std::nan(""), 1).ok());
        QVERIFY(rhoSplit(0, 0.5, 1).error().message.find("empty data set") != std::string::npos);
        QVERIFY(rhoSplit(3, 1e-9, 1).error().message.find("leaves one part empty") != std::string::npos);
        SplitGrouping wrongLength{{"a", "b"}, {}};
        QVERIFY(rhoSplit(3, 0.5, 1, wrongLength).error().message.find("expected one per example") != std::string::npos);
        SplitGrouping wrongKeys{{}, {"a", "b"}};
        QVERIFY(rhoSplit(3, 0.5, 1, wrongKeys).error().message.find("expected one per example") != std::string::npos);
        SplitGrouping emptyUser{{"a", "", "b"}, {}};
        QVERIFY(rhoSplit(3, 0.5, 1, emptyUser).error().message.find("example 1 has no user id") != std::string::npos);
        SplitGrouping oneUser{{"a", "a", "a"}, {}};
        QVERIFY(rhoSplit(3, 0.5, 1, oneUser).error().message.find("users leaves one part without users") !=
                std::string::npos);
        SplitGrouping both{{"a", "b"}, {"k", "l"}};
        QVERIFY(rhoSplit(2, 0.5, 1, both).error().message.find("not both") == std::string::npos);
        QVERIFY(rhoSplit(2, 0.5, 1, both).error().message.find("user ids (user level) or example keys") !=
                std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestSplits)
#include "tst_splits.moc"
