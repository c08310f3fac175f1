// Model architectures (from a ModelSpec), the Model handle, and batching helpers.
#include "engine/train/detail/model_impl.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <ATen/detail/CUDAHooksInterface.h>

#include <algorithm>
#include <stdexcept>

namespace dpmix::train {

namespace detail {

namespace {

std::shared_ptr<Sequential> seq(std::vector<LayerPtr> layers) {
    return std::make_shared<Sequential>(std::move(layers));
}

std::vector<LayerPtr> smallCnn(const ModelSpec& s, const InitOptions& init) {
    auto convBlock = [&](int in, int out) {
        auto block = seq({std::make_shared<Conv2d>(in, out, 3, 1, 1, init)});
        if (s.groupNorm) block->add(std::make_shared<GroupNorm>(s.normGroups, out, init));
        block->add(std::make_shared<ReLU>());
        block->add(std::make_shared<MaxPool2d>(2));
        return block;
    };
    const int64_t flat = static_cast<int64_t>(s.convWidth2) * (s.height / 2 / 2) * (s.width / 2 / 2);
    return {
        convBlock(s.channels, s.convWidth1), convBlock(s.convWidth1, s.convWidth2),
        seq({std::make_shared<Flatten>(), std::make_shared<Linear>(flat, s.hidden, init), std::make_shared<ReLU>()}),
        seq({std::make_shared<Linear>(s.hidden, s.outputs, init)})};
}

LayerPtr basicBlock(int in, int out, int stride, int groups, const InitOptions& init) {
    auto main =
        seq({std::make_shared<Conv2d>(in, out, 3, stride, 1, init, false),
             std::make_shared<GroupNorm>(groups, out, init), std::make_shared<ReLU>(),
             std::make_shared<Conv2d>(out, out, 3, 1, 1, init, false), std::make_shared<GroupNorm>(groups, out, init)});
    auto shortcut = seq({});
    if (stride != 1 || in != out) {
        shortcut->add(std::make_shared<Conv2d>(in, out, 1, stride, 0, init, false));
        shortcut->add(std::make_shared<GroupNorm>(groups, out, init));
    }
    return std::make_shared<Residual>(main, shortcut);
}

std::vector<LayerPtr> resnet18(const ModelSpec& s, const InitOptions& init) {
    const int w = s.resnetWidth, g = s.normGroups;
    std::vector<LayerPtr> blocks;
    if (std::min(s.height, s.width) < 64) {
        // Small images (MNIST, CIFAR): a 3×3 stem that keeps the resolution.
        blocks.push_back(seq({std::make_shared<Conv2d>(s.channels, w, 3, 1, 1, init, false),
                              std::make_shared<GroupNorm>(g, w, init), std::make_shared<ReLU>()}));
    } else {
        blocks.push_back(
            seq({std::make_shared<Conv2d>(s.channels, w, 7, 2, 3, init, false), std::make_shared<GroupNorm>(g, w, init),
                 std::make_shared<ReLU>(), std::make_shared<MaxPool2d>(2)}));
    }
    int in = w;
    for (int stage = 0; stage < 4; ++stage) {
        const int out = w << stage;
        blocks.push_back(basicBlock(in, out, stage == 0 ? 1 : 2, g, init));
        blocks.push_back(basicBlock(out, out, 1, g, init));
        in = out;
    }
    blocks.push_back(seq({std::make_shared<GlobalAvgPool>(), std::make_shared<Linear>(in, s.outputs, init)}));
    return blocks;
}

// PSG's ConvNet (Chen et al. 2022; Zhao et al.'s dataset-condensation network): `depth` blocks of
// Conv(3×3, pad 1) - instance norm - ReLU - AvgPool2, then one linear head. Instance norm is
// GroupNorm with one group per channel (per-example, so per-example clipping stays valid).
std::vector<LayerPtr> convNet(const ModelSpec& s, const InitOptions& init) {
    std::vector<LayerPtr> blocks;
    int in = s.channels, h = s.height, w = s.width;
    for (int d = 0; d < s.convNetDepth; ++d) {
        blocks.push_back(seq({std::make_shared<Conv2d>(in, s.convNetWidth, 3, 1, 1, init),
                              std::make_shared<GroupNorm>(s.convNetWidth, s.convNetWidth, init),
                              std::make_shared<ReLU>(), std::make_shared<AvgPool2d>(2)}));
        in = s.convNetWidth;
        h /= 2;
        w /= 2;
    }
    const int64_t flat = static_cast<int64_t>(in) * h * w;
    blocks.push_back(seq({std::make_shared<Flatten>(), std::make_shared<Linear>(flat, s.outputs, init)}));
    return blocks;
}

std::vector<LayerPtr> mlp(const ModelSpec& s, const InitOptions& init) {
    std::vector<LayerPtr> blocks;
    int64_t in = static_cast<int64_t>(s.channels) * s.height * s.width;
    for (std::size_t i = 0; i < s.mlpHidden.size(); ++i) {
        auto block = seq({});
        if (i == 0) block->add(std::make_shared<Flatten>());
        block->add(std::make_shared<Linear>(in, s.mlpHidden[i], init));
        block->add(std::make_shared<ReLU>());
        blocks.push_back(block);
        in = s.mlpHidden[i];
    }
    auto head = seq({});
    if (s.mlpHidden.empty()) head->add(std::make_shared<Flatten>());
    head->add(std::make_shared<Linear>(in, s.outputs, init));
    blocks.push_back(head);
    return blocks;
}

}  // namespace

Tensor Network::forward(const Tensor& x, Tape* tape) {
    Tensor h = x;
    for (const auto& block : blocks_) h = block->forward(h, tape);
    return h;
}

std::vector<Tensor*> Network::parameters() {
    std::vector<Tensor*> out;
    for (const auto& block : blocks_)
        for (Tensor* p : block->parameters()) out.push_back(p);
    return out;
}

std::int64_t Network::parameterCount() {
    std::int64_t n = 0;
    for (Tensor* p : parameters()) n += p->numel();
    return n;
}

std::vector<float> Network::flatParameters() {
    std::vector<float> out;
    out.reserve(static_cast<std::size_t>(parameterCount()));
    for (Tensor* p : parameters()) {
        Tensor c = p->detach().to(at::kCPU, at::kFloat).contiguous();
        out.insert(out.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    }
    return out;
}

void Network::loadFlatParameters(const std::vector<float>& values) {
    at::NoGradGuard noGrad;
    std::size_t offset = 0;
    for (Tensor* p : parameters()) {
        Tensor src = at::from_blob(const_cast<float*>(values.data() + offset), p->sizes(), at::kFloat);
        p->copy_(src);
        offset += static_cast<std::size_t>(p->numel());
    }
}

std::vector<Tensor*> Network::trainableParameters() {
    std::vector<Tensor*> out;
    for (Tensor* p : parameters())
        if (p->requires_grad()) out.push_back(p);
    return out;
}

void Network::trainOnlyLastBlocks(int count) {
    const int n = blockCount();
    for (int i = 0; i < n; ++i) blocks_[i]->setFrozen(count > 0 && count < n && i < n - count);
}

namespace {
void setStrategy(Layer& layer, NormStrategy strategy) {
    if (auto* t = dynamic_cast<TrainableLayer*>(&layer)) t->setNormStrategy(strategy);
    for (Layer* child : layer.children()) setStrategy(*child, strategy);
}
}  // namespace

void Network::setNormStrategy(NormStrategy strategy) {
    for (const auto& block : blocks_) setStrategy(*block, strategy);
}

Network buildNetwork(const ModelSpec& spec, at::Generator& generator, at::TensorOptions options) {
    InitOptions init{options, &generator};
    switch (spec.kind) {
        case ModelKind::SmallCnn: return Network(smallCnn(spec, init));
        case ModelKind::ResNet18: return Network(resnet18(spec, init));
        case ModelKind::Mlp: return Network(mlp(spec, init));
        case ModelKind::ConvNet: return Network(convNet(spec, init));
    }
    throw std::invalid_argument("buildNetwork: unknown model kind");
}

Network buildNetworkOn(const ModelSpec& spec, at::Generator& generator, at::Device device, at::ScalarType dtype) {
    Network net = buildNetwork(spec, generator, at::TensorOptions().dtype(dtype));
    if (!device.is_cpu()) {
        at::NoGradGuard noGrad;
        for (Tensor* p : net.parameters()) *p = p->to(device).set_requires_grad(true);
    }
    return net;
}

at::Device deviceNamed(const std::string& name) {
    try {
        const at::Device device(name);
        if (device.is_cuda() && !at::hasCUDA())
            throw std::invalid_argument("device '" + name + "': this LibTorch build has no CUDA (docs/GPU.md)");
        return device;
    } catch (const c10::Error&) {
        throw std::invalid_argument("device '" + name + "' is not a LibTorch device: expected cpu, cuda or cuda:N");
    }
}

Tensor gatherImages(const ImageView& images, const std::vector<int64_t>& indices, at::Device device) {
    Tensor all = at::from_blob(const_cast<float*>(images.pixels.data()),
                               {images.count, images.channels, images.height, images.width}, at::kFloat);
    Tensor idx = at::from_blob(const_cast<int64_t*>(indices.data()), {static_cast<int64_t>(indices.size())}, at::kLong);
    return all.index_select(0, idx).to(device);
}

Tensor predictLogits(Network& net, const ImageView& images, at::Device device, int64_t batchSize) {
    at::NoGradGuard noGrad;
    std::vector<Tensor> parts;
    std::vector<int64_t> idx;
    for (int64_t start = 0; start < images.count; start += batchSize) {
        idx.clear();
        for (int64_t i = start; i < std::min(images.count, start + batchSize); ++i) idx.push_back(i);
        parts.push_back(net.forward(gatherImages(images, idx, device)).to(at::kCPU));
    }
    return at::cat(parts, 0);
}

}  // namespace detail

// ---- Model -------------------------------------------------------------------------------------

void setTorchThreads(int threads) { at::set_num_threads(std::max(1, threads)); }

Status checkDevice(const std::string& device) {
    try {
        const at::Device d = detail::deviceNamed(device);
        if (d.is_cuda() && d.has_index() && d.index() >= static_cast<int>(at::detail::getCUDAHooks().getNumGPUs()))
            return Error{"device '" + device + "': this machine has " +
                             std::to_string(at::detail::getCUDAHooks().getNumGPUs()) + " CUDA device(s)",
                         "device"};
        return std::nullopt;
    } catch (const std::invalid_argument& e) {
        return Error{e.what(), "device"};
    }
}

Model Model::create(const ModelSpec& spec, std::uint64_t seed, const std::string& device) {
    auto impl = std::make_shared<Impl>();
    impl->spec = spec;
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    impl->device = detail::deviceNamed(device);
    impl->network = detail::buildNetworkOn(spec, gen, impl->device);
    return Model(std::move(impl));
}

const ModelSpec& Model::spec() const { return impl_->spec; }
std::string Model::device() const { return impl_->device.str(); }

std::int64_t Model::parameterCount() const { return impl_->network.parameterCount(); }

std::vector<float> Model::parameters() const { return impl_->network.flatParameters(); }

Status Model::setParameters(const std::vector<float>& values) {
    if (static_cast<std::int64_t>(values.size()) != parameterCount())
        return Error{"model parameters: got " + std::to_string(values.size()) + " values, the " +
                     toString(impl_->spec.kind) + " model has " + std::to_string(parameterCount())};
    impl_->network.loadFlatParameters(values);
    return std::nullopt;
}

Result<std::vector<float>> Model::logits(const ImageView& images) const {
    if (auto e = checkImages("images", images)) return *e;
    if (auto e = checkImageShape("images", images, impl_->spec.channels, impl_->spec.height, impl_->spec.width))
        return *e;
    at::Tensor out = detail::predictLogits(impl_->network, images, impl_->device).contiguous();
    return std::vector<float>(out.data_ptr<float>(), out.data_ptr<float>() + out.numel());
}

Model Model::clone() const {
    Model copy = create(impl_->spec, 0, impl_->device.str());
    auto err = copy.setParameters(parameters());
    if (err) throw std::logic_error("Model::clone: " + err->message);
    return copy;
}

}  // namespace dpmix::train
