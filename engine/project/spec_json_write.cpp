// A spec written back as JSON: the form stored in a project file and frozen into cluster jobs.
// Keys appear in a fixed order and optional keys only when set, so a stored spec's hash is stable.
#include "engine/project/spec_json.h"

#include <nlohmann/json.hpp>

namespace dpmix::project {
namespace {

using Json = nlohmann::ordered_json;

Json sourceJson(const SpecSource& s, bool sensitive) {
    Json j;
    j["name"] = s.written.name;
    j["loader"] = s.written.loader;
    j["path"] = s.written.path;
    Json options = Json::object();
    for (const auto& [key, value] : s.written.options) options[key] = value;
    j["options"] = options;
    if (sensitive) j["user_level"] = s.userLevel;
    if (!s.resize.empty()) j["resize"] = s.resize;
    if (!s.colour.empty()) j["colour"] = s.colour;
    return j;
}

Json tasksJson(const std::vector<LabelTask>& tasks) {
    Json list = Json::array();
    for (const auto& t : tasks) {
        Json task{{"name", t.name}, {"classes", t.classes}};
        if (!t.source.empty()) task["source"] = t.source;  // absent in one-source specs, as before
        list.push_back(std::move(task));
    }
    return list;
}

}  // namespace

std::string projectSpecToJson(const ProjectSpec& spec, int indent) {
    Json root;
    root["name"] = spec.name;
    root["description"] = spec.description;
    Json sources = Json::array();
    for (const auto& s : spec.publicSources) sources.push_back(sourceJson(s, false));
    root["public_sources"] = sources;
    root["sensitive"] = sourceJson(spec.sensitive, true);
    root["tasks"] = Json{{"public", tasksJson(spec.publicTasks)}, {"sensitive", tasksJson(spec.sensitiveTasks)}};
    Json privacy;
    if (spec.privacy.epsilons.size() == 1)
        privacy["epsilon"] = spec.privacy.epsilons.front();
    else
        privacy["epsilon"] = spec.privacy.epsilons;
    privacy["delta"] = spec.privacy.delta;
    privacy["rho"] = spec.privacy.rho;
    privacy["composition"] = privacy::toString(spec.privacy.composition);
    if (spec.privacy.reproducible) privacy["reproducible"] = true;  // absent means secret, the default
    if (spec.privacy.budget) privacy["budget"] = *spec.privacy.budget;
    if (!spec.privacy.budgetStore.empty()) privacy["budget_store"] = spec.privacy.budgetStore;
    privacy["accountant"] = privacy::toString(spec.privacy.accountant);  // always explicit once stored
    root["privacy"] = privacy;
    Json mixture{{"clip", spec.mixture.clip},
                 {"batch", spec.mixture.batch},
                 {"lr", spec.mixture.lr},
                 {"steps", spec.mixture.steps}};
    if (spec.mixture.userGroupSize > 0) mixture["user_group_size"] = spec.mixture.userGroupSize;
    if (spec.mixture.releaseAverage) mixture["release"] = "average";  // absent means the last iterate
    Json finetune;
    if (spec.finetune.adamix()) {
        // AdaMix-R uses neither a fixed clip nor a batch (the parser refuses them).
        const FinetuneStage& f = spec.finetune;
        finetune = Json{{"mechanism", methods::nameOf(f.mechanism)},
                        {"lr", f.lr},
                        {"steps", f.steps},
                        {"public_shots", f.publicShots},
                        {"shots_source", f.shotsSource},
                        {"clip_quantile", f.clipQuantile},
                        {"q", f.adamixQ}};
        if (f.rank) finetune["rank"] = *f.rank;
    } else {
        finetune = Json{{"mechanism", methods::nameOf(spec.finetune.mechanism)},
                        {"clip", spec.finetune.clip},
                        {"batch", spec.finetune.batch},
                        {"lr", spec.finetune.lr},
                        {"steps", spec.finetune.steps}};
        if (spec.finetune.userGroupSize > 0) finetune["user_group_size"] = spec.finetune.userGroupSize;
    }
    if (spec.finetune.model != FinetuneStage{}.model) finetune["model"] = spec.finetune.model;  // absent: the default
    if (spec.finetune.resnetWidth != kDefaultResnetWidth) finetune["resnet_width"] = spec.finetune.resnetWidth;
    Json pretrain{{"batch", spec.pretrain.batch}, {"lr", spec.pretrain.lr}, {"steps", spec.pretrain.steps}};
    root["stages"] = Json{{"mixture", mixture}, {"finetune", finetune}, {"pretrain", pretrain}};
    if (spec.psg) {
        const PsgSection& g = *spec.psg;
        root["psg"] = Json{{"images_per_class", g.imagesPerClass},
                           {"iterations", g.iterations},
                           {"batch_loop", g.batchLoop},
                           {"clip", g.clip},
                           {"batch", g.batch},
                           {"lr_image", g.lrImage},
                           {"momentum_image", g.momentumImage},
                           {"lr_network", g.lrNetwork},
                           {"network_width", g.networkWidth},
                           {"network_depth", g.networkDepth},
                           {"pixel_mean", g.pixelMean},
                           {"pixel_std", g.pixelStd},
                           {"evaluations", g.evaluations},
                           {"evaluation_epochs", g.evaluationEpochs},
                           {"dp_sgd_steps", g.dpSgdSteps},
                           {"dp_sgd_lr", g.dpSgdLr},
                           {"dp_sgd_clip", g.dpSgdClip}};
    }
    root["seeds"] = spec.seeds;
    return root.dump(indent);
}

}  // namespace dpmix::project
