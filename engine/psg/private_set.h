#pragma once
// Private Set Generation (docs/PSG.md): a small labelled synthetic set S, `imagesPerClass` images
// per class, learned so that a classifier's gradients on S match DP gradients on the sensitive
// images. Only the DP gradient touches sensitive data; S is its post-processing, so S may be
// shared and trained on freely once its ledger entry is spent. Torch-free header.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/privacy/ledger.h"
#include "engine/psg_set/private_set_data.h"
#include "engine/psg_set/psg_params.h"
#include "engine/train/images.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace dpmix::psg {

/// The untrained start of S (the same N(0, 1) draw in normalised space that generation starts
/// from, for the same seed): the "noise" reference of the evaluation.
PrivateSet initialPrivateSet(int classes, int channels, int height, int width, const PsgParams& params);

struct PsgResult {
    PrivateSet set;
    privacy::LedgerEntry entry;     // as recorded in the ledger before the first step
    long long dpGradientSteps = 0;  // Gaussian mechanism invocations actually run (= entry.steps when done)
    std::vector<double> matchLoss;  // mean matching distance per iteration
};

struct PsgControl {
    ProgressCallback progress;  // stage "psg", done/total = matching steps
    CancellationToken cancel;   // polled at every matching and training step
    /// Called with the current S every `snapshotEvery` iterations (a live view); never the
    /// sensitive data. The set passed is a copy the receiver may keep.
    std::function<void(const PrivateSet&, int iteration)> snapshot;
    int snapshotEvery = 10;
};

/// Generates S from `images` (the sensitive training images, pixels in [0, 1]) with class
/// `labels` in [0, classes). Records plannedPsgEntry() in `ledger` before any data is touched
/// (a cancelled run has spent at most that). Errors (nothing recorded): images that are not
/// finite or sized, labels out of range or not one per image, fewer than 2 classes, batch > N,
/// a network that does not fit the image size. Throws dpmix::Cancelled when cancelled.
Result<PsgResult> generatePrivateSet(const train::ImageView& images, std::span<const int> labels, int classes,
                                     const PsgParams& params, privacy::Ledger& ledger, const PsgControl& control = {});

}  // namespace dpmix::psg
