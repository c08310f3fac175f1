#include "engine/pipeline/run_configs.h"

#include <nlohmann/json.hpp>

namespace dpmix::pipeline {

using study_plan::ProxyOptions;

std::string mixtureConfigJson(const project::MixtureStage& m, double rho, double delta, const std::string& method,
                              std::optional<bool> reproducible, std::optional<long long> userGroupSize,
                              privacy::Accountant accountant) {
    nlohmann::ordered_json j{
        {"stage", "mixture"}, {"method", method}, {"rho", rho},
        {"delta", delta},     {"clip", m.clip},   {"batch", m.batch},
        {"lr", m.lr},         {"steps", m.steps}, {"released_iterate", m.releaseAverage ? "average" : "last"}};
    if (reproducible) {  // DP runs only
        j["randomness"] = *reproducible ? "seeded" : "secret";
        j["accountant"] = privacy::toString(accountant);
    }
    // The unit every mechanism of the run protects (docs/PRIVACY.md, "Unit of privacy").
    j["privacy_unit"] = userGroupSize ? "user" : "example";
    if (userGroupSize) j["user_group_size"] = *userGroupSize;
    return j.dump();
}

// What makes a stored proxy reusable: its settings. The device it trained on is recorded beside
// them but is not part of the key — weights move between devices.
namespace {

nlohmann::json proxySettings(const ProxyOptions& o) {
    return nlohmann::json{{"stage", "proxies"}, {"model", "small-cnn"}, {"epochs", o.epochs},
                          {"batch", o.batch},   {"lr", o.lr},           {"max_examples", o.maxExamples}};
}

}  // namespace

std::string proxyConfigJson(const ProxyOptions& o) {
    nlohmann::json j = proxySettings(o);
    j["device"] = o.device;
    return j.dump();
}

bool sameProxySettings(const std::string& storedConfig, const ProxyOptions& o) {
    nlohmann::json stored = nlohmann::json::parse(storedConfig, nullptr, /*allow_exceptions=*/false);
    if (!stored.is_object()) return false;
    stored.erase("device");
    return stored == proxySettings(o);
}

}  // namespace dpmix::pipeline
