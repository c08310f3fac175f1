// The spec's `stages` section (with AdaMix-R's keys of stages.finetune) and the optional `psg`
// section (docs/PROJECT_FILE.md, "Stages"; docs/ADAMIX.md; docs/PSG.md).
#include "engine/project/spec_json_parts.h"

#include "engine/core/joined_list.h"
#include "engine/methods/finetune_mechanism.h"

#include <set>

namespace dpmix::project::spec_reading {
namespace {

constexpr IntegerRange kPublicShots{1, 100'000, "1e5", "a number of labelled public images per class"};
constexpr IntegerRange kAdamixRank{1, 100'000, "1e5", "a subspace rank"};

const std::set<std::string> kImageLoaders = {"idx", "mnist-json", "csv-images", "glyphs", "icon-theme", "dicom"};

// AdaMix-R's keys of stages.finetune (docs/ADAMIX.md, "As a study's fine-tuning mechanism"),
// and the keys it does not use. The sources and the unit of privacy are read before the stages.
void readAdamix(const Json& f, ProjectSpec& spec, bool checkRanges) {
    const std::string path = "stages.finetune";
    FinetuneStage& ft = spec.finetune;
    const std::vector<std::string> own = {"public_shots", "shots_source", "rank", "clip_quantile", "q"};
    if (!ft.adamix()) {
        for (const auto& key : own)
            if (f.contains(key))
                fail(child(path, key), "is used only by mechanism \"adamix-r\" (this stage's mechanism is \"" +
                                           methods::nameOf(ft.mechanism) +
                                           "\"): remove it or set stages.finetune.mechanism");
        return;
    }
    if (spec.sensitive.userLevel)
        fail(child(path, "mechanism"),
             "\"adamix-r\" cannot protect users: AdaMix-R's accounting is example-level "
             "(add/remove of one example; a user's several examples are not accounted "
             "together). Use \"dp-sgd\" (user-level DP-SGD) or set sensitive.user_level "
             "to false");
    if (!kImageLoaders.count(spec.sensitive.written.loader))
        fail(child(path, "mechanism"),
             "\"adamix-r\" trains a head on an image model's frozen features: the "
             "sensitive source's loader \"" +
                 spec.sensitive.written.loader +
                 "\" is not an image loader (idx, mnist-json, csv-images, glyphs or icon-theme)");
    if (f.contains("clip"))
        fail(child(path, "clip"),
             "is not used by \"adamix-r\": its clip norm adapts every step (the quantile "
             "clip_quantile of the public gradient norms); remove it");
    if (f.contains("batch"))
        fail(child(path, "batch"),
             "is not used by \"adamix-r\": it takes every private example per step, or a "
             "Poisson sample at rate q; remove it (and give q for minibatches)");
    if (f.contains("user_group_size"))
        fail(child(path, "user_group_size"), "is not used by \"adamix-r\", whose unit of privacy is the example");
    if (!f.contains("public_shots"))
        fail(child(path, "public_shots"),
             "missing (expected the number of labelled public images per class of the "
             "sensitive task that AdaMix-R starts from, an integer in [1, 1e5])");
    readInteger(f, path, "public_shots", kPublicShots, true, ft.publicShots);
    if (!f.contains("shots_source"))
        fail(child(path, "shots_source"),
             "missing (expected the name of the public source the shots are drawn "
             "from; its labels must include the sensitive tasks' classes)");
    ft.shotsSource = requireString(f, path, "shots_source");
    std::string list;
    bool known = false;
    for (const auto& s : spec.publicSources) {
        known = known || s.written.name == ft.shotsSource;
        list += (list.empty() ? "\"" : ", \"") + s.written.name + "\"";
    }
    if (!known)
        fail(child(path, "shots_source"), "\"" + ft.shotsSource +
                                              "\" is not a public source of this spec (public "
                                              "sources: " +
                                              (list.empty() ? "none" : list) + ")");
    if (f.contains("rank")) {
        long long r = 0;
        readInteger(f, path, "rank", kAdamixRank, true, r);
        ft.rank = r;
    }
    auto unitLevel = [&](const std::string& key, const std::string& what, double& out) {
        if (!f.contains(key)) return;
        const double d = numberValue(f.at(key), child(path, key));
        if (!(d > 0.0 && d <= 1.0))
            fail(child(path, key), show(f.at(key)) + " is out of range: expected " + what + " in (0, 1]");
        out = d;
    };
    unitLevel("clip_quantile", "the quantile τ of the public gradient norms that sets the clip", ft.clipQuantile);
    unitLevel("q", "a Poisson sampling rate (1: every private example in every step)", ft.adamixQ);
    // The shared keys `steps` (T) and `lr` (η) default to AdaMix-R's, not DP-SGD's.
    ft.steps = kAdamixDefaultSteps;
    ft.lr = kAdamixDefaultEta;
    (void)checkRanges;
}

// stages.finetune.model: the image network pretrained and fine-tuned.
void readModel(const Json& f, ProjectSpec& spec) {
    if (!f.contains("model")) return;
    const std::string path = "stages.finetune.model";
    const Json& m = f.at("model");
    if (!m.is_string() || !isDownstreamModel(m.get<std::string>()))
        fail(path,
             show(m) + " is not allowed: expected " + core::joinedList(kDownstreamModels, " or ", core::Quoted::Yes));
    if (!kImageLoaders.count(spec.sensitive.written.loader))
        fail(path, "names an image network, but the sensitive source's loader \"" + spec.sensitive.written.loader +
                       "\" is not an image loader; remove it");
    spec.finetune.model = m.get<std::string>();
}

// stages.finetune.resnet_width: ResNet-18's first stage width (GroupNorm's 8 groups divide it).
void readResnetWidth(const Json& f, ProjectSpec& spec) {
    if (!f.contains("resnet_width")) return;
    const std::string path = "stages.finetune.resnet_width";
    if (spec.finetune.model != "resnet18")
        fail(path, "is used only by model \"resnet18\" (this stage's model is \"" + spec.finetune.model +
                       "\"): remove it or set stages.finetune.model");
    const long long w = integerValue(f.at("resnet_width"), path);
    if (!isResnetWidth(w)) fail(path, show(f.at("resnet_width")) + " is out of range: expected " + kResnetWidthRule);
    spec.finetune.resnetWidth = w;
}

}  // namespace

void readStages(const Json& root, ProjectSpec& spec, bool checkRanges) {
    if (!root.contains("stages")) return;  // every stage parameter has a documented default
    const Json& stages = requireObject(root, "", "stages");
    checkKeys(stages, "stages", {"mixture", "finetune", "pretrain"});
    if (stages.contains("mixture")) {
        const std::string path = "stages.mixture";
        const Json& m = requireObject(stages, "stages", "mixture");
        checkKeys(m, path, {"clip", "batch", "lr", "steps", "user_group_size", "release"});
        readPositive(m, path, "clip", kClip, checkRanges, spec.mixture.clip);
        readInteger(m, path, "batch", kBatch, checkRanges, spec.mixture.batch);
        readPositive(m, path, "lr", kLearningRate, checkRanges, spec.mixture.lr);
        readInteger(m, path, "steps", kSteps, checkRanges, spec.mixture.steps);
        readInteger(m, path, "user_group_size", kUserGroupSize, checkRanges, spec.mixture.userGroupSize);
        if (m.contains("release")) {
            const Json& release = m["release"];
            if (!release.is_string() || (release != "last" && release != "average"))
                fail(child(path, "release"),
                     "expected \"last\" (the last iterate, the default) or \"average\" (the "
                     "average of the iterates)");
            spec.mixture.releaseAverage = release == "average";
        }
    }
    if (stages.contains("finetune")) {
        const std::string path = "stages.finetune";
        const Json& f = requireObject(stages, "stages", "finetune");
        checkKeys(f, path,
                  {"mechanism", "clip", "batch", "lr", "steps", "user_group_size", "public_shots", "shots_source",
                   "rank", "clip_quantile", "q", "model", "resnet_width"});
        if (f.contains("mechanism")) {
            const Json& m = f.at("mechanism");
            const auto mechanism = m.is_string() ? methods::parseFinetuneMechanism(m.get<std::string>())
                                                 : Result<methods::FinetuneMechanism>(Error{"not a string"});
            if (!mechanism)
                fail("stages.finetune.mechanism",
                     show(m) + " is not allowed: expected " + methods::finetuneMechanismList());
            spec.finetune.mechanism = *mechanism;
        }
        readAdamix(f, spec, checkRanges);
        readPositive(f, path, "clip", kClip, checkRanges, spec.finetune.clip);
        readInteger(f, path, "batch", kBatch, checkRanges, spec.finetune.batch);
        readPositive(f, path, "lr", kLearningRate, checkRanges, spec.finetune.lr);
        readInteger(f, path, "steps", kSteps, checkRanges, spec.finetune.steps);
        readInteger(f, path, "user_group_size", kUserGroupSize, checkRanges, spec.finetune.userGroupSize);
        readModel(f, spec);
        readResnetWidth(f, spec);
    }
    if (stages.contains("pretrain")) {
        const std::string path = "stages.pretrain";
        const Json& p = requireObject(stages, "stages", "pretrain");
        checkKeys(p, path, {"batch", "lr", "steps"});
        readInteger(p, path, "batch", kBatch, checkRanges, spec.pretrain.batch);
        readPositive(p, path, "lr", kLearningRate, checkRanges, spec.pretrain.lr);
        readInteger(p, path, "steps", kSteps, checkRanges, spec.pretrain.steps);
    }
}

namespace {

constexpr IntegerRange kIterations{1, 1'000'000, "1e6", "a number of iterations"};
constexpr IntegerRange kWidth{1, 4096, "4096", "a network width"};
constexpr IntegerRange kDepth{1, 8, "8", "a network depth"};
constexpr IntegerRange kEvaluations{1, 100, "100", "a number of evaluation trainings"};
constexpr IntegerRange kEpochs{1, 100'000, "1e5", "a number of epochs"};
constexpr RealRange kPixelStd{1e3, "1e3", "a pixel scale"};

}  // namespace

// The optional `psg` section (docs/PSG.md, "Spec").
void readPsg(const Json& root, ProjectSpec& spec, bool checkRanges) {
    if (!root.contains("psg")) return;
    const std::string path = "psg";
    const Json& g = requireObject(root, "", "psg");
    checkKeys(g, path,
              {"images_per_class", "iterations", "batch_loop", "clip", "batch", "lr_image", "momentum_image",
               "lr_network", "network_width", "network_depth", "pixel_mean", "pixel_std", "evaluations",
               "evaluation_epochs", "dp_sgd_steps", "dp_sgd_lr", "dp_sgd_clip"});
    PsgSection p;
    if (g.contains("images_per_class")) {
        p.imagesPerClass = integerValue(g.at("images_per_class"), "psg.images_per_class");
        if (p.imagesPerClass != 1 && p.imagesPerClass != 10 && p.imagesPerClass != 20 && p.imagesPerClass != 50)
            fail("psg.images_per_class", show(g.at("images_per_class")) +
                                             " is not supported: expected 1, 10, 20 or 50 (the values the method "
                                             "defines its loops for)");
    }
    readInteger(g, path, "iterations", kIterations, checkRanges, p.iterations);
    readInteger(g, path, "batch_loop", kSteps, checkRanges, p.batchLoop);
    readPositive(g, path, "clip", kClip, checkRanges, p.clip);
    readInteger(g, path, "batch", kBatch, checkRanges, p.batch);
    readPositive(g, path, "lr_image", kLearningRate, checkRanges, p.lrImage);
    if (g.contains("momentum_image")) {
        p.momentumImage = numberValue(g.at("momentum_image"), "psg.momentum_image");
        if (!(p.momentumImage >= 0 && p.momentumImage < 1))
            fail("psg.momentum_image",
                 show(g.at("momentum_image")) + " is out of range: expected a momentum in [0, 1)");
    }
    readPositive(g, path, "lr_network", kLearningRate, checkRanges, p.lrNetwork);
    readInteger(g, path, "network_width", kWidth, checkRanges, p.networkWidth);
    readInteger(g, path, "network_depth", kDepth, checkRanges, p.networkDepth);
    if (g.contains("pixel_mean")) {
        p.pixelMean = numberValue(g.at("pixel_mean"), "psg.pixel_mean");
        if (!(p.pixelMean >= -1e3 && p.pixelMean <= 1e3))
            fail("psg.pixel_mean",
                 show(g.at("pixel_mean")) + " is out of range: expected a pixel offset in [-1e3, 1e3]");
    }
    readPositive(g, path, "pixel_std", kPixelStd, checkRanges, p.pixelStd);
    readInteger(g, path, "evaluations", kEvaluations, checkRanges, p.evaluations);
    readInteger(g, path, "evaluation_epochs", kEpochs, checkRanges, p.evaluationEpochs);
    if (g.contains("dp_sgd_steps")) {
        p.dpSgdSteps = integerValue(g.at("dp_sgd_steps"), "psg.dp_sgd_steps");
        if (p.dpSgdSteps < 0 || p.dpSgdSteps > kSteps.max)
            fail("psg.dp_sgd_steps",
                 show(g.at("dp_sgd_steps")) + " is out of range: expected 0 (no DP-SGD reference) to 1e7 steps");
    }
    readPositive(g, path, "dp_sgd_lr", kLearningRate, checkRanges, p.dpSgdLr);
    readPositive(g, path, "dp_sgd_clip", kClip, checkRanges, p.dpSgdClip);
    spec.psg = p;
}

}  // namespace dpmix::project::spec_reading
