// stages.finetune.mechanism = "adamix-r" in a spec (docs/ADAMIX.md, "As a study's fine-tuning
// mechanism"): its keys parse, default and round-trip; every bad input gives one message that
// names the field and says what is expected.
#include "engine/project/spec_json.h"

#include <nlohmann/json.hpp>

#include "tests/support/unit_test.h"

#include <filesystem>
#include <fstream>

using namespace dpmix;
using namespace dpmix::project;
using dpmix::test_support::TempDir;
using namespace std::string_literals;
using Json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

Json adamixSpec() {
    return Json::parse(R"({
      "name": "toy",
      "public_sources": [
        {"name": "pub", "loader": "idx", "path": "pub-images.idx",
         "options": {"labels": "pub-labels.idx", "classes": "a,b,c"}},
        {"name": "shots", "loader": "idx", "path": "pub-images.idx",
         "options": {"labels": "pub-labels.idx", "classes": "a,b,c"}}
      ],
      "sensitive": {"name": "priv", "loader": "idx", "path": "pub-images.idx",
                    "options": {"classes": "a,b,c", "labels": "pub-labels.idx"}, "user_level": false},
      "tasks": {"public": [{"name": "ab", "classes": ["a", "b"], "source": "pub"},
                           {"name": "c", "classes": ["c"], "source": "pub"},
                           {"name": "a", "classes": ["a"], "source": "shots"}],
                "sensitive": [{"name": "bc", "classes": ["b", "c"]}]},
      "privacy": {"epsilon": 1, "delta": 1e-5, "rho": 0.1},
      "stages": {"finetune": {"mechanism": "adamix-r", "public_shots": 5, "shots_source": "shots"}},
      "seeds": [0]
    })");
}

}  // namespace

class TestSpecAdamix : public QObject {
    Q_OBJECT
    TempDir dir_;

    Result<ProjectSpec> parse(const Json& j) const {
        return parseProjectSpec(j.dump(), {fs::path(dir_.path()), fs::path(dir_.path()), true}, "toy.json");
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        std::ofstream(fs::path(dir_.path()) / "pub-images.idx") << "x";
        std::ofstream(fs::path(dir_.path()) / "pub-labels.idx") << "x";
    }

