// dpmix run's grid as cluster work units without Slurm: a stand-in sbatch accepts the job, each
// unit runs in this process (as `dpmix worker` would), the merge imports the runs, and the result
// is compared with a local runStudy on a copy of the same project — same run rows, metrics bit
// for bit, the same λ records, ledgers and models; a second merge imports nothing; the hash
// chain verifies; stage values other than the spec's reach every unit (runs and ledgers record
// them); a damaged scratch project is refused. A grid with secret randomness: tst_secret_units.
#include "engine/data/sha256.h"
#include "engine/executor/cluster_jobs.h"
#include "engine/executor/run_units.h"
#include "engine/pipeline/study_runner.h"
#include "engine/project/project_budget.h"
#include "engine/project/project_opener.h"
#include "tests/engine/pipeline/tiny_image_study.h"
#include "unit_job_fixture.h"

#include "tests/support/own_budget_store.h"
#include "tests/support/unit_test.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

using namespace dpmix;
using namespace dpmix::pipeline;
using namespace dpmix::executor;
namespace fs = std::filesystem;

namespace {

const char* kDpSgdFinetune = R"({"batch": 64, "lr": 0.05, "steps": 2, "clip": 1.0})";

std::string specText(bool reproducible, const std::string& budget = "", const std::string& finetune = kDpSgdFinetune) {
    return R"({
  "name": "tiny-grid",
  "description": "4 classes; 3 public tasks; 2 sensitive tasks",
)" + testing::tinyStudyData() +
           R"(  "privacy": {"epsilon": 2, "delta": 1e-5, "rho": 0.3, "reproducible": )" +
           (reproducible ? "true" : "false") + (budget.empty() ? "" : ", \"budget\": " + budget) + R"(},
  "stages": {"mixture": {"clip": 13, "batch": 1000, "lr": 1.0, "steps": 5},
             "pretrain": {"batch": 32, "lr": 0.1, "steps": 2},
             "finetune": )" +
           finetune + R"(},
  "seeds": [0]
})";
}

// The one scratch project under a unit's folder (its attempt's folder is named at random).
fs::path onlyScratchProject(const fs::path& unitDir) {
    std::vector<fs::path> found;
    for (const auto& e : fs::recursive_directory_iterator(unitDir))
        if (e.path().filename() == "project.dpmix") found.push_back(e.path());
    return found.size() == 1 ? found.front() : fs::path{};
}

// The bytes of a scratch project as the unit's checksum covers them: the file, then its log.
std::string scratchSha256(const fs::path& file) {
    std::string bytes;
    for (const fs::path& part : {file, fs::path(file.string() + "-wal")}) {
        std::ifstream in(part, std::ios::binary);
        bytes += std::string(std::istreambuf_iterator<char>(in), {});
    }
    return data::sha256Hex(bytes);
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::vector<project::RunRecord> runsAfter(const project::ProjectFile& p, long long after) {
    std::vector<project::RunRecord> out;
    for (const auto& r : p.runs().value())
        if (r.id > after) out.push_back(r);
    return out;
}

}  // namespace

