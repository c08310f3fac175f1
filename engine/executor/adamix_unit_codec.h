#pragma once
// How the AdaMix-R experiment's cluster units carry numbers bit for bit (adamix_units.h): the
// frozen inputs as raw little-endian binary, and a grid part's cells and per-example records as
// JSON whose every double is the hex of its IEEE-754 bits.
#include "engine/core/result.h"
#include "engine/experiments/adamix_experiment.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dpmix::executor::adamix_codec {

/// What a worker reads: the features and labels, the draw plan, and (for the merge) the
/// extractor's weights trained at submission (empty when they were reused).
struct AdamixInputs {
    experiments::AdamixGridInput input;
    experiments::AdamixDrawPlan plan;
    std::vector<float> extractorWeights;
};

std::string encodeInputs(const AdamixInputs& inputs);
/// Errors: truncated, trailing bytes, a size that does not fit, a big-endian host.
Result<AdamixInputs> decodeInputs(const std::string& bytes);

nlohmann::json partJson(const experiments::AdamixGridResult& part);
/// Throws nlohmann::json::exception or std::invalid_argument on a malformed record.
experiments::AdamixGridResult partOf(const nlohmann::json& j);

}  // namespace dpmix::executor::adamix_codec