    void parsesWithAdamixDefaults() {
        auto spec = parse(adamixSpec());
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().message.c_str());
        const FinetuneStage& f = spec->finetune;
        QVERIFY(f.adamix());
        QCOMPARE(f.publicShots, 5LL);
        QCOMPARE(f.shotsSource, std::string("shots"));
        QVERIFY(!f.rank);
        QCOMPARE(f.clipQuantile, 0.5);
        QCOMPARE(f.adamixQ, 1.0);
        // T and η default to AdaMix-R's (docs/ADAMIX.md), not DP-SGD's 1000 and 1e-4.
        QCOMPARE(f.steps, 200LL);
        QCOMPARE(f.lr, 1.0);
    }

    void parsesEveryKeyAndRoundTrips() {
        Json j = adamixSpec();
        j["stages"]["finetune"] = Json::parse(R"({"mechanism": "adamix-r", "public_shots": 3, "shots_source": "pub",
            "rank": 6, "clip_quantile": 0.75, "q": 0.5, "steps": 40, "lr": 0.5})");
        auto spec = parse(j);
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().message.c_str());
        const FinetuneStage& f = spec->finetune;
        QCOMPARE(f.publicShots, 3LL);
        QCOMPARE(f.shotsSource, std::string("pub"));
        QVERIFY(f.rank && *f.rank == 6);
        QCOMPARE(f.clipQuantile, 0.75);
        QCOMPARE(f.adamixQ, 0.5);
        QCOMPARE(f.steps, 40LL);
        QCOMPARE(f.lr, 0.5);

        const std::string text = projectSpecToJson(*spec);
        const Json written = Json::parse(text)["stages"]["finetune"];
        QVERIFY(!written.contains("clip"));  // AdaMix-R uses neither: the parser refuses them
        QVERIFY(!written.contains("batch"));
        QCOMPARE(written["rank"].get<long long>(), 6LL);
        auto again = parseProjectSpec(text, {fs::path(dir_.path()), fs::path(dir_.path()), false}, "again");
        QVERIFY2(again.ok(), again.ok() ? "" : again.error().message.c_str());
        QCOMPARE(projectSpecToJson(*again), text);
        QCOMPARE(again->finetune.publicShots, 3LL);
        QCOMPARE(again->finetune.shotsSource, std::string("pub"));
        QCOMPARE(again->finetune.clipQuantile, 0.75);
        QCOMPARE(again->finetune.adamixQ, 0.5);

        // The defaults round-trip too (rank unset stays unset).
        auto plain = parse(adamixSpec());
        QVERIFY(plain.ok());
        auto back =
            parseProjectSpec(projectSpecToJson(*plain), {fs::path(dir_.path()), fs::path(dir_.path()), false}, "b");
        QVERIFY(back.ok());
        QVERIFY(!back->finetune.rank);
        QCOMPARE(back->finetune.steps, 200LL);
        QCOMPARE(projectSpecToJson(*back), projectSpecToJson(*plain));
    }

    void badInputNamesTheField_data() {
        QTest::addColumn<std::string>("pointer");
        QTest::addColumn<std::string>("value");  // JSON; "REMOVE" removes the key
        QTest::addColumn<std::string>("expected");
        QTest::newRow("mechanism unknown")
            << "/stages/finetune/mechanism"s
            << "\"adamix\""s
            << "stages.finetune.mechanism: \"adamix\" is not allowed: expected \"dp-sgd\", \"dirichlet\" or \"adamix-r\""s;
        QTest::newRow("shots missing")
            << "/stages/finetune/public_shots"s
            << "REMOVE"s
            << "stages.finetune.public_shots: missing (expected the number of labelled public images per class"s;
        QTest::newRow("shots zero")
            << "/stages/finetune/public_shots"s
            << "0"s
            << "stages.finetune.public_shots: 0 is out of range: expected a number of labelled public images per class, an integer in [1, 1e5]"s;
        QTest::newRow("shots fractional") << "/stages/finetune/public_shots"s
                                          << "2.5"s
                                          << "stages.finetune.public_shots: 2.5 is a number: expected an integer"s;
        QTest::newRow("source missing")
            << "/stages/finetune/shots_source"s
            << "REMOVE"s
            << "stages.finetune.shots_source: missing (expected the name of the public source"s;
        QTest::newRow("source unknown")
            << "/stages/finetune/shots_source"s
            << "\"emnist\""s
            << "stages.finetune.shots_source: \"emnist\" is not a public source of this spec (public sources: \"pub\", \"shots\")"s;
        QTest::newRow("source sensitive")
            << "/stages/finetune/shots_source"s
            << "\"priv\""s
            << "stages.finetune.shots_source: \"priv\" is not a public source of this spec"s;
        QTest::newRow("rank zero") << "/stages/finetune/rank"s
                                   << "0"s
                                   << "stages.finetune.rank: 0 is out of range: expected a subspace rank"s;
        QTest::newRow("quantile zero") << "/stages/finetune/clip_quantile"s
                                       << "0"s
                                       << "stages.finetune.clip_quantile: 0 is out of range: expected the quantile"s;
        QTest::newRow("quantile above one") << "/stages/finetune/clip_quantile"s
                                            << "1.5"s
                                            << "stages.finetune.clip_quantile: 1.5 is out of range"s;
        QTest::newRow("q above one") << "/stages/finetune/q"s
                                     << "2"s
                                     << "stages.finetune.q: 2 is out of range: expected a Poisson sampling rate"s;
        QTest::newRow("clip given") << "/stages/finetune/clip"s
                                    << "1.0"s
                                    << "stages.finetune.clip: is not used by \"adamix-r\""s;
        QTest::newRow("batch given") << "/stages/finetune/batch"s
                                     << "64"s
                                     << "stages.finetune.batch: is not used by \"adamix-r\""s;
        QTest::newRow("user group given") << "/stages/finetune/user_group_size"s
                                          << "4"s
                                          << "stages.finetune.user_group_size: is not used by \"adamix-r\""s;
        QTest::newRow("steps zero") << "/stages/finetune/steps"s
                                    << "0"s
                                    << "stages.finetune.steps: 0 is out of range"s;
        QTest::newRow("epsilon zero") << "/privacy/epsilon"s
                                      << "0"s
                                      << "privacy.epsilon: 0 is out of range: expected ε in [1e-9, 1e6]"s;
        QTest::newRow("epsilon negative") << "/privacy/epsilon"s
                                          << "[1, -2]"s
                                          << "privacy.epsilon[1]: -2 is out of range: expected ε in [1e-9, 1e6]"s;
        QTest::newRow("user level")
            << "/sensitive/user_level"s
            << "true"s
            << "stages.finetune.mechanism: \"adamix-r\" cannot protect users: AdaMix-R's accounting is example-level"s;
        QTest::newRow("text study")
            << "/sensitive/loader"s
            << "\"jsonl\""s
            << "stages.finetune.mechanism: \"adamix-r\" trains a head on an image model's frozen features"s;
    }

    void badInputNamesTheField() {
        QFETCH(std::string, pointer);
        QFETCH(std::string, value);
        QFETCH(std::string, expected);
        Json j = adamixSpec();
        if (value == "REMOVE") {
            const auto ptr = Json::json_pointer(pointer);
            j[ptr.parent_pointer()].erase(ptr.back());
        } else {
            j[Json::json_pointer(pointer)] = Json::parse(value);
        }
        auto spec = parse(j);
        QVERIFY2(!spec.ok(), ("accepted: " + pointer + " = " + value).c_str());
        const std::string message = spec.error().message;
        QVERIFY2(message.rfind("toy.json: " + expected, 0) == 0, message.c_str());
    }

    void adamixKeysNeedTheMechanism_data() {
        QTest::addColumn<std::string>("key");
        QTest::newRow("public_shots") << "public_shots"s;
        QTest::newRow("shots_source") << "shots_source"s;
        QTest::newRow("rank") << "rank"s;
        QTest::newRow("clip_quantile") << "clip_quantile"s;
        QTest::newRow("q") << "q"s;
    }

    void adamixKeysNeedTheMechanism() {
        QFETCH(std::string, key);
        Json j = adamixSpec();
        j["stages"]["finetune"] = Json::parse(R"({"mechanism": "dp-sgd", "clip": 1.0})");
        j["stages"]["finetune"][key] = key == "shots_source" ? Json("pub") : Json(1);
        auto spec = parse(j);
        QVERIFY(!spec.ok());
        QCOMPARE(spec.error().message, "toy.json: stages.finetune." + key +
                                           ": is used only by mechanism \"adamix-r\" (this stage's mechanism is "
                                           "\"dp-sgd\"): remove it or set stages.finetune.mechanism");
    }
};

QTEST_APPLESS_MAIN(TestSpecAdamix)
#include "tst_spec_adamix.moc"
