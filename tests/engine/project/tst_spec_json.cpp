// The spec JSON builder: a valid spec parses to the right values and round-trips; every kind
// of bad input gives one message naming the JSON path and the value. What a spec accepts of its
// data sources (declared label sets, the loaders, shifts) is tst_spec_sources.
#include "engine/project/spec_json.h"
#include "tests/engine/project/spec_json_fixture.h"

#include <nlohmann/json.hpp>

#include "tests/support/unit_test.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace dpmix;
using namespace dpmix::project;
using namespace dpmix::project::spec_testing;
using namespace std::string_literals;
using Json = nlohmann::json;
namespace fs = std::filesystem;

class TestSpecJson : public QObject, spec_testing::SpecJsonFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(makeDataFiles()); }

    void parsesAValidSpec() {
        auto spec = parse(validSpec());
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().message.c_str());
        QCOMPARE(spec->name, std::string("toy"));
        QCOMPARE(spec->publicSources.size(), std::size_t(1));
        QCOMPARE(spec->publicSources[0].written.path, std::string("pub-images.idx"));
        QCOMPARE(spec->publicSources[0].resolved.path, (specDir_ / "pub-images.idx").string());
        QCOMPARE(spec->publicSources[0].resolved.options.at("labels"), (specDir_ / "pub-labels.idx").string());
        QCOMPARE(spec->publicSources[0].resolved.options.at("classes"), std::string("a,b,c"));  // not a path option
        QCOMPARE(spec->sensitive.resolved.path, (dataDir_ / "shared" / "priv-images.idx").string());
        QCOMPARE(spec->sensitive.resolved.options.at("labels"), (dataDir_ / "shared" / "priv-labels.idx").string());
        QCOMPARE(spec->publicTasks.size(), std::size_t(2));
        QCOMPARE(spec->mixtureComponents(), std::size_t(2));
        QCOMPARE(spec->sensitiveTasks[0].classes, (std::vector<std::string>{"b", "c"}));
        QCOMPARE(spec->privacy.epsilons, std::vector<double>{1.0});
        QCOMPARE(spec->privacy.delta, 1e-5);
        QCOMPARE(spec->privacy.rho, 0.1);
        QCOMPARE(spec->mixture.batch, 1000LL);
        QCOMPARE(spec->finetune.lr, 0.001);
        QCOMPARE(spec->pretrain.steps, 200LL);
        QCOMPARE(spec->seeds, (std::vector<long long>{0, 1, 2}));
    }

    void roundTrips() {
        Json j = validSpec();
        j["privacy"]["epsilon"] = {1, 2, 5};
        j["privacy"]["composition"] = "sequential";
        j["stages"]["mixture"]["user_group_size"] = 15;
        auto spec = parse(j);
        QVERIFY(spec.ok());
        const std::string once = projectSpecToJson(*spec);
        auto again = parseProjectSpec(once, where(), "export");
        QVERIFY2(again.ok(), again.ok() ? "" : again.error().message.c_str());
        QCOMPARE(projectSpecToJson(*again), once);
        QCOMPARE(again->privacy.epsilons, (std::vector<double>{1, 2, 5}));
        QVERIFY(again->privacy.composition == privacy::Composition::Sequential);
        QCOMPARE(again->mixture.userGroupSize, 15LL);
        // The export equals the input up to key order and explicit defaults.
        Json exported = Json::parse(once);
        QCOMPARE(exported["public_sources"], j["public_sources"]);
        QCOMPARE(exported["tasks"], j["tasks"]);
        QCOMPARE(exported["seeds"], j["seeds"]);
        Json privacyWithDefaults = j["privacy"];
        privacyWithDefaults["accountant"] = "prv";  // a new project's accountant, stored explicitly
        QCOMPARE(exported["privacy"], privacyWithDefaults);
    }

    void severalPublicSourcesNameTheirTasksSource() {
        Json j = validSpec();
        j["public_sources"].push_back(Json{{"name", "digits"},
                                           {"loader", "idx"},
                                           {"path", "pub-images.idx"},
                                           {"resize", "bilinear"},
                                           {"colour", "replicate"}});
        // Without a source, a public task is ambiguous.
        auto ambiguous = parse(j);
        QVERIFY(!ambiguous.ok());
        QVERIFY2(ambiguous.error().message.find("tasks.public[0].source: missing: this study has 2 public sources "
                                                "(\"pub\", \"digits\")") != std::string::npos,
                 ambiguous.error().message.c_str());
        j["tasks"]["public"][0]["source"] = "pub";
        j["tasks"]["public"][1]["source"] = "pub";
        // The same task name on two sources is two components ("pub / c", "digits / c").
        j["tasks"]["public"].push_back(Json{{"name", "c"}, {"classes", {"c"}}, {"source", "digits"}});
        auto spec = parse(j);
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().message.c_str());
        QCOMPARE(spec->publicTasks[2].source, std::string("digits"));
        QCOMPARE(spec->publicSources[1].resize, std::string("bilinear"));
        QCOMPARE(spec->publicSources[1].colour, std::string("replicate"));
        QCOMPARE(spec->mixtureComponents(), std::size_t(3));
        // Round trip keeps the sources and rules; a one-source spec writes neither (roundTrips).
        const std::string once = projectSpecToJson(*spec);
        QCOMPARE(Json::parse(once)["tasks"], j["tasks"]);
        QCOMPARE(Json::parse(once)["public_sources"][1]["resize"], Json("bilinear"));
        auto again = parseProjectSpec(once, where(), "export");
        QVERIFY(again.ok());
        QCOMPARE(projectSpecToJson(*again), once);
        // A repeated task name within one source is still refused.
        j["tasks"]["public"].push_back(Json{{"name", "c"}, {"classes", {"a"}}, {"source", "digits"}});
        auto repeated = parse(j);
        QVERIFY(!repeated.ok());
        QVERIFY2(repeated.error().message.find("tasks.public[3].name: \"c\" is used by an earlier task of source "
                                               "\"digits\"") != std::string::npos,
                 repeated.error().message.c_str());
    }

    void theMixtureReleasesTheLastIterateOrTheAverage() {
        Json j = validSpec();
        QVERIFY(!parse(j)->mixture.releaseAverage);  // the paper's: the last iterate
        QVERIFY(Json::parse(projectSpecToJson(*parse(j)))["stages"]["mixture"].count("release") == 0);
        j["stages"]["mixture"]["release"] = "average";
        auto spec = parse(j);
        QVERIFY(spec.ok() && spec->mixture.releaseAverage);
        QCOMPARE(Json::parse(projectSpecToJson(*spec))["stages"]["mixture"]["release"], Json("average"));
        j["stages"]["mixture"]["release"] = "mean";
        auto bad = parse(j);
        QVERIFY(!bad.ok());
        QVERIFY2(bad.error().message.find("stages.mixture.release") != std::string::npos &&
                     bad.error().message.find("\"average\"") != std::string::npos,
                 bad.error().message.c_str());
    }

    void theFinetuneModelIsTheSmallCnnOrResNet18() {
        Json j = validSpec();
        QCOMPARE(parse(j)->finetune.model, "small-cnn"s);  // the default, not written back
        QVERIFY(Json::parse(projectSpecToJson(*parse(j)))["stages"]["finetune"].count("model") == 0);
        j["stages"]["finetune"]["model"] = "resnet18";
        auto spec = parse(j);
        QVERIFY(spec.ok());
        QCOMPARE(spec->finetune.model, "resnet18"s);
        QCOMPARE(Json::parse(projectSpecToJson(*spec))["stages"]["finetune"]["model"], Json("resnet18"));
        QCOMPARE(parse(Json::parse(projectSpecToJson(*spec)))->finetune.model, "resnet18"s);
        for (const Json& bad : {Json("vgg16"), Json(18)}) {
            j["stages"]["finetune"]["model"] = bad;
            auto refused = parse(j);
            QVERIFY(!refused.ok());
            QVERIFY2(refused.error().message.find("stages.finetune.model") != std::string::npos &&
                         refused.error().message.find("\"small-cnn\" or \"resnet18\"") != std::string::npos,
                     refused.error().message.c_str());
        }
        j["stages"]["finetune"]["model"] = "resnet18";
        QCOMPARE(parse(j)->finetune.resnetWidth, 64LL);  // the standard ResNet-18, not written back
        QVERIFY(Json::parse(projectSpecToJson(*parse(j)))["stages"]["finetune"].count("resnet_width") == 0);
        j["stages"]["finetune"]["resnet_width"] = 16;
        QCOMPARE(parse(j)->finetune.resnetWidth, 16LL);
        QCOMPARE(Json::parse(projectSpecToJson(*parse(j)))["stages"]["finetune"]["resnet_width"], Json(16));
        j["stages"]["finetune"]["resnet_width"] = 12;  // GroupNorm's 8 groups must divide it
        QVERIFY(parse(j).error().message.find("stages.finetune.resnet_width: 12 is out of range") != std::string::npos);
        j["stages"]["finetune"]["resnet_width"] = 16;
        j["stages"]["finetune"]["model"] = "small-cnn";
        QVERIFY(parse(j).error().message.find("is used only by model \"resnet18\"") != std::string::npos);
        j["stages"]["finetune"].erase("resnet_width");
        j["stages"]["finetune"]["model"] = "resnet18";
        j["sensitive"]["loader"] = "spam-assassin";  // a text study has no image network to choose
        auto text = parse(j);
        QVERIFY(!text.ok());
        QVERIFY2(text.error().message.find("stages.finetune.model") != std::string::npos &&
                     text.error().message.find("not an image loader") != std::string::npos,
                 text.error().message.c_str());
    }

    void stagesHaveDefaults() {
        Json j = validSpec();
        j.erase("stages");
        j["tasks"].erase("sensitive");
        auto spec = parse(j);
        QVERIFY(spec.ok());
        QCOMPARE(spec->mixture.clip, 13.0);
        QCOMPARE(spec->mixture.batch, 1000LL);
        QCOMPARE(spec->mixture.lr, 1.0);
        QCOMPARE(spec->mixture.steps, 100LL);
        QCOMPARE(methods::nameOf(spec->finetune.mechanism), std::string("dp-sgd"));
        QVERIFY(spec->sensitiveTasks.empty());
    }

    void theAccountantDefaultsToPrvForANewProjectAndRdpWhenStored() {
        auto fresh = parse(validSpec());
        QVERIFY(fresh.ok());
        QVERIFY(fresh->privacy.accountant == privacy::Accountant::Prv);
        QVERIFY(!fresh->privacy.accountantNamed);
        // Read back from a project, a spec without the field predates PRV: RDP certified it.
        SpecLocation stored{specDir_, dataDir_, false, false, privacy::Accountant::Rdp};
        auto old = parseProjectSpec(validSpec().dump(), stored, "stored");
        QVERIFY(old.ok());
        QVERIFY(old->privacy.accountant == privacy::Accountant::Rdp);
        // Named, it is what it says, and export names it always.
        Json j = validSpec();
        j["privacy"]["accountant"] = "rdp";
        auto named = parse(j);
        QVERIFY(named.ok());
        QVERIFY(named->privacy.accountant == privacy::Accountant::Rdp);
        QVERIFY(named->privacy.accountantNamed);
        QVERIFY(projectSpecToJson(*fresh).find("\"accountant\": \"prv\"") != std::string::npos);
        auto again = parseProjectSpec(projectSpecToJson(*fresh), stored, "stored");
        QVERIFY(again.ok());
        QVERIFY(again->privacy.accountant == privacy::Accountant::Prv);
        // Anything else is refused with the path and the choices.
        j["privacy"]["accountant"] = "moments";
        auto bad = parse(j);
        QVERIFY(!bad.ok());
        QVERIFY2(bad.error().message.find("privacy.accountant") != std::string::npos &&
                     bad.error().message.find("\"prv\"") != std::string::npos,
                 bad.error().message.c_str());
    }

    void storedSpecNeedsNoFiles() {
        Json j = validSpec();
        j["sensitive"]["path"] = "nowhere/at/all.idx";
        auto spec = parseProjectSpec(j.dump(), SpecLocation{specDir_, dataDir_, false}, "stored");
        QVERIFY(spec.ok());
        QVERIFY(spec->sensitive.resolved.path.empty());
        QCOMPARE(spec->sensitive.written.path, std::string("nowhere/at/all.idx"));
    }

    void acceptsTheEdgesOfTheStageRanges() {
        Json j = validSpec();
        j["stages"]["mixture"]["clip"] = 1e6;
        j["stages"]["mixture"]["lr"] = 1e3;
        j["stages"]["mixture"]["steps"] = 10000000;
        j["stages"]["mixture"]["batch"] = 100000000;
        j["stages"]["mixture"]["user_group_size"] = 1000000;
        j["stages"]["finetune"]["clip"] = 1e-9;  // tiny but positive: allowed
        j["stages"]["finetune"]["lr"] = 1e-12;
        j["stages"]["pretrain"]["steps"] = 1;
        auto spec = parse(j);
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().message.c_str());
        QCOMPARE(spec->mixture.clip, 1e6);
        QCOMPARE(spec->mixture.steps, 10000000LL);
    }

    // The same ranges for values that reach a stage without a spec (a panel, an override).
    void checksSingleStageValues() {
        QVERIFY(!checkStageValue("stages.mixture.clip", "clip", 13.0));
        QVERIFY(!checkStageValue("stages.mixture.steps", "steps", 100));
        auto clip = checkStageValue("stages.mixture.clip", "clip", 1e308);
        QVERIFY(clip);
        QCOMPARE(clip->message,
                 std::string("stages.mixture.clip: 1e+308 is out of range: expected a clipping norm in (0, 1e6]"));
        auto lr = checkStageValue("stages.finetune.lr", "lr", std::nan(""));
        QVERIFY(lr && lr->message == "stages.finetune.lr: nan is not a finite number");
        auto steps = checkStageValue("stages.pretrain.steps", "steps", 2.5);
        QVERIFY(steps && steps->message.find("expected an integer") != std::string::npos);
        auto batch = checkStageValue("stages.finetune.batch", "batch", 1e9);
        QVERIFY2(batch && batch->message.find("1000000000 is out of range") != std::string::npos,
                 batch ? batch->message.c_str() : "accepted");
        QVERIFY(checkStageValue("stages.mixture.sigma", "sigma", 1.0));
    }

    // A project made by an older dpmix may hold a spec outside today's ranges: read back from
    // the file (checkRanges false), it still parses, so the project opens and can be inspected.
    void storedSpecOutsideTheRangesStillReads() {
        Json j = validSpec();
        j["stages"]["mixture"]["clip"] = 1e308;
        j["stages"]["finetune"]["steps"] = 100000000;
        QVERIFY(!parse(j).ok());
        auto stored = parseProjectSpec(j.dump(), SpecLocation{specDir_, dataDir_, false, false}, "stored");
        QVERIFY2(stored.ok(), stored.ok() ? "" : stored.error().message.c_str());
        QCOMPARE(stored->mixture.clip, 1e308);
        j["stages"]["mixture"]["clip"] = -1;  // the old rules still hold
        QVERIFY(!parseProjectSpec(j.dump(), SpecLocation{specDir_, dataDir_, false, false}, "stored").ok());
    }

    void lenientJsonIsRefused() {
        const std::string good = validSpec().dump();
        QVERIFY(parseProjectSpec(good, where(), "toy.json").ok());
        // A key twice: the last would silently win.
        std::string dup = good;
        dup.replace(dup.find("{"), 1, R"({"name": "first",)");
        auto twice = parseProjectSpec(dup, where(), "toy.json");
        QVERIFY(!twice.ok());
        QVERIFY2(twice.error().message.find("key \"name\" appears twice") != std::string::npos,
                 twice.error().message.c_str());
        // A NUL byte after the document.
        auto nul = parseProjectSpec(good + std::string(1, '\0') + "junk", where(), "toy.json");
        QVERIFY(!nul.ok());
        QVERIFY2(nul.error().message.find("NUL byte") != std::string::npos, nul.error().message.c_str());
        // A number beyond double range.
        std::string huge = good;
        huge.replace(huge.find(R"("epsilon":)"), std::string(R"("epsilon":)").size(), R"("epsilon":1e400,"x":)");
        auto beyond = parseProjectSpec(huge, where(), "toy.json");
        QVERIFY(!beyond.ok());
        QVERIFY2(beyond.error().message.find("1e400") != std::string::npos, beyond.error().message.c_str());
        // Nesting 100k levels deep: refused at 64, no stack overflow.
        Json deep = validSpec();
        std::string nested = deep.dump();
        const std::string inner = std::string(100000, '[') + std::string(100000, ']');
        nested.replace(nested.rfind('}'), 1, R"(, "description2": )" + inner + "}");
        auto tooDeep = parseProjectSpec(nested, where(), "toy.json");
        QVERIFY(!tooDeep.ok());
        QVERIFY2(tooDeep.error().message.find("nested more than 64 levels") != std::string::npos,
                 tooDeep.error().message.c_str());
    }

    void rejectsBadInput_data() {
        QTest::addColumn<std::string>("pointer");   // JSON pointer to change ("" = replace the whole spec)
        QTest::addColumn<std::string>("value");     // new value as JSON ("DELETE" removes the key)
        QTest::addColumn<std::string>("expected");  // substring of the message

        QTest::newRow("unknown top-level key") << "/epsilon"s
                                               << "1"s
                                               << "epsilon: unknown key"s;
        QTest::newRow("unknown privacy key") << "/privacy/sigma"s
                                             << "1"s
                                             << "privacy.sigma: unknown key"s;
        QTest::newRow("unknown stage key") << "/stages/mixture/batchsize"s
                                           << "10"s
                                           << "stages.mixture.batchsize: unknown key"s;
        QTest::newRow("epsilon zero") << "/privacy/epsilon"s
                                      << "0"s
                                      << "privacy.epsilon: 0 is out of range: expected ε in [1e-9, 1e6]"s;
        // Once a subnormal ε (1e-320) was accepted and 1e308 ended `dpmix run` in SIGABRT.
        QTest::newRow("epsilon subnormal") << "/privacy/epsilon"s
                                           << "1e-320"s
                                           << "is out of range: expected ε in [1e-9, 1e6]"s;
        QTest::newRow("epsilon huge") << "/privacy/epsilon"s
                                      << "1e308"s
                                      << "is out of range: expected ε in [1e-9, 1e6]"s;
        QTest::newRow("NUL in a name") << "/name"s
                                       << "\"ti\\u0000ny\""s
                                       << "holds a NUL character"s;
        QTest::newRow("epsilon negative in list") << "/privacy/epsilon"s
                                                  << "[1, -2]"s
                                                  << "privacy.epsilon[1]: -2 is out of range"s;
        QTest::newRow("epsilon duplicate") << "/privacy/epsilon"s
                                           << "[1, 1]"s
                                           << "privacy.epsilon[1]: 1 appears twice"s;
        QTest::newRow("epsilon string") << "/privacy/epsilon"s
                                        << "\"1\""s
                                        << "privacy.epsilon: \"1\" is a string: expected a number"s;
        QTest::newRow("delta zero") << "/privacy/delta"s
                                    << "0"s
                                    << "privacy.delta: 0 is out of range: expected a probability δ in (0, 1)"s;
        QTest::newRow("delta one") << "/privacy/delta"s
                                   << "1"s
                                   << "privacy.delta: 1 is out of range"s;
        QTest::newRow("delta 1.5") << "/privacy/delta"s
                                   << "1.5"s
                                   << "privacy.delta: 1.5 is out of range"s;
        QTest::newRow("delta missing") << "/privacy/delta"s
                                       << "DELETE"s
                                       << "privacy.delta: missing"s;
        QTest::newRow("rho one") << "/privacy/rho"s
                                 << "1.0"s
                                 << "privacy.rho: 1.0 is out of range: expected a fraction ρ in (0, 1)"s;
        QTest::newRow("rho zero") << "/privacy/rho"s
                                  << "0"s
                                  << "privacy.rho: 0 is out of range"s;
        QTest::newRow("composition") << "/privacy/composition"s
                                     << "\"serial\""s
                                     << "privacy.composition: \"serial\" is not allowed"s;
        QTest::newRow("missing file") << "/public_sources/0/path"s
                                      << "\"missing.idx\""s
                                      << "public_sources[0].path: \"missing.idx\" not found"s;
        QTest::newRow("missing option file") << "/public_sources/0/options/labels"s
                                             << "\"nolabels.idx\""s
                                             << "public_sources[0].options.labels: \"nolabels.idx\" not found"s;
        QTest::newRow("option not a string") << "/public_sources/0/options/limit"s
                                             << "100"s
                                             << "public_sources[0].options.limit: 100 is a number: expected a string"s;
        QTest::newRow("unknown loader") << "/sensitive/loader"s
                                        << "\"png\""s
                                        << "sensitive.loader: \"png\" is not a known loader"s;
        QTest::newRow("user_level type") << "/sensitive/user_level"s
                                         << "\"yes\""s
                                         << "sensitive.user_level: \"yes\" is a string: expected true or false"s;
        QTest::newRow("user_level on public") << "/public_sources/0/user_level"s
                                              << "true"s
                                              << "public_sources[0].user_level: unknown key"s;
        QTest::newRow("no public sources") << "/public_sources"s
                                           << "[]"s
                                           << "public_sources: is an empty array: expected at least one public source"s;
        QTest::newRow("duplicate source") << "/sensitive/name"s
                                          << "\"pub\""s
                                          << "sensitive.name: \"pub\" is also the name of a public source"s;
        QTest::newRow("task classes empty") << "/tasks/public/1/classes"s
                                            << "[]"s
                                            << "tasks.public[1].classes: [] is an array"s;
        QTest::newRow("task class repeated") << "/tasks/sensitive/0/classes"s
                                             << "[\"b\", \"b\"]"s
                                             << "tasks.sensitive[0].classes[1]: \"b\" appears twice"s;
        QTest::newRow("task name repeated") << "/tasks/public/1/name"s
                                            << "\"ab\""s
                                            << "tasks.public[1].name: \"ab\" is used by an earlier task"s;
        QTest::newRow("steps zero")
            << "/stages/mixture/steps"s
            << "0"s
            << "stages.mixture.steps: 0 is out of range: expected a number of steps, an integer in [1, 1e7]"s;
        QTest::newRow("batch fractional") << "/stages/finetune/batch"s
                                          << "2.5"s
                                          << "stages.finetune.batch: 2.5 is a number: expected an integer"s;
        QTest::newRow("clip negative")
            << "/stages/mixture/clip"s
            << "-1"s
            << "stages.mixture.clip: -1 is out of range: expected a clipping norm in (0, 1e6]"s;
        // Finite extremes (docs/RELIABILITY.md, item 4): they overflowed DP-MixMin into a NaN λ that was
        // stored as a finished run. Every stage value has a sane range (docs/PROJECT_FILE.md).
        QTest::newRow("mixture clip 1e308")
            << "/stages/mixture/clip"s
            << "1e308"s
            << "stages.mixture.clip: 1e+308 is out of range: expected a clipping norm in (0, 1e6]"s;
        QTest::newRow("mixture lr 1e308")
            << "/stages/mixture/lr"s
            << "1e308"s
            << "stages.mixture.lr: 1e+308 is out of range: expected a learning rate in (0, 1e3]"s;
        QTest::newRow("finetune clip")
            << "/stages/finetune/clip"s
            << "1000001"s
            << "stages.finetune.clip: 1000001 is out of range: expected a clipping norm in (0, 1e6]"s;
        QTest::newRow("finetune lr")
            << "/stages/finetune/lr"s
            << "1e308"s
            << "stages.finetune.lr: 1e+308 is out of range: expected a learning rate in (0, 1e3]"s;
        QTest::newRow("pretrain lr")
            << "/stages/pretrain/lr"s
            << "1000.5"s
            << "stages.pretrain.lr: 1000.5 is out of range: expected a learning rate in (0, 1e3]"s;
        QTest::newRow("pretrain lr zero")
            << "/stages/pretrain/lr"s
            << "0"s
            << "stages.pretrain.lr: 0 is out of range: expected a learning rate in (0, 1e3]"s;
        QTest::newRow("mixture steps")
            << "/stages/mixture/steps"s
            << "10000001"s
            << "stages.mixture.steps: 10000001 is out of range: expected a number of steps, an integer in [1, 1e7]"s;
        QTest::newRow("finetune steps")
            << "/stages/finetune/steps"s
            << "1e15"s
            << "stages.finetune.steps: 1e+15 is out of range: expected a number of steps, an integer in [1, 1e7]"s;
        QTest::newRow("pretrain steps") << "/stages/pretrain/steps"s
                                        << "-3"s
                                        << "stages.pretrain.steps: -3 is out of range: expected a number of steps"s;
        QTest::newRow("mixture batch")
            << "/stages/mixture/batch"s
            << "100000001"s
            << "stages.mixture.batch: 100000001 is out of range: expected an expected batch size, an integer in [1, 1e8]"s;
        QTest::newRow("finetune batch zero")
            << "/stages/finetune/batch"s
            << "0"s
            << "stages.finetune.batch: 0 is out of range: expected an expected batch size"s;
        QTest::newRow("pretrain batch") << "/stages/pretrain/batch"s
                                        << "1000000000"s
                                        << "stages.pretrain.batch: 1000000000 is out of range"s;
        QTest::newRow("user group size")
            << "/stages/mixture/user_group_size"s
            << "2000000"s
            << "stages.mixture.user_group_size: 2000000 is out of range: expected a user group size, an integer in [1, 1e6]"s;
        QTest::newRow("finetune user group zero") << "/stages/finetune/user_group_size"s
                                                  << "0"s
                                                  << "stages.finetune.user_group_size: 0 is out of range"s;
        QTest::newRow("mechanism") << "/stages/finetune/mechanism"s
                                   << "\"laplace\""s
                                   << "stages.finetune.mechanism: \"laplace\" is not allowed"s;
        QTest::newRow("seed negative") << "/seeds/1"s
                                       << "-1"s
                                       << "seeds[1]: -1 is out of range"s;
        QTest::newRow("seed duplicate") << "/seeds/2"s
                                        << "0"s
                                        << "seeds[2]: 0 appears twice"s;
        QTest::newRow("no seeds") << "/seeds"s
                                  << "DELETE"s
                                  << "seeds: missing"s;
        QTest::newRow("name type") << "/name"s
                                   << "3"s
                                   << "name: 3 is a number: expected a string"s;
        QTest::newRow("top level array") << ""s
                                         << "[1]"s
                                         << "(top level): [1] is an array: expected an object"s;
        // Several public sources (docs/METHODS.md, "Several public sources").
        QTest::newRow("task of an unknown source")
            << "/tasks/public/0/source"s
            << "\"digits\""s
            << "tasks.public[0].source: \"digits\" is not a public source of this spec (public sources: \"pub\")"s;
        QTest::newRow("task source on sensitive") << "/tasks/sensitive/0/source"s
                                                  << "\"pub\""s
                                                  << "tasks.sensitive[0].source: unknown key"s;
        QTest::newRow("same task with and without its source")
            << "/tasks/public/1"s
            << R"({"name": "ab", "classes": ["c"], "source": "pub"})"s
            << "tasks.public[1].name: \"ab\" is used by an earlier task of source \"pub\""s;
        QTest::newRow("resize rule")
            << "/public_sources/0/resize"s
            << "\"nearest\""s
            << "public_sources[0].resize: \"nearest\" is not a resize rule (expected \"bilinear\""s;
        QTest::newRow("colour rule") << "/public_sources/0/colour"s
                                     << "\"grey\""s
                                     << "public_sources[0].colour: \"grey\" is not a colour rule"s;
        QTest::newRow("resize on sensitive") << "/sensitive/resize"s
                                             << "\"bilinear\""s
                                             << "sensitive.resize: unknown key"s;
    }

    void rejectsBadInput() {
        QFETCH(std::string, pointer);
        QFETCH(std::string, value);
        QFETCH(std::string, expected);
        Json j = validSpec();
        const Json::json_pointer ptr(pointer);
        if (value == "DELETE")
            j[ptr.parent_pointer()].erase(ptr.back());
        else if (pointer.empty())
            j = Json::parse(value);
        else
            j[ptr] = Json::parse(value);
        auto spec = parse(j);
        QVERIFY(!spec.ok());
        const std::string message = spec.error().message;
        QVERIFY2(message.rfind("toy.json: ", 0) == 0, message.c_str());
        QVERIFY2(message.find(expected) != std::string::npos, message.c_str());
    }

    void sampleSpecsAreValid() {
        // The specs users open first must parse (files are checked by tst_cli_sample_projects).
        for (const char* name : {"fashion-mnist.json", "spam-mail.json", "fashion-plus-digits.json"}) {
            std::ifstream in(fs::path(dpmix::test_support::sourceDir()) / "projects" / name);
            QVERIFY(in.good());
            const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            auto spec = parseProjectSpec(text, SpecLocation{{}, {}, false}, name);
            QVERIFY2(spec.ok(), spec.ok() ? name : spec.error().message.c_str());
        }
        std::ifstream in(fs::path(dpmix::test_support::sourceDir()) / "projects" / "fashion-mnist.json");
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        auto fm = parseProjectSpec(text, SpecLocation{{}, {}, false}, "fashion-mnist.json");
        QCOMPARE(fm->mixtureComponents(), std::size_t(14));
        QCOMPARE(fm->sensitiveTasks.size(), std::size_t(4));
        QCOMPARE(fm->privacy.epsilons, std::vector<double>{1.0});
        QCOMPARE(fm->privacy.delta, 1e-5);
        QCOMPARE(fm->privacy.rho, 0.1);
        QCOMPARE(fm->mixture.clip, 13.0);
        QCOMPARE(fm->mixture.batch, 1000LL);
    }

    void rejectsInvalidJson() {
        auto spec = parseProjectSpec("{\"name\": \"x\",}", where(), "broken.json");
        QVERIFY(!spec.ok());
        QVERIFY2(spec.error().message.find("broken.json: not valid JSON") == 0, spec.error().message.c_str());
        QVERIFY(spec.error().message.find("CSV manifest") == std::string::npos);  // a broken spec, not a CSV
    }

    void aCsvManifestGivenAsASpecSaysWhatToDoWithIt() {
        // `dpmix new labels.csv`: the parser's error, then what the file is and how a study uses it.
        auto csv = parseProjectSpec("Path,Patient,Cardiomegaly\nimg0.png,p0,1\n", where(), "labels.csv");
        QVERIFY(!csv.ok());
        const std::string& m = csv.error().message;
        QVERIFY2(m.find("labels.csv: not valid JSON") == 0, m.c_str());
        QVERIFY2(m.find("looks like a CSV manifest") != std::string::npos, m.c_str());
        QVERIFY2(m.find("\"loader\": \"csv-images\"") != std::string::npos, m.c_str());
        QVERIFY2(m.find("dpmix new --from-csv labels.csv --public-from SPEC.json") != std::string::npos, m.c_str());
        // A text without commas on its first line is not taken for a CSV.
        auto prose = parseProjectSpec("hello world\n", where(), "notes.txt");
        QVERIFY(!prose.ok());
        QVERIFY(prose.error().message.find("CSV manifest") == std::string::npos);
    }

    void loadsAFileWithTheDataDirFromTheEnvironment() {
        const fs::path file = specDir_ / "toy.json";
        std::ofstream(file) << validSpec().dump(2);
        setenv("DPMIX_DATA_DIR", dataDir_.c_str(), 1);
        auto spec = loadProjectSpecFile(file);
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().message.c_str());
        QCOMPARE(spec->sensitive.resolved.path, (dataDir_ / "shared" / "priv-images.idx").string());
        // Without the variable: <spec dir>/../data, which here is the same folder.
        unsetenv("DPMIX_DATA_DIR");
        QCOMPARE(defaultDataDir(file).lexically_normal(), dataDir_.lexically_normal());
        QVERIFY(loadProjectSpecFile(file).ok());
        setenv("DPMIX_DATA_DIR", (dataDir_ / "elsewhere").c_str(), 1);
        auto missing = loadProjectSpecFile(file);
        QVERIFY(!missing.ok());
        QVERIFY2(missing.error().message.find(file.string() + ": sensitive.path") == 0,
                 missing.error().message.c_str());
        unsetenv("DPMIX_DATA_DIR");
        QVERIFY(!loadProjectSpecFile(specDir_ / "absent.json").ok());
    }
};

QTEST_APPLESS_MAIN(TestSpecJson)
#include "tst_spec_json.moc"