class TestRunUnits : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;

    project::ProjectFile freshProject(const std::string& name, bool reproducible, const std::string& budget = "",
                                      const std::string& finetune = kDpSgdFinetune) {
        return testing::createProjectFromSpecText(dir_.path(), name, specText(reproducible, budget, finetune));
    }

    // The grid of `options` on `p` as cluster units (run here) and merged, and the same options
    // run locally on a copy of `p` taken after the submission's proxy: every run equal. Returns
    // the local runs (of the copy under `local`).
    std::vector<project::RunRecord> clusterEqualsLocal(project::ProjectFile& p, const StudyRunOptions& options,
                                                       const std::string& local) {
        auto frozen = freezeStudyRun(p, options);
        if (!frozen.ok()) qWarning("%s", frozen.error().message.c_str());
        if (!frozen.ok()) return {};
        const long long after = p.runs().value().back().id;
        const fs::path localDir = fs::path(dir_.path()) / local;
        if (snapshotProject(p, localDir)) return {};
        auto copy = project::ProjectFile::open(localDir / "snapshot" / "project.dpmix").value();
        const auto units = studyRunWorkUnits(resolveRunChoices(p.spec(), options).seeds);
        auto job = cluster::submitJob(p, cluster::JobKind::Run, *frozen, units, {}, false,
                                      [&](const fs::path& d) { return snapshotProject(p, d); });
        if (!job.ok()) return {};
        for (const auto& u : units)
            if (auto e = cluster::runWorkerUnit(job->dir, u.id, 1)) {
                qWarning("%s", e->message.c_str());
                return {};
            }
        auto merged = cluster::mergeJobs(p, job->jobId);
        if (!merged.ok()) return {};
        auto report = runStudy(copy, options);
        if (!report.ok()) return {};
        const auto clusterRuns = runsAfter(p, after), localRuns = runsAfter(copy, after);
        if (clusterRuns.size() != localRuns.size()) return {};
        for (std::size_t i = 0; i < localRuns.size(); ++i) compareRun(p, clusterRuns[i], copy, localRuns[i]);
        return localRuns;
    }

    // Run rows, metrics, λ records, ledgers and models of two runs: equal, numbers bit for bit.
    static void compareRun(const project::ProjectFile& a, const project::RunRecord& ra, const project::ProjectFile& b,
                           const project::RunRecord& rb) {
        const std::string what = ra.method + " seed " + std::to_string(ra.seed);
        QCOMPARE(ra.id, rb.id);
        QCOMPARE(ra.method, rb.method);
        QCOMPARE(ra.task, rb.task);
        QCOMPARE(ra.seed, rb.seed);
        QVERIFY2(
            ra.epsilon.has_value() == rb.epsilon.has_value() && (!ra.epsilon || sameBits(*ra.epsilon, *rb.epsilon)),
            what.c_str());
        QVERIFY2(ra.status == rb.status, what.c_str());
        QCOMPARE(ra.configJson, rb.configJson);
        const auto ma = a.metrics(ra.id).value(), mb = b.metrics(rb.id).value();
        QCOMPARE(ma.size(), mb.size());
        QVERIFY2(!ma.empty(), what.c_str());
        for (std::size_t i = 0; i < ma.size(); ++i) {
            QCOMPARE(ma[i].name, mb[i].name);
            QCOMPARE(ma[i].className, mb[i].className);
            QVERIFY2(sameBits(ma[i].value, mb[i].value), (what + " " + ma[i].name).c_str());
        }
        const auto la = a.lambdas(ra.id).value(), lb = b.lambdas(rb.id).value();
        QCOMPARE(la.size(), lb.size());
        for (std::size_t i = 0; i < la.size(); ++i) {
            QCOMPARE(la[i].kind, lb[i].kind);
            QCOMPARE(la[i].names, lb[i].names);
            QCOMPARE(la[i].values.size(), lb[i].values.size());
            for (std::size_t k = 0; k < la[i].values.size(); ++k)
                QVERIFY2(sameBits(la[i].values[k], lb[i].values[k]), what.c_str());
        }
        const auto ga = a.ledgers(ra.id).value(), gb = b.ledgers(rb.id).value();
        QCOMPARE(ga.size(), gb.size());
        QVERIFY2(!ga.empty(), what.c_str());
        for (std::size_t i = 0; i < ga.size(); ++i) {
            QCOMPARE(ga[i].ledgerJson, gb[i].ledgerJson);
            QVERIFY2(sameBits(ga[i].recordedEpsilon, gb[i].recordedEpsilon), what.c_str());
        }
        const auto oa = a.models(ra.id).value(), ob = b.models(rb.id).value();
        QCOMPARE(oa.size(), ob.size());
        for (std::size_t i = 0; i < oa.size(); ++i) {
            QCOMPARE(oa[i].name, ob[i].name);
            QCOMPARE(oa[i].contentHash, ob[i].contentHash);
            QVERIFY2(a.loadModel(oa[i]).ok(), what.c_str());
        }
    }

