// A study run's options: checked (before anything is loaded), matched against the spec's
// fine-tuning mechanism, and applied to the spec's stage values (run_options.h).
#include "engine/study_plan/run_options.h"

#include "engine/privacy/ledger.h"
#include "engine/privacy/parameters.h"
#include "engine/project/spec_json.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <vector>

namespace dpmix::study_plan {
namespace {

const std::vector<std::string> kImageStages = {"proxies", "mixture", "pretrain", "finetune", "evaluate", "downstream"};
const std::vector<std::string> kTextStages = {"proxies", "mixture"};

Status checkStages(const std::vector<std::string>& stages, StudyKind kind) {
    if (kind == StudyKind::Text) {
        if (stages.empty()) return Error{"stages: give at least one of proxies, mixture", "stages"};
        for (const auto& s : stages)
            if (std::find(kTextStages.begin(), kTextStages.end(), s) == kTextStages.end())
                return Error{"stages: stage '" + s + "' is not available for a text study: expected proxies or mixture",
                             "stages"};
        return std::nullopt;
    }
    if (stages.empty())
        return Error{"stages: give at least one of proxies, mixture, pretrain, finetune, evaluate", "stages"};
    for (const auto& s : stages)
        if (std::find(kImageStages.begin(), kImageStages.end(), s) == kImageStages.end())
            return Error{"stages: unknown stage '" + s +
                             "': expected proxies, mixture, pretrain, finetune, evaluate or downstream",
                         "stages"};
    return std::nullopt;
}

}  // namespace

Status checkDeviceName(const std::string& device) {
    // LibTorch's form "type" or "type:index" (e.g. cpu, cuda:1); whether this machine has that
    // device is the trainer's check (train::checkDevice), where LibTorch is linked.
    const auto colon = device.find(':');
    const std::string type = device.substr(0, colon);
    const std::string index = colon == std::string::npos ? std::string("0") : device.substr(colon + 1);
    const bool typeOk = !type.empty() && std::all_of(type.begin(), type.end(),
                                                     [](unsigned char c) { return std::islower(c) || c == '_'; });
    const bool indexOk = !index.empty() && index.size() <= 4 &&
                         std::all_of(index.begin(), index.end(), [](unsigned char c) { return std::isdigit(c); });
    if (!typeOk || !indexOk)
        return Error{"device '" + device + "' is not a device name: expected cpu, cuda or cuda:N", "device"};
    return std::nullopt;
}

RunChoices resolveRunChoices(const project::ProjectSpec& spec, const StudyRunOptions& options) {
    RunChoices c;
    c.seeds = options.seeds;
    if (c.seeds.empty())
        for (auto s : spec.seeds) c.seeds.push_back(static_cast<std::uint64_t>(s));
    if (c.seeds.empty()) c.seeds.push_back(0);
    c.epsilons = options.epsilons.empty() ? spec.privacy.epsilons : options.epsilons;
    c.rho = options.rho.value_or(spec.privacy.rho);
    c.delta = spec.privacy.delta;
    c.reproducible = options.reproducible.value_or(spec.privacy.reproducible);
    c.accountant = options.accountant.value_or(spec.privacy.accountant);
    return c;
}

Result<std::string> canonicalMethod(const std::string& name) {
    auto method = methods::parseMethod(name);
    if (!method) return Error{"methods: " + method.error().message, "methods"};
    return methods::nameOf(*method);
}

Status checkStudyRunOptions(const StudyRunOptions& o, StudyKind kind) {
    if (auto e = checkStages(o.stages, kind)) return e;
    for (const auto& m : o.methods)
        if (auto c = canonicalMethod(m); !c) return c.error();
    for (std::size_t i = 0; i < o.epsilons.size(); ++i) {
        const double e = o.epsilons[i];
        // The spec's range (project::kMinEpsilon..kMaxEpsilon): `--epsilon 1e308` once ended in SIGABRT.
        if (!(e >= project::kMinEpsilon && e <= project::kMaxEpsilon))
            return Error{"epsilon = " + privacy::formatNumber(e) + " is out of range: expected ε in [1e-9, 1e6]",
                         "epsilon"};
        // The same ε twice would run (and spend) the same release twice.
        if (std::find(o.epsilons.begin(), o.epsilons.begin() + static_cast<std::ptrdiff_t>(i), e) !=
            o.epsilons.begin() + static_cast<std::ptrdiff_t>(i))
            return Error{"epsilon: " + privacy::formatNumber(e) + " is given twice: expected each epsilon once",
                         "epsilon"};
    }
    for (std::size_t i = 0; i < o.seeds.size(); ++i)
        if (std::find(o.seeds.begin(), o.seeds.begin() + static_cast<std::ptrdiff_t>(i), o.seeds[i]) !=
            o.seeds.begin() + static_cast<std::ptrdiff_t>(i))
            return Error{"seed: " + std::to_string(o.seeds[i]) + " is given twice: expected each seed once", "seed"};
    if (o.rho && !(*o.rho > 0.0 && *o.rho < 1.0))
        return Error{"rho = " + std::to_string(*o.rho) + " is out of range: expected a fraction in (0, 1)", "rho"};
    if (o.randomSearchCandidates < 0)
        return Error{"random search candidates = " + std::to_string(o.randomSearchCandidates) + ": expected >= 0",
                     "random-search-candidates"};
    if (auto e = checkDeviceName(o.device)) return e;
    if (o.proxy.epochs < 1)
        return Error{"proxy-epochs = " + std::to_string(o.proxy.epochs) + " is out of range: expected >= 1",
                     "proxy-epochs"};
    if (o.pretrainSteps && *o.pretrainSteps < 1)
        return Error{"pretrain-steps = " + std::to_string(*o.pretrainSteps) + " is out of range: expected >= 1",
                     "pretrain-steps"};
    if (o.finetuneSteps && *o.finetuneSteps < 1)
        return Error{"finetune-steps = " + std::to_string(*o.finetuneSteps) + " is out of range: expected >= 1",
                     "finetune-steps"};
    if (o.mixture) {
        const auto& m = *o.mixture;
        if (!(m.clip > 0.0) || !std::isfinite(m.clip))
            return Error{"mixture clip = " + std::to_string(m.clip) + " is out of range: expected a finite number > 0"};
        if (m.batch < 1)
            return Error{"mixture batch = " + std::to_string(m.batch) +
                         " is out of range: expected an expected batch size >= 1"};
        if (!(m.lr > 0.0) || !std::isfinite(m.lr))
            return Error{"mixture lr = " + std::to_string(m.lr) + " is out of range: expected a finite step size > 0"};
        if (m.steps < 1) return Error{"mixture steps = " + std::to_string(m.steps) + " is out of range: expected >= 1"};
        if (m.userGroupSize < 0)
            return Error{"mixture user group size = " + std::to_string(m.userGroupSize) +
                         " is out of range: expected >= 0"};
        // The spec's sane ranges too (a clip of 1e308 would give a NaN mixture).
        for (auto [key, value] : {std::pair<const char*, double>{"clip", m.clip},
                                  {"batch", static_cast<double>(m.batch)},
                                  {"lr", m.lr},
                                  {"steps", static_cast<double>(m.steps)}})
            if (auto e = project::checkStageValue("mixture", key, value)) return e;
    }
    if (o.pretrain)
        for (auto [key, value] : {std::pair<const char*, double>{"batch", static_cast<double>(o.pretrain->batch)},
                                  {"lr", o.pretrain->lr},
                                  {"steps", static_cast<double>(o.pretrain->steps)}})
            if (auto e = project::checkStageValue(std::string("pretrain.") + key, key, value)) return e;
    if (o.finetune)
        for (auto [key, value] : {std::pair<const char*, double>{"clip", o.finetune->clip},
                                  {"batch", static_cast<double>(o.finetune->batch)},
                                  {"lr", o.finetune->lr},
                                  {"steps", static_cast<double>(o.finetune->steps)}})
            if (auto e = project::checkStageValue(std::string("finetune.") + key, key, value)) return e;
    if (o.adamix) {
        if (auto e = project::checkStageValue("finetune.steps", "steps", static_cast<double>(o.adamix->steps)))
            return e;
        if (auto e = project::checkStageValue("finetune.lr", "lr", o.adamix->eta)) return e;
    }
    if (o.pretrainSteps)
        if (auto e = project::checkStageValue("pretrain", "steps", static_cast<double>(*o.pretrainSteps))) return e;
    if (o.finetuneSteps)
        if (auto e = project::checkStageValue("finetune", "steps", static_cast<double>(*o.finetuneSteps))) return e;
    return std::nullopt;
}

Status checkStageOptionsFitSpec(const project::ProjectSpec& spec, const StudyRunOptions& options) {
    const std::string mechanism = methods::nameOf(spec.finetune.mechanism);
    if (spec.finetune.adamix() && options.finetune)
        return Error{"finetune: clip " + privacy::formatNumber(options.finetune->clip) + ", batch " +
                         std::to_string(options.finetune->batch) + ", lr " +
                         privacy::formatNumber(options.finetune->lr) + " and steps " +
                         std::to_string(options.finetune->steps) +
                         " are DP-SGD's fine-tuning values, but this study fine-tunes with \"adamix-r\" (its clip "
                         "adapts, it samples at rate q): give AdaMix-R's steps T and step size eta instead",
                     "finetune"};
    if (!spec.finetune.adamix() && options.adamix)
        return Error{"finetune: AdaMix-R's steps T = " + std::to_string(options.adamix->steps) +
                         " and step size eta = " + privacy::formatNumber(options.adamix->eta) +
                         " were given, but this study fine-tunes with \"" + mechanism +
                         "\": give its clip, batch, lr and steps instead",
                     "finetune"};
    return std::nullopt;
}

project::ProjectSpec withStageOptions(project::ProjectSpec spec, const StudyRunOptions& options) {
    if (options.pretrain) spec.pretrain = *options.pretrain;
    if (options.adamix && spec.finetune.adamix()) {
        spec.finetune.steps = options.adamix->steps;
        spec.finetune.lr = options.adamix->eta;
    }
    if (options.finetune) {
        spec.finetune.clip = options.finetune->clip;
        spec.finetune.batch = options.finetune->batch;
        spec.finetune.lr = options.finetune->lr;
        spec.finetune.steps = options.finetune->steps;
    }
    if (options.pretrainSteps) spec.pretrain.steps = *options.pretrainSteps;
    if (options.finetuneSteps) spec.finetune.steps = *options.finetuneSteps;
    return spec;
}

}  // namespace dpmix::study_plan
