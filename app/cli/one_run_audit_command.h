#pragma once
// `dpmix audit PROJECT --one-run --mechanism dp-sgd|dirichlet|sgd --task T [--canaries m]
// [--guesses k] [--canary large-norm|flipped-label|gradient-aligned | --white-box] [--epsilon E]
// [--seed S] [--steps N] [--json]`: the one-run audit of the study's own fine-tuning
// (engine/audit_runs/one_run_audit_stage.h, docs/AUDIT.md "One-run audits"). The audit command
// parses the shared flags and hands the text values here.
#include <string>

namespace dpmix::cli {

struct OneRunAuditCliArgs {
    std::string project, task, mechanism;
    std::string canary;             // empty: large-norm
    std::string canaries = "1000";  // m
    std::string guesses;            // empty: round(0.1 m) each way
    std::string epsilon;            // empty: the spec's first
    std::string accountant;         // empty: the spec's
    std::string seed = "0";
    std::string steps;  // empty: the spec's stages.finetune.steps
    std::string normMultiple = "10";
    std::string device = "auto";
    bool json = false;
    bool whiteBox = false;  // --white-box: Dirac canary gradients (DP-SGD and SGD only)
};

/// Runs the audit and prints its result; returns the exit code (2 for bad input, nothing stored).
int executeOneRunAudit(const OneRunAuditCliArgs& args);

}  // namespace dpmix::cli
