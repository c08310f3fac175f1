#pragma once
// Internal (torch) header: the two update rules the trainers use, acting on .grad() of a
// fixed parameter list (our layers are not torch::nn modules, so torch::optim is not used).
#include <ATen/ATen.h>

#include <cmath>
#include <vector>

namespace dpmix::train::detail {

/// SGD with optional heavy-ball momentum and L2 weight decay (PyTorch's update rule).
class SgdOptimizer {
public:
    SgdOptimizer(std::vector<at::Tensor*> params, double lr, double momentum = 0.0, double weightDecay = 0.0)
        : params_(std::move(params)),
          lr_(lr),
          momentum_(momentum),
          weightDecay_(weightDecay),
          buffers_(params_.size()) {}

    /// A step schedule (e.g. lr × 0.1 at half the epochs) keeps the momentum buffers.
    void setLearningRate(double lr) { lr_ = lr; }
    /// The momentum buffers (undefined until a parameter's first step): part of the state that
    /// data-parallel ranks keep identical.
    const std::vector<at::Tensor>& momentumBuffers() const { return buffers_; }

    void step() {
        at::NoGradGuard noGrad;
        for (std::size_t i = 0; i < params_.size(); ++i) {
            at::Tensor& p = *params_[i];
            if (!p.grad().defined()) continue;
            at::Tensor d = p.grad();
            if (weightDecay_ != 0.0) d = d + weightDecay_ * p;
            if (momentum_ != 0.0) {
                if (!buffers_[i].defined())
                    buffers_[i] = d.clone();
                else
                    buffers_[i].mul_(momentum_).add_(d);
                d = buffers_[i];
            }
            p.sub_(d, lr_);
        }
    }

private:
    std::vector<at::Tensor*> params_;
    double lr_, momentum_, weightDecay_;
    std::vector<at::Tensor> buffers_;
};

/// Adam (Kingma & Ba) with PyTorch's defaults β = (0.9, 0.999), ε = 1e-8.
class AdamOptimizer {
public:
    AdamOptimizer(std::vector<at::Tensor*> params, double lr, double weightDecay = 0.0)
        : params_(std::move(params)), lr_(lr), weightDecay_(weightDecay), m_(params_.size()), v_(params_.size()) {}

    void step() {
        at::NoGradGuard noGrad;
        ++t_;
        const double bc1 = 1.0 - std::pow(0.9, t_), bc2 = 1.0 - std::pow(0.999, t_);
        for (std::size_t i = 0; i < params_.size(); ++i) {
            at::Tensor& p = *params_[i];
            if (!p.grad().defined()) continue;
            at::Tensor d = p.grad();
            if (weightDecay_ != 0.0) d = d + weightDecay_ * p;
            if (!m_[i].defined()) {
                m_[i] = at::zeros_like(p);
                v_[i] = at::zeros_like(p);
            }
            m_[i].mul_(0.9).add_(d, 0.1);
            v_[i].mul_(0.999).addcmul_(d, d, 0.001);
            at::Tensor denom = (v_[i] / bc2).sqrt_().add_(1e-8);
            p.addcdiv_(m_[i], denom, -lr_ / bc1);
        }
    }

private:
    std::vector<at::Tensor*> params_;
    double lr_, weightDecay_;
    std::vector<at::Tensor> m_, v_;
    long long t_ = 0;
};

inline void zeroGradients(const std::vector<at::Tensor*>& params) {
    for (at::Tensor* p : params)
        if (p->grad().defined()) p->mutable_grad() = at::Tensor();
}

}  // namespace dpmix::train::detail
