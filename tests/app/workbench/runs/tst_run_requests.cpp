// From the user's choices to the engine's requests, for each Run-menu action: the panel's
// Advanced values travel with every study request, the comparison runs the five methods
// downstream, the ε sweep parses and checks its list, the audit takes the panel's ε as the
// claimed one, and a stored run's configuration becomes the request that repeats it.
#include "app/workbench/runs/run_requests.h"
#include "engine/methods/method_plan.h"

#include <QtTest>

#include <cmath>

using namespace dpmix::workbench;

namespace {
dpmix::widgets::RunParameters panel() {
    dpmix::widgets::RunParameters p;
    p.epsilon = 3.0;
    p.rho = 0.2;
    p.seeds = "4, 5";
    p.clipNorm = 7.5;
    p.batchSize = 64;
    p.learningRate = 0.5;
    p.steps = 40;
    return p;
}

dpmix::project::RunRecord storedRun(const std::string& method, std::optional<double> epsilon,
                                    const std::string& config) {
    dpmix::project::RunRecord r;
    r.id = 12;
    r.method = method;
    r.task = "ac";
    r.epsilon = epsilon;
    r.seed = 3;
    r.configJson = config;
    return r;
}

bool mentions(const dpmix::Error& e, const char* text) { return e.message.find(text) != std::string::npos; }
}  // namespace

