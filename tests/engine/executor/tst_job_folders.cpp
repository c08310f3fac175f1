// Cluster job folders hold data derived from the sensitive data, so (docs/CLUSTER.md, "What is
// written where"): every folder is 0700 and every file dpmix writes 0600 whatever the umask (the
// test runs under umask 0); a merge asked to remove job files deletes a folder once every unit is
// stored, and keeps a job with units still missing; a user-level audit's frozen spec carries
// pseudonyms instead of the users' ids and its units still score as the local audit does.
#include "engine/executor/audit_units.h"
#include "engine/executor/cluster_jobs.h"
#include "engine/executor/run_units.h"
#include "tests/engine/pipeline/tiny_image_study.h"
#include "unit_job_fixture.h"

#include <nlohmann/json.hpp>

#include "tests/support/unit_test.h"

#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

using namespace dpmix;
using namespace dpmix::pipeline;
using namespace dpmix::audit_runs;
using namespace dpmix::executor;
namespace fs = std::filesystem;

namespace {

const std::string kGridSpec = R"({
  "name": "tiny-job-folders",
)" + testing::tinyStudyData() +
                              R"(  "privacy": {"epsilon": 2, "delta": 1e-5, "rho": 0.3, "reproducible": true},
  "stages": {"mixture": {"clip": 13, "batch": 100, "lr": 1.0, "steps": 3}},
  "seeds": [0]
})";

// Images of patients p0, p1, ... (2 each) with labels ab, ac declared.
const std::string kUserSpec = R"({
  "name": "tiny-user-audit",
  "public_sources": [{"name": "pub", "loader": "idx", "path": "pub-images.idx",
                      "options": {"labels": "pub-labels.idx", "classes": "a,b,c,d"}}],
  "sensitive": {"name": "sensu", "loader": "csv-images", "path": "sensu/manifest.csv",
                "options": {"size": "8", "user_column": "Patient", "labels": "ab,ac"}, "user_level": true},
  "tasks": {"public": [{"name": "a", "classes": ["a"]}, {"name": "b", "classes": ["b"]}, {"name": "cd", "classes": ["c", "d"]}]},
  "privacy": {"epsilon": 1, "delta": 1e-5, "rho": 0.5},
  "stages": {"mixture": {"clip": 13, "batch": 10, "lr": 1.0, "steps": 5}},
  "seeds": [0]
})";

unsigned mode(const fs::path& p) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return 0xffff;
    return st.st_mode & 07777;
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

