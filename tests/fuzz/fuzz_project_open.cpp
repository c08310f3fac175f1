// The project opener on damaged files: a valid project (made once, with a DP run, its ledger, a
// λ, metrics and a curve) is patched byte by byte as the input says — every 5 input bytes are
// one patch (a 32-bit offset into the file, then the byte to write there) — and then opened
// read-only and read the way `dpmix inspect` reads it: sources, runs, ledgers, results, the
// hash chain and the trust verdict (which composes the privacy budget with the accountants — RDP
// and PRV, one entry each — on whatever q, σ and T the damaged ledger now says). Each step must
// return a value or an Error.
#include "engine/privacy/ledger.h"
#include "engine/project/project_file.h"
#include "engine/project/trust_verdict.h"
#include "fuzz_support.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using namespace dpmix::project;

std::string g_valid;  // the bytes of the valid project

ProjectSpec tinySpec() {
    ProjectSpec spec;
    spec.name = "fuzz";
    SpecSource pub;
    pub.written = {"public-images", "idx", "public/images.idx", {{"classes", "a,b"}}};
    spec.publicSources.push_back(pub);
    spec.sensitive.written = {"private-images", "idx", "private/images.idx", {{"classes", "a,b"}}};
    spec.publicTasks = {{"a", {"a"}}, {"b", {"b"}}};
    spec.sensitiveTasks = {{"ab", {"a", "b"}}};
    spec.privacy.epsilons = {1.0};
    spec.privacy.delta = 1e-5;
    spec.privacy.rho = 0.1;
    spec.seeds = {0};
    return spec;
}

std::string makeValidProject() {
    const std::string path = dpmix::fuzz::scratchPath("-seed.dpmix");
    std::filesystem::remove(path);
    {
        SourceFacts pub{dpmix::data::SourceKind::Images, 10, {"a", "b"}, {}, 0, std::string(64, 'a'), 1, 2, 2};
        SourceFacts priv{dpmix::data::SourceKind::Images, 10, {"a", "b"}, {}, 0, std::string(64, 'b'), 1, 2, 2};
        auto p = ProjectFile::create(path, tinySpec(), {pub, priv}).value();
        const long long id = p.addRun({"dp-mixmin", "ab", 1.0, 0, R"({"stage":"mixture","rho":0.1})"}).value();
        dpmix::privacy::Ledger ledger;
        ledger.record(dpmix::privacy::gaussianEntry("mixture", "A", dpmix::privacy::PrivacyUnit::Example, 0.2, 2.0, 10,
                                                    1e-5, 1.0));
        // One entry certified by the PRV accountant: the damaged file's q, σ, T reach its FFT grid.
        ledger.record(dpmix::privacy::gaussianEntry("finetune", "B", dpmix::privacy::PrivacyUnit::Example, 0.05, 1.5,
                                                    20, 1e-5, 1.0, dpmix::privacy::Accountant::Prv));
        (void)p.recordLedger(id, ledger).value();
        (void)p.setRunStatus(id, RunStatus::Running).value();
        (void)p.addLambda({id, "private", {"a", "b"}, {0.4, 0.6}}).value();
        (void)p.addMetrics({{id, "sigma", "", 2.0}, {id, "test-auc", "ab", 0.7}}).value();
        (void)p.addCurve(id, "lambda/a", {{0, 0.5}, {10, 0.4}}).value();
        (void)p.setRunStatus(id, RunStatus::Done).value();
    }  // closing checkpoints the WAL into the file
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    std::filesystem::remove(path);
    return bytes.str();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    g_valid = makeValidProject();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string file = g_valid;
    for (std::size_t i = 0; i + 5 <= size; i += 5) {
        const std::uint32_t offset =
            data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (std::uint32_t(data[i + 3]) << 24);
        file[offset % file.size()] = static_cast<char>(data[i + 4]);
    }
    const std::string path =
        dpmix::fuzz::writeScratch(reinterpret_cast<const std::uint8_t*>(file.data()), file.size(), ".dpmix");
    for (const char* side : {"-wal", "-shm"}) std::filesystem::remove(path + side);
    {
        auto project = ProjectFile::open(path, OpenMode::ReadOnly);
        if (project) {
            (void)project->sources();
            if (auto runs = project->runs()) {
                for (const auto& r : *runs) {
                    (void)project->ledgers(r.id);
                    (void)project->lambdas(r.id);
                    (void)project->metrics(r.id);
                    if (auto names = project->curveNames(r.id))
                        for (const auto& n : *names) (void)project->curve(r.id, n);
                    (void)project->audits(r.id);
                    (void)project->models(r.id);
                }
            }
            (void)project->verifyChain();
            (void)trustVerdict(*project);  // composes the budget too (project_budget.h)
        }
    }
    return 0;
}
