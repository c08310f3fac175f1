#pragma once
// The configuration JSON an image study's runs store (the mixture stage's and the proxy's), and
// when a stored proxy's configuration matches the options: what makes a stored run reusable and
// what a rerun reads back.
#include "engine/privacy/accountant.h"
#include "engine/project/project_spec.h"
#include "engine/study_plan/run_options.h"

#include <optional>
#include <string>

namespace dpmix::pipeline {

/// A mixture-stage run's configuration: the stage's values, ρ, δ, the method; for a DP run its
/// randomness and accountant; the unit of privacy (and the user group size at user level).
std::string mixtureConfigJson(const project::MixtureStage& m, double rho, double delta, const std::string& method,
                              std::optional<bool> reproducible, std::optional<long long> userGroupSize,
                              privacy::Accountant accountant);

/// A proxy run's configuration, the device included.
std::string proxyConfigJson(const study_plan::ProxyOptions& o);

/// Whether a stored proxy's configuration has these settings (the device aside: weights move).
bool sameProxySettings(const std::string& storedConfig, const study_plan::ProxyOptions& o);

}  // namespace dpmix::pipeline
