#include "engine/distributed/rank_job.h"

#include <nlohmann/json.hpp>

#include <string>

namespace dpmix::distributed {
namespace {

constexpr const char* kJobKey = "dpmix/rank-job";

nlohmann::json specJson(const train::ModelSpec& s) {
    return {{"kind", train::toString(s.kind)},
            {"input", {s.channels, s.height, s.width}},
            {"outputs", s.outputs},
            {"conv_widths", {s.convWidth1, s.convWidth2}},
            {"hidden", s.hidden},
            {"group_norm", s.groupNorm},
            {"resnet_width", s.resnetWidth},
            {"norm_groups", s.normGroups},
            {"mlp_hidden", s.mlpHidden},
            {"convnet", {s.convNetWidth, s.convNetDepth}}};
}

nlohmann::json paramsJson(const train::DpSgdParams& p) {
    nlohmann::json j{{"epsilon", p.epsilon},
                     {"delta", p.delta},
                     {"accountant", privacy::toString(p.accountant)},
                     {"clip_norm", p.clipNorm},
                     {"learning_rate", p.learningRate},
                     {"momentum", p.momentum},
                     {"expected_batch_size", p.expectedBatchSize},
                     {"epochs", p.epochs},
                     {"steps", p.steps},
                     {"train_last_blocks", p.trainLastBlocks},
                     {"split", p.split},
                     {"randomness", privacy::toString(p.randomness.mode)},
                     {"seed", p.randomness.seed},
                     {"invocation", p.randomness.invocation},
                     {"max_examples_per_user", p.maxExamplesPerUser},
                     {"ranks", p.ranks}};
    j["sigma"] = p.sigma ? nlohmann::json(*p.sigma) : nlohmann::json(nullptr);
    return j;
}

Status readSpec(const nlohmann::json& j, train::ModelSpec& s) {
    if (!train::parseModelKind(j.at("kind").get<std::string>(), s.kind))
        return Error{"rank job: model kind '" + j.at("kind").get<std::string>() + "' is not known"};
    s.channels = j.at("input").at(0);
    s.height = j.at("input").at(1);
    s.width = j.at("input").at(2);
    s.outputs = j.at("outputs");
    s.convWidth1 = j.at("conv_widths").at(0);
    s.convWidth2 = j.at("conv_widths").at(1);
    s.hidden = j.at("hidden");
    s.groupNorm = j.at("group_norm");
    s.resnetWidth = j.at("resnet_width");
    s.normGroups = j.at("norm_groups");
    s.mlpHidden = j.at("mlp_hidden").get<std::vector<int>>();
    s.convNetWidth = j.at("convnet").at(0);
    s.convNetDepth = j.at("convnet").at(1);
    return std::nullopt;
}

Status readParams(const nlohmann::json& j, train::DpSgdParams& p) {
    if (!privacy::parseAccountant(j.at("accountant").get<std::string>(), p.accountant))
        return Error{"rank job: accountant '" + j.at("accountant").get<std::string>() + "' is not known"};
    if (!privacy::parseRandomnessMode(j.at("randomness").get<std::string>(), p.randomness.mode))
        return Error{"rank job: randomness '" + j.at("randomness").get<std::string>() + "' is not known"};
    p.epsilon = j.at("epsilon");
    p.delta = j.at("delta");
    if (!j.at("sigma").is_null()) p.sigma = j.at("sigma").get<double>();
    p.clipNorm = j.at("clip_norm");
    p.learningRate = j.at("learning_rate");
    p.momentum = j.at("momentum");
    p.expectedBatchSize = j.at("expected_batch_size");
    p.epochs = j.at("epochs");
    p.steps = j.at("steps");
    p.trainLastBlocks = j.at("train_last_blocks");
    p.split = j.at("split");
    p.randomness.seed = j.at("seed");
    p.randomness.invocation = j.at("invocation");
    p.maxExamplesPerUser = j.at("max_examples_per_user");
    p.ranks = j.at("ranks");
    return std::nullopt;
}

}  // namespace

std::string rankJobSettings(const RankJob& job) {
    return nlohmann::json{{"spec", specJson(job.spec)},
                          {"device", job.device},
                          {"params", paramsJson(job.params)},
                          {"units", job.shard.units}}
        .dump();
}

Status readRankJobSettings(const std::string& text, RankJob& job) {
    try {
        const auto j = nlohmann::json::parse(text);
        if (auto e = readSpec(j.at("spec"), job.spec)) return e;
        if (auto e = readParams(j.at("params"), job.params)) return e;
        job.device = j.at("device");
        job.shard.units = j.at("units");
        job.shard.channels = job.spec.channels;
        job.shard.height = job.spec.height;
        job.shard.width = job.spec.width;
        return std::nullopt;
    } catch (const nlohmann::json::exception& e) {
        return Error{std::string("rank job: the settings from rank 0 do not read: ") + e.what()};
    }
}

Status sendRankJobs(RankStore& store, RankGroup& group, const RankJob& job, const std::vector<RankShard>& shards) {
    if (auto e = store.put(kJobKey, rankJobSettings(job))) return e;
    for (int r = 1; r < group.world(); ++r) {
        const RankShard& s = shards.at(static_cast<std::size_t>(r));
        if (auto e = group.send(s.pixels, r, 10)) return e;
        if (auto e = group.send(std::vector<std::int64_t>(s.labels.begin(), s.labels.end()), r, 20)) return e;
        if (auto e = group.send(s.unitOfImage, r, 30)) return e;
        if (auto e = group.send(s.imagesPerUser, r, 40)) return e;
    }
    return std::nullopt;
}

Result<RankJob> receiveRankJob(RankStore& store, RankGroup& group) {
    RankJob job;
    auto settings = store.get(kJobKey);
    if (!settings) return settings.error();
    if (auto e = readRankJobSettings(*settings, job)) return *e;
    RankShard& s = job.shard;
    std::vector<std::int64_t> labels;
    if (auto e = group.receive(s.pixels, 0, 10)) return *e;
    if (auto e = group.receive(labels, 0, 20)) return *e;
    if (auto e = group.receive(s.unitOfImage, 0, 30)) return *e;
    if (auto e = group.receive(s.imagesPerUser, 0, 40)) return *e;
    s.labels.assign(labels.begin(), labels.end());
    s.count = static_cast<std::int64_t>(s.unitOfImage.size());
    return job;
}

}  // namespace dpmix::distributed
