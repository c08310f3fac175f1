#include "engine/methods/finetune_mechanism.h"

#include "engine/core/kind_table.h"

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
    return core::rowOf(allFinetuneMechanisms(), &FinetuneMechanismTraits::mechanism, m, "methods::FinetuneMechanism");
}

std::string nameOf(FinetuneMechanism m) { return std::string(traitsOf(m).name); }

Result<FinetuneMechanism> parseFinetuneMechanism(std::string_view name) {
    return core::parseSpelling(allFinetuneMechanisms(), &FinetuneMechanismTraits::mechanism, name,
                               "a fine-tuning mechanism");
}

std::string finetuneMechanismList() { return core::spellingList(allFinetuneMechanisms()); }

}  // namespace dpmix::methods
