#pragma once
// What every study runner shares (image and text studies alike): the life cycle of a stored
// run, and the small conversions between engine values and project records. Header-only, so
// the torch-free text-study library and the image pipeline both use it without linking each
// other.
#include "engine/core/cancellation.h"
#include "engine/core/result.h"
#include "engine/data/source_loader.h"
#include "engine/privacy/ledger.h"
#include "engine/project/project_file.h"
#include "engine/project/project_spec.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::pipeline {

inline std::vector<double> toStdVector(const Eigen::VectorXd& v) { return {v.data(), v.data() + v.size()}; }

/// The error of a storage call, if any (storage calls return the new row id).
inline Status errorOf(const Result<long long>& r) {
    if (!r) return r.error();
    return std::nullopt;
}

/// Runs `body(runId)` inside a stored run: queued → running → done, or failed with the body's
/// error, or cancelled (and rethrown) when the body throws Cancelled.
template <typename Body>
Result<long long> storedRun(project::ProjectFile& project, const project::NewRun& spec, Body&& body) {
    auto id = project.addRun(spec);
    if (!id) return id.error();
    if (auto s = project.setRunStatus(*id, project::RunStatus::Running); !s) return s.error();
    try {
        if (auto err = body(*id)) {
            (void)project.setRunStatus(*id, project::RunStatus::Failed, err->message);
            return *err;
        }
    } catch (const Cancelled&) {
        (void)project.setRunStatus(*id, project::RunStatus::Cancelled, "cancelled by the user");
        throw;
    }
    if (auto s = project.setRunStatus(*id, project::RunStatus::Done); !s) return s.error();
    return *id;
}

/// Records a run that was cancelled before its results existed (e.g. during mixture learning,
/// whose runs are otherwise written when the stage finishes), so the project shows what was
/// interrupted. The run row carries no results: nothing computed on sensitive data was released.
inline void recordCancelledRun(project::ProjectFile& project, const project::NewRun& spec, const std::string& stage) {
    auto id = project.addRun(spec);
    if (!id) return;  // the cancellation itself is what the caller reports
    (void)project.setRunStatus(*id, project::RunStatus::Cancelled,
                               "cancelled by the user during " + stage + "; no result was released or stored");
}

/// Stores a run as running with the ledger of the mechanism that is about to start on sensitive
/// data, before it starts (docs/PRIVACY.md: a mechanism records itself in the ledger before it
/// runs); `id` gets the run's id. On a storage error the run is marked failed and the mechanism
/// must not start.
inline Status startMechanismRun(project::ProjectFile& project, const project::NewRun& run,
                                privacy::Composition composition, const privacy::LedgerEntry& planned, long long& id) {
    auto added = project.addRun(run);
    if (!added) return added.error();
    id = *added;
    if (auto s = project.setRunStatus(id, project::RunStatus::Running); !s) return s.error();
    privacy::Ledger ledger(composition);
    ledger.record(planned);
    if (auto r = project.recordLedger(id, ledger); !r) {
        (void)project.setRunStatus(id, project::RunStatus::Failed, r.error().message);
        return r.error();
    }
    return std::nullopt;
}

/// A mechanism that started on sensitive data and then stopped (cancelled, failed) before its run
/// was stored: the run is kept with the mechanism's ledger and `status`, because what it spent is
/// spent whether or not anything was released. Image and text studies keep their stopped
/// mechanisms through this one function.
inline void keepStartedMechanism(project::ProjectFile& project, const project::NewRun& run,
                                 privacy::Composition composition, const privacy::LedgerEntry& spent,
                                 project::RunStatus status, const std::string& why) {
    auto id = project.addRun(run);
    if (!id) return;  // the stop itself is what the caller reports
    privacy::Ledger ledger(composition);
    ledger.record(spent);
    (void)project.setRunStatus(*id, project::RunStatus::Running);
    (void)project.recordLedger(*id, ledger);
    (void)project.setRunStatus(*id, status, why);
}

/// Mail studies at user level protect a sender address, not a person: the ledger states it.
inline constexpr const char* kSenderAddressUnit =
    "a user is one sender address (the From: header): a person writing from several addresses is several users, "
    "and the guarantee holds per address";

inline privacy::LedgerEntry withSenderAddressUnit(privacy::LedgerEntry e) {
    if (e.unit == privacy::PrivacyUnit::User && e.mechanism != privacy::MechanismKind::NonPrivate &&
        e.assumptions.find(kSenderAddressUnit) == std::string::npos)
        e.assumptions += std::string(e.assumptions.empty() ? "" : "; ") + kSenderAddressUnit;
    return e;
}

inline privacy::Ledger withSenderAddressUnit(const privacy::Ledger& ledger) {
    privacy::Ledger out(ledger.composition());
    for (const auto& e : ledger.entries()) out.record(withSenderAddressUnit(e));
    return out;
}

/// Model weights as stored bytes (native float layout: the file is read back on this build).
inline std::string floatsToBytes(const std::vector<float>& values) {
    std::string bytes(values.size() * sizeof(float), '\0');
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

inline std::vector<float> bytesToFloats(const std::string& bytes) {
    std::vector<float> values(bytes.size() / sizeof(float));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
    return values;
}

/// The loader options a spec gives for the source called `name`.
inline std::map<std::string, std::string> sourceOptions(const project::ProjectSpec& spec, const std::string& name) {
    for (const auto& s : spec.publicSources)
        if (s.written.name == name) return s.written.options;
    if (spec.sensitive.written.name == name) return spec.sensitive.written.options;
    return {};
}

/// What loading a source told the data layer, as the project file records it.
inline Result<project::SourceFacts> summarizeWithDataLayer(const data::SourceSpec& spec) {
    auto summary = data::summarizeSource(spec);
    if (!summary) return summary.error();
    const data::SourceSummary& s = *summary;
    project::SourceFacts facts;
    facts.kind = s.kind;
    facts.examples = s.examples;
    facts.labelNames = s.labelNames;
    facts.domains = s.domains;
    facts.users = s.users;
    facts.contentHash = s.contentHash;
    facts.channels = s.channels;
    facts.height = s.height;
    facts.width = s.width;
    return facts;
}

/// The images `indices` of a data set, copied into one contiguous N×C×H×W buffer.
inline std::vector<float> gatherImages(const data::ImageDataset& images, const std::vector<std::size_t>& indices) {
    const std::size_t size = images.imageSize();
    std::vector<float> out(indices.size() * size);
    for (std::size_t r = 0; r < indices.size(); ++r)
        std::copy_n(images.pixels.begin() + static_cast<std::ptrdiff_t>(indices[r] * size), size,
                    out.begin() + static_cast<std::ptrdiff_t>(r * size));
    return out;
}

}  // namespace dpmix::pipeline