class TestJobFolders : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        testing::writeStudyImages(dir_.path(), "pub", 120, 1);
        testing::writeStudyImages(dir_.path(), "sens", 200, 2);
        testing::writeUserLevelImages(dir_.path(), "sensu", 120, 2, 3);
        testing::installStandInSbatch(dir_.path(), "5151");
    }

    void aJobFolderIsTheOwnersOnlyAndGoesOnceEveryUnitIsStored() {
        const mode_t saved = ::umask(0);  // the modes must not come from the umask
        auto p = testing::createProjectFromSpecText(dir_.path(), "grid", kGridSpec);
        StudyRunOptions o;
        o.stages = {"proxies", "mixture"};
        o.methods = {"dp-mixmin"};
        o.tasks = {"ab"};
        o.seeds = {0, 1};
        o.proxy = testing::quickProxy();
        auto frozen = freezeStudyRun(p, o);
        QVERIFY2(frozen.ok(), frozen.ok() ? "" : frozen.error().message.c_str());
        const auto units = studyRunWorkUnits(resolveRunChoices(p.spec(), o).seeds);
        auto job = cluster::submitJob(p, cluster::JobKind::Run, *frozen, units, {}, false,
                                      [&](const fs::path& d) { return snapshotProject(p, d); });
        QVERIFY2(job.ok(), job.ok() ? "" : job.error().message.c_str());
        const fs::path root = cluster::jobsRoot(p.path());
        for (const fs::path& d : {root, job->dir, job->dir / "units", job->dir / "logs", job->dir / "snapshot",
                                  job->dir / "snapshot" / "project.models"})
            QVERIFY2(mode(d) == 0700, (d.string() + ": " + std::to_string(mode(d))).c_str());
        for (const char* f :
             {"job.json", "spec.json", "units.json", "job.sbatch", "submissions.jsonl", "snapshot/project.dpmix"})
            QVERIFY2(mode(job->dir / f) == 0600, (std::string(f) + ": " + std::to_string(mode(job->dir / f))).c_str());

        auto e = cluster::runWorkerUnit(job->dir, 0, 1);
        QVERIFY2(!e, e ? e->message.c_str() : "");
        QCOMPARE(mode(job->dir / "units" / "unit-0.json"), 0600u);
        QCOMPARE(mode(job->dir / "work"), 0700u);
        QCOMPARE(mode(job->dir / "work" / "unit-0"), 0700u);
        // The attempt's own folder, named in the unit's result.
        std::ifstream resultFile(job->dir / "units" / "unit-0.json");
        const auto scratch = job->dir / nlohmann::json::parse(resultFile).at("result").at("scratch").get<std::string>();
        QCOMPARE(mode(scratch.parent_path()), 0700u);
        QCOMPARE(mode(scratch), 0600u);
        for (const auto& entry : fs::recursive_directory_iterator(job->dir)) {
            const unsigned m = mode(entry.path());
            // A hard link to one of the project's model files keeps the project's mode.
            const bool modelLink =
                fs::is_regular_file(entry.path()) && entry.path().parent_path().filename() == "project.models";
            QVERIFY2((m & 0077) == 0 || modelLink, (entry.path().string() + ": " + std::to_string(m)).c_str());
        }

        // Unit 1 missing: unit 0's runs are stored, the folder stays (the rest still comes).
        cluster::MergeOptions remove;
        remove.removeJobFiles = true;
        auto partial = cluster::mergeJobs(p, job->jobId, remove);
        QVERIFY2(partial.ok(), partial.ok() ? "" : partial.error().message.c_str());
        QVERIFY(!partial->front().runIds.empty());
        QVERIFY(!partial->front().removed);
        QVERIFY(fs::exists(job->dir));

        e = cluster::runWorkerUnit(job->dir, 1, 1);
        QVERIFY2(!e, e ? e->message.c_str() : "");
        auto kept = cluster::mergeJobs(p, job->jobId);  // keeping is the engine's default
        QVERIFY2(kept.ok(), kept.ok() ? "" : kept.error().message.c_str());
        QVERIFY(kept->front().imported);
        QVERIFY(!kept->front().removed);
        QVERIFY(fs::exists(job->dir / "merged.json"));
        QCOMPARE(mode(job->dir / "merged.json"), 0600u);

        auto removed = cluster::mergeJobs(p, job->jobId, remove);
        QVERIFY2(removed.ok(), removed.ok() ? "" : removed.error().message.c_str());
        QVERIFY(removed->front().alreadyMerged);
        QVERIFY(removed->front().removed);
        QVERIFY(!fs::exists(job->dir));
        QVERIFY(!fs::exists(root));  // the empty jobs root goes too
        ::umask(saved);
    }

    void aUserLevelAuditTravelsWithPseudonyms() {
        auto p = testing::createProjectFromSpecText(dir_.path(), "users", kUserSpec);
        AuditStageOptions o;
        o.task = "ab";
        o.runs = 6;
        o.seed = 3;
        o.canaryExamples = 2;
        o.proxy = testing::quickProxy();
        auto local = runAuditStage(p, o);
        QVERIFY2(local.ok(), local.ok() ? "" : local.error().message.c_str());
        auto frozen = freezeAuditStage(p, o);
        QVERIFY2(frozen.ok(), frozen.ok() ? "" : frozen.error().message.c_str());
        const auto j = nlohmann::json::parse(*frozen);
        const auto users = j.at("split_a").at("users").get<std::vector<std::string>>();
        QVERIFY(!users.empty());
        QVERIFY2(frozen->find("\"p1\"") == std::string::npos, "a patient id travels in the frozen audit");
        // Pseudonyms 0, 1, ... in order of first appearance, two images per patient.
        std::set<std::string> distinct(users.begin(), users.end());
        long long next = 0;
        std::set<std::string> seen;
        for (const auto& u : users)
            if (seen.insert(u).second) QCOMPARE(u, std::to_string(next++));
        QCOMPARE(static_cast<long long>(distinct.size()), next);
        QVERIFY(distinct.size() < users.size());
        // The units score exactly as the local audit did.
        for (bool in : {false, true}) {
            auto block = runFrozenAuditUnit(*frozen, in, 0, 6, 1);
            QVERIFY2(block.ok(), block.ok() ? "" : block.error().message.c_str());
            const auto& scores = in ? local->result.scoresIn : local->result.scoresOut;
            for (std::size_t r = 0; r < 6; ++r) QVERIFY(sameBits(block->scores[r], scores[r]));
        }
    }
};

QTEST_APPLESS_MAIN(TestJobFolders)
#include "tst_job_folders.moc"
