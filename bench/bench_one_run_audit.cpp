// The one-run audit (engine/training_audit/one_run_audit.h) beside the R-run canary audit
// (training_audit.h) on the same logistic head: Fashion-MNIST, task "warm clothing" (Pullover,
// Coat, Ankle boot), D = the first |D| training images, q = B/|D|, T = 50, C = 1, δ = 1e-5,
// large-norm canaries (10× D's mean image norm). Cells: Dirichlet and DP-SGD at ε ∈ {1, 4, 8}
// and the non-private SGD control. docs/AUDIT.md, "One-run audits", has the table and commands.
//
//   bench_one_run_audit [--data DIR] [--examples N] [--canaries M] [--guess-fraction F] [--runs R]
//                       [--threads T] [--seed S] [--only one-run|r-run]
#include "engine/core/program_guard.h"
#include "engine/data/idx_file.h"
#include "engine/train/model.h"
#include "engine/training_audit/one_run_audit.h"
#include "engine/training_audit/training_audit.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace dpmix;
using namespace dpmix::training_audit;

namespace {

struct Args {
    std::string data = "data/fashion-mnist";
    long long examples = 1000, canaries = 1000, runs = 1000;
    double guessFraction = 0.1;
    int threads = 2;
    std::uint64_t seed = 0;
    std::string only;
    std::string canary = "large-norm";  // the one-run audit's canaries: large-norm, flipped-label, gradient-aligned
};

Args parse(int argc, char** argv) {
    Args a;
    if (const char* env = std::getenv("DPMIX_DATA_DIR")) a.data = std::string(env) + "/fashion-mnist";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--data")
            a.data = v;
        else if (k == "--examples")
            a.examples = std::stoll(v);
        else if (k == "--canaries")
            a.canaries = std::stoll(v);
        else if (k == "--guess-fraction")
            a.guessFraction = std::stod(v);
        else if (k == "--runs")
            a.runs = std::stoll(v);
        else if (k == "--threads")
            a.threads = std::stoi(v);
        else if (k == "--seed")
            a.seed = std::stoull(v);
        else if (k == "--only")
            a.only = v;
        else if (k == "--canary")
            a.canary = v;
    }
    return a;
}

struct Data {
    std::vector<float> pixels;
    std::vector<int> labels;
    long long count = 0;
    train::ImageView view() const { return {pixels, count, 1, 28, 28}; }
    // Flipped-label canaries: the training images after D (never in it); gradient-aligned: the
    // public t10k images.
    std::vector<float> heldOutPixels, publicPixels;
    std::vector<int> heldOutLabels;
    long long heldOutCount = 0, publicCount = 0;
};

// `count` images from `first` of an IDX pair, with the warm-clothing label.
void appendImages(const data::IdxArray& images, const data::IdxArray& labels, long long first, long long count,
                  std::vector<float>& pixels, std::vector<int>* binary) {
    for (long long i = first * 784; i < (first + count) * 784; ++i)
        pixels.push_back(static_cast<float>(images.data()[i]) / 255.0f);
    if (binary)
        for (long long i = first; i < first + count; ++i) {
            const int c = labels.data()[i];
            binary->push_back(c == 2 || c == 4 || c == 9 ? 1 : 0);  // warm clothing
        }
}

Result<Data> loadData(const Args& a) {
    auto images = data::readIdxFile(a.data + "/train-images-idx3-ubyte.gz");
    if (!images) return images.error();
    auto labels = data::readIdxFile(a.data + "/train-labels-idx1-ubyte.gz");
    if (!labels) return labels.error();
    Data d;
    const auto n = static_cast<long long>(images->dims[0]);
    d.count = std::min<long long>(a.examples, n);
    appendImages(*images, *labels, 0, d.count, d.pixels, &d.labels);
    d.heldOutCount = std::min<long long>(a.canaries, n - d.count);
    appendImages(*images, *labels, d.count, d.heldOutCount, d.heldOutPixels, &d.heldOutLabels);
    auto pub = data::readIdxFile(a.data + "/t10k-images-idx3-ubyte.gz");
    if (!pub) return pub.error();
    d.publicCount = std::min<long long>(2000, static_cast<long long>(pub->dims[0]));
    appendImages(*pub, *labels, 0, d.publicCount, d.publicPixels, nullptr);
    return d;
}

