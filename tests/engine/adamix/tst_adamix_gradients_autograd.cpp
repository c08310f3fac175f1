// The closed-form per-example gradients of the softmax head, R_i ⊗ φ̃_i, against LibTorch's
// autograd of the per-example cross-entropy, one backward pass per example, in double precision.
#include "adamix_fixtures.h"
#include "engine/adamix/softmax_head.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>

#include "tests/support/unit_test.h"

using namespace dpmix::adamix;
using dpmix::test_support::str;

class TestAdamixGradientsAutograd : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void closedFormEqualsAutograd() {
        const int k = 4, p = 8;
        const auto data = test::labelledBlobs(k, p, 6, 1.5, 201);
        const HeadMatrix theta = test::randomHead(k, p + 1, 0.9, 202);
        const RowMatrix closedForm = perExampleGradients(residuals(theta, data), data.augmented);

        const auto options = at::TensorOptions().dtype(at::kDouble);
        for (Eigen::Index i = 0; i < data.examples(); ++i) {
            at::Tensor w =
                at::from_blob(const_cast<double*>(theta.data()), {k, p + 1}, options).clone().set_requires_grad(true);
            const Eigen::RowVectorXd phi = data.augmented.row(i);
            const at::Tensor x = at::from_blob(const_cast<double*>(phi.data()), {p + 1}, options).clone();
            const at::Tensor logits = at::matmul(w, x);  // W φ + b, the bias being the last column
            const at::Tensor loss = -at::log_softmax(logits, 0)[data.labels(i)];
            const at::Tensor grad = torch::autograd::grad({loss}, {w})[0].contiguous();  // K × (p+1), row-major
            const Eigen::Map<const Eigen::VectorXd> autograd(grad.data_ptr<double>(), k * (p + 1));
            const double diff = (closedForm.row(i).transpose() - autograd).norm();
            QVERIFY2(diff < 1e-13, str("example ", i, ": difference ", diff).c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestAdamixGradientsAutograd)
#include "tst_adamix_gradients_autograd.moc"