private Q_SLOTS:
    void init() { dpmix::test_support::useOwnBudgetStore(dir_); }
    void initTestCase() {
        QVERIFY(dir_.isValid());
        testing::prepareJobFolder(dir_.path(), {{"pub", 200, 1}, {"sens", 600, 2}}, "4242");  // the units run here
    }

    void gridUnitsMergeIntoTheLocalRuns() {
        auto p = freshProject("grid", true);
        const auto options = testing::gridOptions();
        auto frozen = freezeStudyRun(p, options);
        QVERIFY2(frozen.ok(), frozen.ok() ? "" : frozen.error().message.c_str());
        const long long after = p.runs().value().back().id;  // the proxy, trained once at submission
        QCOMPARE(p.runs().value().back().method, std::string("proxy"));
        const auto units = studyRunWorkUnits(resolveRunChoices(p.spec(), options).seeds);
        QCOMPARE(units.size(), std::size_t(2));  // one per seed
        QCOMPARE(units[1].seed, std::uint64_t(1));

        // The local run's starting point: the same project, proxy included.
        const fs::path localDir = fs::path(dir_.path()) / "local";
        QVERIFY(!snapshotProject(p, localDir));
        auto local = project::ProjectFile::open(localDir / "snapshot" / "project.dpmix").value();

        auto job = cluster::submitJob(p, cluster::JobKind::Run, *frozen, units, {}, false,
                                      [&](const fs::path& d) { return snapshotProject(p, d); });
        QVERIFY2(job.ok(), job.ok() ? "" : job.error().message.c_str());
        QCOMPARE(job->slurmJobId, std::string("4242"));
        QVERIFY(runsAfter(p, after).empty());  // workers never touch the project
        for (const auto& u : units) {
            auto e = cluster::runWorkerUnit(job->dir, u.id, 1);
            QVERIFY2(!e, e ? e->message.c_str() : "");
        }
        auto merged = cluster::mergeJobs(p);
        QVERIFY2(merged.ok(), merged.ok() ? "" : merged.error().message.c_str());
        QCOMPARE(merged->size(), std::size_t(1));
        QVERIFY(merged->front().imported);

        auto report = runStudy(local, options);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        const auto clusterRuns = runsAfter(p, after), localRuns = runsAfter(local, after);
        // 2 seeds × (2 methods' downstream runs + what the mixture stage stores): the local count.
        QCOMPARE(clusterRuns.size(), localRuns.size());
        QCOMPARE(merged->front().runIds.size(), localRuns.size());
        QVERIFY(localRuns.size() >= 4);
        for (std::size_t i = 0; i < localRuns.size(); ++i) compareRun(p, clusterRuns[i], local, localRuns[i]);
        for (const auto& d : report->downstream) QVERIFY(d.seed == 0 || d.seed == 1);

        // Merging again imports nothing; the hash chain holds.
        auto again = cluster::mergeJobs(p);
        QVERIFY(again.ok());
        QVERIFY(again->front().alreadyMerged);
        QVERIFY(again->front().runIds.empty());
        QCOMPARE(runsAfter(p, after).size(), localRuns.size());
        auto chain = p.verifyChain();
        QVERIFY(chain.ok() && chain->ok);

        // A damaged scratch project is refused, naming the file; nothing is stored.
        const fs::path scratch = onlyScratchProject(job->dir / "work" / "unit-1");
        QVERIFY(!scratch.empty());
        std::ofstream(scratch, std::ios::app) << 'x';
        auto damaged = cluster::mergeJobs(p);
        QVERIFY(!damaged.ok());
        QVERIFY2(damaged.error().message.find(scratch.string()) != std::string::npos, damaged.error().message.c_str());
        QVERIFY2(damaged.error().message.find("damaged") != std::string::npos, damaged.error().message.c_str());
        QCOMPARE(runsAfter(p, after).size(), localRuns.size());
    }

    // Two attempts of one unit that overlap in time (a resubmission while a lost task still
    // runs): each works on a scratch copy of its own, so the later one neither deletes nor
    // overwrites the earlier one's project, and each result names a file that matches its checksum
    // and holds that attempt's runs alone (docs/CLUSTER.md, "Secret runs").
    void overlappingAttemptsKeepTheirOwnScratchProjects() {
        auto p = freshProject("overlap.dpmix", true);
        const fs::path jobDir = fs::path(dir_.path()) / "overlap-job";
        QVERIFY(!snapshotProject(p, jobDir));
        const long long after = lastRunId(p).value();
        Result<std::string> later = Error{"not run"};
        auto earlier = runOnScratchCopy(jobDir, 0, after, [&](project::ProjectFile& scratch) -> Status {
            later = runOnScratchCopy(jobDir, 0, after, [](project::ProjectFile& second) -> Status {
                return second.addRun({"uniform", "", 2.0, 0, "{}"}).ok() ? Status{} : Error{"add"};
            });
            return scratch.addRun({"dp-mixmin", "", 2.0, 0, "{}"}).ok() ? Status{} : Error{"add"};
        });
        QVERIFY2(earlier.ok(), earlier.ok() ? "" : earlier.error().message.c_str());
        QVERIFY2(later.ok(), later.ok() ? "" : later.error().message.c_str());
        const auto first = nlohmann::json::parse(*earlier), second = nlohmann::json::parse(*later);
        QVERIFY(first["scratch"] != second["scratch"]);
        for (const auto& [result, method] : {std::pair{first, "dp-mixmin"}, std::pair{second, "uniform"}}) {
            const fs::path file = jobDir / result["scratch"].get<std::string>();
            QCOMPARE(scratchSha256(file), result["sha256"].get<std::string>());
            auto opened = project::ProjectFile::open(file, project::OpenMode::ReadOnly);
            QVERIFY(opened.ok());
            const auto runs = runsAfter(*opened, after);
            QCOMPARE(runs.size(), std::size_t{1});
            QCOMPARE(runs.front().method, std::string(method));
            QCOMPARE(result["runs"].size(), std::size_t{1});
        }
    }

    void stageValuesTravelWithTheGrid() {
        // Values other than the spec's (the workbench's Advanced values) reach every unit: the
        // merged runs equal a local run given the same values, and the runs record them.
        auto p = freshProject("staged", true);
        auto o = testing::gridOptions();
        o.seeds = {3};
        o.mixture = project::MixtureStage{7.5, 400, 0.7, 3, 0};
        o.pretrain = project::PretrainStage{16, 0.05, 3};
        project::FinetuneStage f;
        f.clip = 0.5;
        f.batch = 32;
        f.lr = 0.02;
        f.steps = 3;
        o.finetune = f;
        const auto runs = clusterEqualsLocal(p, o, "staged-local");
        QVERIFY(runs.size() >= 2);
        bool sawDpMixMin = false;
        for (const auto& r : runs) {
            if (r.method != "dp-mixmin") continue;
            sawDpMixMin = true;
            for (const char* value : {"\"finetune_clip\":0.5", "\"finetune_steps\":3", "\"pretrain_batch\":16"})
                QVERIFY2(r.configJson.find(value) != std::string::npos, r.configJson.c_str());
            // Its ledger's mixture entry: the given clip and steps, not the spec's 13 and 5.
            std::string ledgers;
            for (const auto& l : p.ledgers(r.id).value()) ledgers += l.ledgerJson;
            QVERIFY2(ledgers.find("\"clip_norm\":7.5") != std::string::npos, ledgers.c_str());
            QVERIFY2(ledgers.find("\"stage\":\"mixture\",\"steps\":3") != std::string::npos, ledgers.c_str());
        }
        QVERIFY(sawDpMixMin);

        // AdaMix-R's T and η as well, on a study that fine-tunes with it.
        auto a = freshProject(
            "staged-adamix", true, "",
            R"({"mechanism": "adamix-r", "public_shots": 2, "shots_source": "pub", "steps": 6, "lr": 1.0, "rank": 3})");
        auto ao = testing::gridOptions();
        ao.seeds = {3};
        ao.methods = {"uniform"};
        ao.adamix = AdamixStageValues{4, 0.5};
        QVERIFY(clusterEqualsLocal(a, ao, "staged-adamix-local").size() >= 1);
    }

    void aGridAtItsCapRunsItsUnits() {
        // The grid's reservation holds its units' releases: a unit does not reserve them a second
        // time (which, composed with the grid's own plan, would pass the cap and refuse the unit).
        auto p = freshProject("at-cap", true, "3");
        auto o = testing::gridOptions();
        o.seeds = {1};  // ε ≈ 2.68 of a cap of 3 (below); twice that is over it
        auto frozen = freezeStudyRun(p, o);
        QVERIFY2(frozen.ok(), frozen.ok() ? "" : frozen.error().message.c_str());
        const auto units = studyRunWorkUnits({1});
        auto job = cluster::submitJob(p, cluster::JobKind::Run, *frozen, units, {}, false,
                                      [&](const fs::path& d) { return snapshotProject(p, d); });
        QVERIFY(job.ok());
        auto e = cluster::runWorkerUnit(job->dir, 0, 1);
        QVERIFY2(!e, e ? e->message.c_str() : "");
        auto merged = cluster::mergeJobs(p);
        QVERIFY2(merged.ok(), merged.ok() ? "" : merged.error().message.c_str());
        QCOMPARE(merged->front().runIds.size(), std::size_t{2});
        const auto budget = project::projectBudget(p).value();
        QVERIFY(budget.reservations.empty());  // settled by the merge
        QCOMPARE(budget.total.releases, 3LL);
        QVERIFY(budget.total.epsilon <= 3.0);
    }

    void aGridOverTheBudgetCapIsRefusedAsAWhole() {
        // Each seed alone fits the cap, the two seeds together do not: a unit, which sees one
        // seed, would accept its part; the submission checks the whole grid, as a local run does.
        // One seed's releases (DP-MixMin's mixture on A, two fine-tunings on B, ε = 2 each)
        // compose to ε ≈ 2.68 (the accountant's figure in the refusal at a smaller cap); a second
        // seed's, on another ρ split, add to that.
        auto p = freshProject("capped", true, "3");
        auto one = testing::gridOptions();
        one.seeds = {1};
        auto single = freezeStudyRun(p, one);
        QVERIFY2(single.ok(), single.ok() ? "" : single.error().message.c_str());
        const auto runsBefore = p.runs().value().size();
        auto whole = freezeStudyRun(p, testing::gridOptions());
        QVERIFY(!whole.ok());
        QVERIFY2(whole.error().message.find("over the cap") != std::string::npos, whole.error().message.c_str());
        QCOMPARE(p.runs().value().size(), runsBefore);  // nothing stored
        // The local runner refuses the same grid with the same message.
        auto local = runStudy(p, testing::gridOptions());
        QVERIFY(!local.ok());
        QCOMPARE(local.error().message, whole.error().message);
    }
};

QTEST_APPLESS_MAIN(TestRunUnits)
#include "tst_run_units.moc"
