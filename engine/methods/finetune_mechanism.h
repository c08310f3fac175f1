#pragma once
// The fine-tuning mechanisms a study's spec can name (stages.finetune.mechanism), defined once:
// the spelling the spec stores, the name people read, and whether the mechanism's accounting can
// protect users. The spec reader parses the spelling once; the study carries the enum, so an
// unknown spelling is an error where it is read, never a DP-SGD run.
//
// Torch-, Eigen- and Qt-free (the text study and the workbench link it).
#include "engine/core/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace dpmix::methods {

enum class FinetuneMechanism { DpSgd, Dirichlet, AdamixR };

struct FinetuneMechanismTraits {
    FinetuneMechanism mechanism = FinetuneMechanism::DpSgd;
    std::string_view name;   // as the spec stores it: "dp-sgd"
    std::string_view label;  // for people: "DP-SGD"
    bool userLevel = false;  // its accounting can protect users (sensitive.user_level)
};

/// Every mechanism, in the order the spec's documentation lists them.
const std::vector<FinetuneMechanismTraits>& allFinetuneMechanisms();
const FinetuneMechanismTraits& traitsOf(FinetuneMechanism m);
/// The spelling the spec stores.
std::string nameOf(FinetuneMechanism m);
/// A stored spelling; the error names the value and lists the accepted ones (the caller adds
/// the field).
Result<FinetuneMechanism> parseFinetuneMechanism(std::string_view name);
/// "\"dp-sgd\", \"dirichlet\" or \"adamix-r\"".
std::string finetuneMechanismList();

}  // namespace dpmix::methods