class TstRunRequests : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void panelValuesIncludeTheAdvancedMixtureValues() {
        const auto r = studyRequestFor(panel());
        QVERIFY(r);
        QCOMPARE(r->epsilons, std::vector<double>({3.0}));
        QCOMPARE(r->rho, 0.2);
        QCOMPARE(r->seeds, std::vector<long long>({4, 5}));
        QVERIFY(r->mixture);
        QCOMPARE(*r->mixture, (MixtureSettings{7.5, 64, 0.5, 40}));
        QCOMPARE(r->stages, std::vector<std::string>({"proxies", "mixture"}));
        // ... and the pretraining and fine-tuning sections' values.
        QVERIFY(r->pretrain && r->finetune);
        QCOMPARE(*r->pretrain, (PretrainSettings{256, 0.1, 1000}));
        QCOMPARE(*r->finetune, (FinetuneSettings{2.0, 256, 1e-4, 1000}));
    }

    void compareRunsTheFiveMethodsDownstream() {
        const auto r = compareRequestFor(panel());
        QVERIFY(r);
        QCOMPARE(r->stages, std::vector<std::string>({"proxies", "mixture", "downstream"}));
        QCOMPARE(r->methods, std::vector<std::string>(
                                 {"dp-mixmin", "uniform", "random-search", "random-init", "non-private-mixmin"}));
        QCOMPARE(*r->mixture, (MixtureSettings{7.5, 64, 0.5, 40}));
        auto bad = panel();
        bad.seeds = "1, x";
        QVERIFY(!compareRequestFor(bad));
    }

    void epsilonListParsesAndSorts() {
        const auto e = parseEpsilonList(" 4, 0.5 1,2 ");
        QVERIFY(e);
        QCOMPARE(*e, std::vector<double>({0.5, 1.0, 2.0, 4.0}));
    }

    void epsilonListErrorsNameTheFieldAndValue() {
        const auto notNumber = parseEpsilonList("1, two");
        QVERIFY(!notNumber);
        QVERIFY(mentions(notNumber.error(), "ε values"));
        QVERIFY(mentions(notNumber.error(), "'two'"));
        const auto zero = parseEpsilonList("0, 1");
        QVERIFY(!zero && mentions(zero.error(), "'0'"));
        const auto negative = parseEpsilonList("-1, 1");
        QVERIFY(!negative && mentions(negative.error(), "'-1'"));
        const auto infinite = parseEpsilonList("inf, 1");
        QVERIFY(!infinite && mentions(infinite.error(), "'inf'"));
        const auto twice = parseEpsilonList("1, 2, 1");
        QVERIFY(!twice && mentions(twice.error(), "listed twice"));
        const auto one = parseEpsilonList("2");
        QVERIFY(!one && mentions(one.error(), "at least two"));
        QVERIFY(!parseEpsilonList(""));
    }

    void sweepIsTheMixtureStageOrTheFullPipeline() {
        const auto mixture = sweepRequestFor(panel(), {.epsilons = {0.5, 1, 2}, .fullPipeline = false});
        QVERIFY(mixture);
        QCOMPARE(mixture->epsilons, std::vector<double>({0.5, 1, 2}));
        QCOMPARE(mixture->stages, std::vector<std::string>({"proxies", "mixture"}));
        QVERIFY(mixture->methods.empty());
        const auto full = sweepRequestFor(panel(), {.epsilons = {0.5, 1, 2}, .fullPipeline = true});
        QVERIFY(full);
        QCOMPARE(full->epsilons, std::vector<double>({0.5, 1, 2}));
        QCOMPARE(full->stages, std::vector<std::string>({"proxies", "mixture", "downstream"}));
        QCOMPARE(full->methods.size(), dpmix::methods::allMethods().size());  // every method
        QVERIFY(!sweepRequestFor(panel(), {.epsilons = {1.0}, .fullPipeline = false}));
    }

    // The teacher's sweep: one task and three methods reach the engine as such (docs/WORKBENCH.md, "Teacher: an ε
    // sweep…"; the old request ran every task and all five methods whatever was wanted).
    void aSweepRunsOnlyTheChosenTasksAndMethods() {
        const SweepScope scope{.epsilons = {0.5, 2},
                               .fullPipeline = true,
                               .tasks = {"warm clothing"},
                               .methods = {"dp-mixmin", "uniform", "random-init"}};
        const auto request = sweepRequestFor(panel(), scope);
        QVERIFY(request);
        QCOMPARE(request->tasks, std::vector<std::string>({"warm clothing"}));
        QCOMPARE(request->methods, std::vector<std::string>({"dp-mixmin", "uniform", "random-init"}));
        QCOMPARE(sweepScopeText(scope),
                 QString("full pipeline at ε = 0.5, 2; task warm clothing; DP-MixMin, Uniform, Random Init"));
        const auto typo =
            sweepRequestFor(panel(), {.epsilons = {0.5, 2}, .fullPipeline = true, .methods = {"unifrom"}});
        QVERIFY(!typo && mentions(typo.error(), "\"unifrom\" is not a method"));
        const auto mixtureOnly = sweepRequestFor(panel(), {.epsilons = {0.5, 2}, .methods = {"uniform"}});
        QVERIFY(!mixtureOnly && mentions(mixtureOnly.error(), "only the full pipeline runs methods"));
        QCOMPARE(sweepScopeText({.epsilons = {1, 4}}), QString("mixture stage at ε = 1, 4; every task"));
        QVERIFY(!request->pretrainSteps && !request->finetuneSteps);  // the panel's
        SweepScope quick = scope;
        quick.trainingSteps = 100;
        const auto shortRequest = sweepRequestFor(panel(), quick);
        QVERIFY(shortRequest);
        QCOMPARE(shortRequest->pretrainSteps, std::optional<long long>(100));
        QCOMPARE(shortRequest->finetuneSteps, std::optional<long long>(100));
        QVERIFY(sweepScopeText(quick).endsWith("; 100 pretraining and fine-tuning steps"));
    }

    void auditTakesThePanelEpsilonAsTheClaim() {
        AuditSettings s{"ac", true, 500, false, 9};
        const auto a = auditRequestFor(panel(), s);
        QVERIFY(a);
        QCOMPARE(a->task, std::string("ac"));
        QVERIFY(a->naturalCanary);
        QCOMPARE(a->runs, 500LL);
        QCOMPARE(a->seed, 9LL);
        QVERIFY(a->epsilon && *a->epsilon == 3.0);
        QCOMPARE(*a->mixture, (MixtureSettings{7.5, 64, 0.5, 40}));
        s.noNoise = true;
        QVERIFY(!auditRequestFor(panel(), s)->epsilon);  // the control claims nothing (ε = +inf)
        s.runs = 1;
        const auto few = auditRequestFor(panel(), s);
        QVERIFY(!few && mentions(few.error(), "runs: 1"));
        s.runs = 10;
        s.task = " ";
        const auto noTask = auditRequestFor(panel(), s);
        QVERIFY(!noTask && mentions(noTask.error(), "task"));
    }

    void aFineTuningAuditClaimsThePanelEpsilonExceptTheControl() {
        AuditSettings s{"ac", false, 1000, false, 2};
        s.mechanism = "dirichlet";
        s.trainingCanary = "large-norm";
        const auto a = auditRequestFor(panel(), s);
        QVERIFY(a);
        QCOMPARE(a->mechanism, std::string("dirichlet"));
        QCOMPARE(a->trainingCanary, std::string("large-norm"));
        QCOMPARE(a->runs, 1000LL);
        QCOMPARE(a->seed, 2LL);
        QVERIFY(a->epsilon && *a->epsilon == 3.0);
        QVERIFY(!a->mixture);  // the mixture stage's settings do not apply
        s.mechanism = "sgd";
        QVERIFY(!auditRequestFor(panel(), s)->epsilon);  // non-private: no claim
    }

    void rerunOfAMixtureRunRepeatsItsConfiguration() {
        const auto run = storedRun("dp-mixmin", 2.0,
                                   R"({"stage":"mixture","method":"dp-mixmin","rho":0.15,"delta":1e-05,"clip":9.0,)"
                                   R"("batch":250,"lr":0.75,"steps":60,"released_iterate":"last"})");
        const auto same = rerunPlanFor(run, std::nullopt);
        QVERIFY(same);
        QVERIFY(same->study && !same->audit);
        QCOMPARE(same->study->stages, std::vector<std::string>({"proxies", "mixture"}));
        QCOMPARE(same->study->epsilons, std::vector<double>({2.0}));
        QCOMPARE(same->study->rho, 0.15);
        QCOMPARE(same->study->seeds, std::vector<long long>({3}));
        QCOMPARE(same->study->tasks, std::vector<std::string>({"ac"}));
        QCOMPARE(*same->study->mixture, (MixtureSettings{9.0, 250, 0.75, 60}));
        const auto reseeded = rerunPlanFor(run, 11);
        QCOMPARE(reseeded->study->seeds, std::vector<long long>({11}));
        QVERIFY(reseeded->description.contains("seed 11"));
        QVERIFY(!rerunPlanFor(run, -1));
    }

    void rerunOfADownstreamRunKeepsMethodAndSteps() {
        const auto run = storedRun(
            "uniform", 1.0,
            R"({"stage":"downstream","method":"uniform","rho":0.1,"delta":1e-05,)"
            R"("finetune_split":"train","finetune_mechanism":"dp-sgd","finetune_steps":30,"pretrain_steps":20})");
        const auto plan = rerunPlanFor(run, std::nullopt);
        QVERIFY(plan && plan->study);
        QCOMPARE(plan->study->stages, std::vector<std::string>({"proxies", "mixture", "downstream"}));
        QCOMPARE(plan->study->methods, std::vector<std::string>({"uniform"}));
        QCOMPARE(*plan->study->finetuneSteps, 30LL);
        QCOMPARE(*plan->study->pretrainSteps, 20LL);
        QVERIFY(!plan->study->mixture);
        // Random Init records pretrain_steps 0: no pretraining override then.
        const auto init = storedRun(
            "random-init", 1.0,
            R"({"stage":"downstream","method":"random-init","rho":0.1,"finetune_steps":30,"pretrain_steps":0})");
        QVERIFY(!rerunPlanFor(init, std::nullopt)->study->pretrainSteps);
        QVERIFY(!rerunPlanFor(init, std::nullopt)->study->finetune);  // recorded before the stages' values were
        // A run that recorded its stages' values repeats them all.
        const auto full =
            storedRun("dp-mixmin", 1.0,
                      R"({"stage":"downstream","method":"dp-mixmin","rho":0.1,"finetune_steps":30,)"
                      R"("finetune_clip":0.5,"finetune_batch":16,"finetune_lr":0.002,"pretrain_steps":20,)"
                      R"("pretrain_batch":8,"pretrain_lr":0.05})");
        const auto again = rerunPlanFor(full, std::nullopt);
        QVERIFY(again && again->study && again->study->finetune && again->study->pretrain);
        QCOMPARE(*again->study->finetune, (FinetuneSettings{0.5, 16, 0.002, 30}));
        QCOMPARE(*again->study->pretrain, (PretrainSettings{8, 0.05, 20}));
    }

    void rerunOfAnAuditRepeatsTheCanary() {
        const auto run =
            storedRun("audit", 1.0,
                      R"({"stage":"audit","canary":"max-clip-raise","runs_per_world":300,"no_noise":false,)"
                      R"("claimed_epsilon":1.0,"delta":1e-05,"rho":0.1,"clip":13.0,"batch":2,"lr":1.0,"steps":100})");
        const auto plan = rerunPlanFor(run, 8);
        QVERIFY(plan && plan->audit && !plan->study);
        QCOMPARE(plan->audit->task, std::string("ac"));
        QVERIFY(!plan->audit->naturalCanary);
        QVERIFY(plan->audit->raiseTopSource);
        QVERIFY(!plan->audit->quietestSource);
        QCOMPARE(plan->audit->runs, 300LL);
        QCOMPARE(plan->audit->seed, 8LL);
        QVERIFY(plan->audit->epsilon && *plan->audit->epsilon == 1.0);
        QCOMPARE(*plan->audit->mixture, (MixtureSettings{13.0, 2, 1.0, 100}));
        const auto control =
            storedRun("audit", std::nullopt,
                      R"({"stage":"audit","canary":"natural-no-noise","runs_per_world":300,"no_noise":true})");
        const auto c = rerunPlanFor(control, std::nullopt);
        QVERIFY(c->audit->naturalCanary && c->audit->noNoise && !c->audit->epsilon);
        const auto quietest = storedRun(
            "audit", std::nullopt,
            R"({"stage":"audit","canary":"max-clip-quietest-raise-no-noise","runs_per_world":300,"no_noise":true})");
        const auto q = rerunPlanFor(quietest, std::nullopt);
        QVERIFY(q && q->audit && !q->audit->naturalCanary && q->audit->quietestSource && q->audit->raiseTopSource &&
                q->audit->noNoise);
    }

    void auditQuietestTargetOnlyForMaxClip() {
        AuditSettings s{"ac", false, 500, false, 9, true};
        const auto maxClip = auditRequestFor(panel(), s);
        QVERIFY(maxClip && maxClip->quietestSource && !maxClip->naturalCanary);
        s.naturalCanary = true;  // a natural canary has no target: the flag is dropped
        const auto natural = auditRequestFor(panel(), s);
        QVERIFY(natural && natural->naturalCanary && !natural->quietestSource);
    }

    void rerunRefusesWhatItCannotRepeat() {
        const auto proxy = rerunPlanFor(storedRun("proxy", std::nullopt, R"({"stage":"proxies"})"), std::nullopt);
        QVERIFY(!proxy && mentions(proxy.error(), "proxies are trained"));
        const auto sweep = rerunPlanFor(storedRun("epsilon-sweep", 1.0, R"({"stage":"epsilon-sweep"})"), std::nullopt);
        QVERIFY(!sweep && mentions(sweep.error(), "command line"));
        // An AdaMix-R experiment's config has a stage a study run also has; it is still refused.
        const auto adamix =
            rerunPlanFor(storedRun("adamix-experiment", 1.0, R"({"stage":"downstream"})"), std::nullopt);
        QVERIFY(!adamix && mentions(adamix.error(), "dpmix experiment"));
        const auto broken = rerunPlanFor(storedRun("dp-mixmin", 1.0, "not json"), std::nullopt);
        QVERIFY(!broken && mentions(broken.error(), "run 12"));
        const auto noStage = rerunPlanFor(storedRun("dp-mixmin", 1.0, "{}"), std::nullopt);
        QVERIFY(!noStage && mentions(noStage.error(), "only mixture, downstream and audit"));
    }

    // A stored configuration naming a fine-tuning mechanism the table does not know is refused,
    // naming the field, the value and the accepted ones: it is not re-run as DP-SGD.
    void rerunRefusesAnUnknownFinetuneMechanism() {
        const auto run = storedRun("uniform", 1.0,
                                   R"({"stage":"downstream","method":"uniform","rho":0.1,"delta":1e-05,)"
                                   R"("finetune_mechanism":"laplace","finetune_steps":30,"finetune_clip":0.5,)"
                                   R"("finetune_batch":16,"finetune_lr":0.002})");
        const auto plan = rerunPlanFor(run, std::nullopt);
        QVERIFY2(!plan, "an unknown fine-tuning mechanism was planned (as DP-SGD)");
        QCOMPARE(QString::fromStdString(plan.error().message),
                 QStringLiteral("run 12 (uniform): its configuration's finetune_mechanism: \"laplace\" is not a "
                                "fine-tuning mechanism: expected \"dp-sgd\", \"dirichlet\" or \"adamix-r\""));
        // The known ones are read as before.
        for (const char* known : {"dp-sgd", "dirichlet"}) {
            auto text = run.configJson;
            text.replace(text.find("laplace"), 7, known);
            auto again = run;
            again.configJson = text;
            const auto ok = rerunPlanFor(again, std::nullopt);
            QVERIFY2(ok && ok->study && ok->study->finetune && !ok->study->adamix, known);
        }
    }
};

QTEST_GUILESS_MAIN(TstRunRequests)
#include "tst_run_requests.moc"
