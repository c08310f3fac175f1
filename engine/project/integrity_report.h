#pragma once
// Everything a reading command checks before it shows a project's figures (`dpmix inspect`,
// `budget`, `results`, `verify`, the workbench's verdict): the hash chain, the seal over the last
// rows and the runs' statuses, each run's status against its sealed history, every ledger
// recomputed and compared with the spec, optionally the model files against their recorded
// hashes, and the owner's signatures. Without a key this catches accidents and naive edits;
// with the owner's public key, `dpmix verify` also proves origin (docs/PRIVACY.md).
#include "engine/project/file_signature.h"
#include "engine/project/hash_chain.h"
#include "engine/project/run_transitions.h"
#include "engine/project/seal.h"

#include <string>
#include <vector>

namespace dpmix::project {

class ProjectFile;

struct IntegrityOptions {
    bool hashModels = false;  // read every model file and compare its SHA-256 (inspect, verify)
};

struct IntegrityReport {
    long long schemaVersion = 0;
    bool release = false;
    ChainVerification chain;
    SealCheck seal;
    TransitionCheck transitions;
    std::vector<std::string> ledgerProblems;
    bool modelsChecked = false;
    long long modelFiles = 0;
    std::vector<std::string> modelProblems;
    std::vector<SignatureCheck> signatures;

    /// Nothing found wrong. A signature that no longer covers a project (written to after it was
    /// signed) is a notice, not a failure; in a release, which is never written, it is a failure.
    bool ok() const;
    /// Everything found wrong, one sentence each (the chain's break first).
    std::vector<std::string> problems() const;
    /// What could not be checked: the seals of a file older than schema 6, read without migrating.
    std::vector<std::string> notices() const;
    /// One line for the top of a command's output: "hash chain ✓ (N rows) ..." or what is wrong.
    std::string summaryLine() const;
    /// Who signed, and whether it verifies: one line per signature ("not signed" when none).
    std::vector<std::string> signatureLines() const;
};

}  // namespace dpmix::project
