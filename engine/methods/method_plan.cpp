#include "engine/methods/method_plan.h"

#include "engine/core/kind_table.h"

#include <algorithm>

namespace dpmix::methods {

// One row per method; a new method or baseline is a row here (and a case of planMethod below).
const std::vector<MethodTraits>& allMethods() {
    static const std::vector<MethodTraits> table = {
        {.method = Method::DpMixMin,
         .name = "dp-mixmin",
         .shortName = "dpmixmin",
         .label = "DP-MixMin",
         .lambdaKind = "private",
         .lambdaLabel = "λ_DP (DP-MixMin)",
         .choice = Choice::Private,
         .finetuneOn = FinetuneData::SplitB,
         .mixtureStageRun = true},
        {.method = Method::Uniform,
         .name = "uniform",
         .shortName = "uniform",
         .label = "Uniform",
         .lambdaKind = "uniform",
         .lambdaLabel = "uniform",
         .choice = Choice::Public,
         .finetuneOn = FinetuneData::WholeTrain,
         .mixtureStageRun = true},
        {.method = Method::RandomSearch,
         .name = "random-search",
         .shortName = "random-search",
         .label = "Random search",
         .lambdaKind = "random-search",
         .lambdaLabel = "random search",
         .choice = Choice::NonPrivate,
         .finetuneOn = FinetuneData::SplitB,
         .mixtureStageRun = true},
        {.method = Method::RandomInit,
         .name = "random-init",
         .shortName = "random-init",
         .label = "Random Init",
         .choice = Choice::None,
         .finetuneOn = FinetuneData::WholeTrain},
        {.method = Method::NonPrivateMixMin,
         .name = "non-private-mixmin",
         .shortName = "nonprivate",
         .aliases = {"non-private"},
         .label = "Non-private MixMin (λ*)",
         .lambdaKind = "non-private",
         .lambdaLabel = "λ* (non-private)",
         .choice = Choice::NonPrivate,
         .finetuneOn = FinetuneData::WholeTrain,
         .mixtureStageRun = true,
         .reference = true},
    };
    return table;
}

const MethodTraits& traitsOf(Method m) {
    return core::rowOf(allMethods(), &MethodTraits::method, m, "methods::Method");
}

std::string nameOf(Method m) { return std::string(traitsOf(m).name); }

std::vector<std::string> allMethodNames() {
    std::vector<std::string> names;
    for (const auto& t : allMethods()) names.emplace_back(t.name);
    return names;
}

Result<Method> parseMethod(std::string_view spelling) {
    for (const auto& t : allMethods()) {
        if (spelling == t.name || spelling == t.shortName) return t.method;
        if (std::find(t.aliases.begin(), t.aliases.end(), spelling) != t.aliases.end()) return t.method;
    }
    return Error{"unknown method '" + std::string(spelling) + "': expected " + shortNameList()};
}

std::optional<Method> methodOfRun(std::string_view storedName) {
    for (const auto& t : allMethods())
        if (storedName == t.name) return t.method;
    return std::nullopt;
}

bool isNonPrivateChoice(std::string_view storedName) {
    const auto m = methodOfRun(storedName);
    return m && traitsOf(*m).choice == Choice::NonPrivate;
}

std::optional<Method> methodOfLambdaKind(std::string_view kind) {
    if (kind.empty()) return std::nullopt;
    for (const auto& t : allMethods())
        if (kind == t.lambdaKind) return t.method;
    return std::nullopt;
}

std::string shortNameList() {
    const auto& all = allMethods();
    std::string out;
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (i > 0) out += i + 1 == all.size() ? " or " : ", ";
        out += all[i].shortName;
    }
    return out;
}

int paperRank(Method m) {
    const MethodTraits& t = traitsOf(m);
    switch (t.choice) {
        case Choice::Private: return 0;
        case Choice::NonPrivate: return t.reference ? 1 : 2;
        case Choice::Public: return 3;
        case Choice::None: return 4;
    }
    return 5;
}

privacy::LedgerEntry lambdaStarEntry(privacy::PrivacyUnit unit) {
    auto e = privacy::nonPrivateEntry(
        "mixture", "A", "lambda* is fitted on split A without differential privacy (the upper-bound baseline)");
    e.unit = unit;
    return e;
}

privacy::LedgerEntry randomSearchEntry(privacy::PrivacyUnit unit) {
    auto e = privacy::nonPrivateEntry("random-search", "A",
                                      "the best of the random mixtures is chosen on split A without differential "
                                      "privacy, as in the paper's baseline");
    e.unit = unit;
    return e;
}

MethodPlan planMethod(Method m, const MixtureChoices& c) {
    const MethodTraits& t = traitsOf(m);
    MethodPlan plan;
    plan.method = m;
    plan.lambdaKind = std::string(t.lambdaKind);
    plan.finetuneOn = t.finetuneOn;
    plan.release = t.choice != Choice::NonPrivate;
    switch (m) {
        case Method::DpMixMin:
            plan.lambda = c.lambdaPrivate;
            plan.mixtureEntries = c.privateEntries;
            plan.lambdaPerEpsilon = true;
            break;
        case Method::Uniform: plan.lambda = c.lambdaUniform; break;
        case Method::RandomSearch:
            plan.lambda = c.lambdaRandomSearch;
            plan.mixtureEntries = {randomSearchEntry(c.unit)};
            break;
        case Method::NonPrivateMixMin:
            plan.lambda = c.lambdaStar;
            plan.mixtureEntries = {lambdaStarEntry(c.unit)};
            break;
        case Method::RandomInit: break;  // no pretraining
    }
    return plan;
}

}  // namespace dpmix::methods
