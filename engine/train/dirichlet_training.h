#pragma once
// Dirichlet-mechanism fine-tuning (Rao, Hawkins, Benvenuti, Hale 2026; docs/ALGORITHMS.md C).
// Each step: Poisson-sample the batch; for every sampled example replace the model's softmax
// output s by p̃ ~ Dir(r·s + α·1) (reparameterised Gamma draws, so the gradient flows through
// the sample); minimise −log p̃_y averaged over the realised batch; no clipping, no Gaussian
// noise. r* comes from privacy::calibrateDirichletR. Labels are treated as public. The ledger
// entry (privacy::dirichletEntry) is marked "claimed by its authors, not established".
// A single-logit model is treated as two classes with logits (0, z).
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/privacy/ledger.h"
#include "engine/train/finetune.h"
#include "engine/train/images.h"
#include "engine/train/model.h"
#include "engine/train/training_params.h"

#include <cstdint>
#include <span>

namespace dpmix::train {

/// The ledger entry finetuneDirichlet records for these parameters on n examples (r calibrated
/// to (ε, δ, α, q, T) unless given), known before any data is touched.
Result<privacy::LedgerEntry> plannedDirichletEntry(const DirichletParams& params, std::int64_t n);

Result<FinetuneResult> finetuneDirichlet(Model& model, const ImageView& images, std::span<const int> labels,
                                         const DirichletParams& params, privacy::Ledger& ledger,
                                         const ProgressCallback& progress = {}, const CancellationToken& cancel = {});

}  // namespace dpmix::train
