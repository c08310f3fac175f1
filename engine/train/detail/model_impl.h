#pragma once
// Internal (torch) header: what a Model handle holds.
#include "engine/train/detail/network.h"
#include "engine/train/model.h"

namespace dpmix::train {

struct Model::Impl {
    ModelSpec spec;
    detail::Network network;
    at::Device device = at::kCPU;
};

}  // namespace dpmix::train
