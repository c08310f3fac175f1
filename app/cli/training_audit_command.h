#pragma once
// `dpmix audit … --mechanism dirichlet|dp-sgd|sgd`: the canary audit of a fine-tuning mechanism
// (engine/audit_runs/training_audit_stage.h, docs/AUDIT.md "Auditing fine-tuning mechanisms").
// The audit command parses the shared flags and hands the text values here.
#include <string>

namespace dpmix::cli {

struct TrainingAuditCliArgs {
    std::string project, task, mechanism, canary;
    std::string runs;        // empty: 1000
    std::string epsilon;     // empty: the spec's first
    std::string accountant;  // empty: the spec's
    std::string seed = "0";
    int threads = 0;
    std::string device = "auto";
    std::string examples, steps = "50", batch, lr, normMultiple = "10";  // empty examples/batch: automatic
    bool json = false;
};

/// Runs the audit and prints its result; returns the exit code (2 for bad input, nothing stored).
int executeTrainingAudit(const TrainingAuditCliArgs& args);

}  // namespace dpmix::cli
