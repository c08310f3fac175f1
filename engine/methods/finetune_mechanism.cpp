#include "engine/methods/finetune_mechanism.h"

#include <stdexcept>

namespace dpmix::methods {

// One row per mechanism; a new one is a row here and a case where the study plans fine-tuning.
const std::vector<FinetuneMechanismTraits>& allFinetuneMechanisms() {
    static const std::vector<FinetuneMechanismTraits> table = {
        {.mechanism = FinetuneMechanism::DpSgd, .name = "dp-sgd", .label = "DP-SGD", .userLevel = true},
        {.mechanism = FinetuneMechanism::Dirichlet, .name = "dirichlet", .label = "Dirichlet mechanism"},
        {.mechanism = FinetuneMechanism::AdamixR, .name = "adamix-r", .label = "AdaMix-R"},
    };
    return table;
}

const FinetuneMechanismTraits& traitsOf(FinetuneMechanism m) {
    for (const auto& t : allFinetuneMechanisms())
        if (t.mechanism == m) return t;
    throw std::logic_error("methods::traitsOf: a FinetuneMechanism without a row in the table");
}

std::string nameOf(FinetuneMechanism m) { return std::string(traitsOf(m).name); }

Result<FinetuneMechanism> parseFinetuneMechanism(std::string_view name) {
    for (const auto& t : allFinetuneMechanisms())
        if (name == t.name) return t.mechanism;
    return Error{"\"" + std::string(name) + "\" is not a fine-tuning mechanism: expected " + finetuneMechanismList()};
}

std::string finetuneMechanismList() {
    const auto& all = allFinetuneMechanisms();
    std::string out;
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (i > 0) out += i + 1 == all.size() ? " or " : ", ";
        out += "\"" + std::string(all[i].name) + "\"";
    }
    return out;
}

}  // namespace dpmix::methods