double seconds(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Cell {
    AuditedMechanism mechanism;
    double epsilon;
};

void oneRun(const Args& a, const Data& d, const Cell& c) {
    OneRunAuditOptions o;
    o.mechanism = c.mechanism;
    o.epsilon = c.epsilon;
    o.canaries = a.canaries;
    o.guessFraction = a.guessFraction;
    o.seed = a.seed;
    if (!parseTrainingCanaryKind(a.canary, o.canary))
        return (void)std::printf("--canary %s: expected large-norm, flipped-label or gradient-aligned\n",
                                 a.canary.c_str());
    OneRunAuditData data;
    data.images = d.view();
    data.labels = d.labels;
    data.heldOut = {d.heldOutPixels, d.heldOutCount, 1, 28, 28};
    data.heldOutLabels = d.heldOutLabels;
    data.publicImages = {d.publicPixels, d.publicCount, 1, 28, 28};
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = runOneRunAudit(data, o);
    const double s = seconds(t0);
    if (!r) return (void)std::printf("one-run %s: %s\n", toString(c.mechanism), r.error().message.c_str());
    std::printf("| one-run | %s | %s | %g | %.3f | m %lld (%lld in) | %lld | %lld | noise %.4g | %.2f s |\n",
                toString(c.mechanism), a.canary.c_str(), c.epsilon, r->epsilonLB, r->canaries, r->included, r->guesses,
                r->correct, r->noise, s);
}

void rRun(const Args& a, const Data& d, const Cell& c) {
    TrainingAuditOptions o;
    o.mechanism = c.mechanism;
    o.epsilon = c.epsilon;
    o.runsPerWorld = a.runs;
    o.threads = a.threads;
    o.seed = a.seed;
    const long long ones = std::count(d.labels.begin(), d.labels.end(), 1);
    auto canary = largeNormCanary(d.view(), 10.0, 2 * ones < d.count ? 1 : 0);  // the minority label
    if (!canary) return (void)std::printf("canary: %s\n", canary.error().message.c_str());
    TrainingAuditData data{d.view(), d.labels, *canary};
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = runTrainingAudit(data, o);
    const double s = seconds(t0);
    if (!r) return (void)std::printf("r-run %s: %s\n", toString(c.mechanism), r.error().message.c_str());
    std::printf(
        "| r-run | %s | %g | %.3f | R %lld per world | FP %lld / FN %lld of %lld + %lld | noise %.4g | %.1f s |\n",
        toString(c.mechanism), c.epsilon, r->epsilonLB, r->runsPerWorld, r->falsePositives, r->falseNegatives,
        r->evalOut, r->evalIn, r->noise, s);
}

int run(int argc, char** argv) {
    const Args a = parse(argc, argv);
    const auto d = loadData(a);
    if (!d) {
        std::fprintf(stderr, "%s\n", d.error().message.c_str());
        return 1;
    }
    std::vector<Cell> cells;
    for (auto m : {AuditedMechanism::Dirichlet, AuditedMechanism::DpSgd})
        for (double eps : {1.0, 4.0, 8.0}) cells.push_back({m, eps});
    cells.push_back({AuditedMechanism::Sgd, 0.0});
    std::printf("|D| = %lld, m = %lld, guess fraction %g, R = %lld, seed %llu\n", d->count, a.canaries, a.guessFraction,
                a.runs, static_cast<unsigned long long>(a.seed));
    if (a.only != "r-run") {
        train::setTorchThreads(a.threads);  // one training: LibTorch uses the cores inside it
        for (const auto& c : cells) oneRun(a, *d, c);
    }
    if (a.only != "one-run") {
        train::setTorchThreads(1);  // R-run: the trainings are spread over the cores instead
        for (const auto& c : cells) rRun(a, *d, c);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return guardedMain("bench_one_run_audit", [&] { return run(argc, argv); });
}
