#include "app/workbench/runs/run_requests.h"
#include "app/workbench/parameters/accountant_choice.h"
#include "engine/core/number_text.h"
#include "engine/methods/finetune_mechanism.h"
#include "engine/methods/method_plan.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace dpmix::workbench {

namespace {
Error fieldError(const QString& text) { return Error{text.toStdString()}; }

bool isExperiment(const std::string& method) {
    return method == "epsilon-sweep" || method == "rho-sweep" || method == "k-scaling" || method == "adamix-experiment";
}

// A downstream run's stages and values, as its stored configuration records them. Runs stored
// since the stages' values are recorded repeat them too (older ones: the spec's); a mechanism
// the configuration names must be one of the table's (an unknown one is no DP-SGD run).
Status readDownstreamConfig(const QJsonObject& config, const QString& label, const std::string& method,
                            StudyRequest& study) {
    study.stages = {"proxies", "mixture", "downstream"};
    study.methods = {method};
    if (const long long f = config.value("finetune_steps").toInteger(0); f > 0) study.finetuneSteps = f;
    if (const long long p = config.value("pretrain_steps").toInteger(0); p > 0) study.pretrainSteps = p;
    auto mechanism = methods::FinetuneMechanism::DpSgd;
    if (config.contains("finetune_mechanism")) {
        const auto parsed =
            methods::parseFinetuneMechanism(config.value("finetune_mechanism").toString().toStdString());
        if (!parsed)
            return fieldError(QStringLiteral("%1: its configuration's finetune_mechanism: %2")
                                  .arg(label, QString::fromStdString(parsed.error().message)));
        mechanism = *parsed;
    }
    if (mechanism == methods::FinetuneMechanism::AdamixR)
        study.adamix =
            AdamixFinetuneSettings{config.value("finetune_steps").toInteger(), config.value("finetune_lr").toDouble()};
    else if (config.contains("finetune_clip"))
        study.finetune =
            FinetuneSettings{config.value("finetune_clip").toDouble(), config.value("finetune_batch").toInteger(),
                             config.value("finetune_lr").toDouble(), config.value("finetune_steps").toInteger()};
    if (config.contains("pretrain_batch") && config.value("pretrain_steps").toInteger(0) > 0)
        study.pretrain =
            PretrainSettings{config.value("pretrain_batch").toInteger(), config.value("pretrain_lr").toDouble(),
                             config.value("pretrain_steps").toInteger()};
    return std::nullopt;
}
}  // namespace

QString runKindLabel(RunKind kind) {
    switch (kind) {
        case RunKind::DpMixMin: return QStringLiteral("Run DP-MixMin");
        case RunKind::CompareBaselines: return QStringLiteral("Compare with baselines");
        case RunKind::EpsilonSweep: return QStringLiteral("ε sweep");
        case RunKind::Audit: return QStringLiteral("Audit");
        case RunKind::PrivateSet: return QStringLiteral("Private set (PSG)");
        case RunKind::Rerun: return QStringLiteral("Re-run");
    }
    return {};
}

QString sweepScopeText(const SweepScope& scope) {
    QStringList epsilons, tasks, names;
    for (double e : scope.epsilons) epsilons << QString::number(e);
    for (const auto& t : scope.tasks) tasks << QString::fromStdString(t);
    for (const auto& m : scope.methods) {
        const auto method = methods::methodOfRun(m);
        names << (method ? QString::fromUtf8(methods::traitsOf(*method).label.data(),
                                             static_cast<qsizetype>(methods::traitsOf(*method).label.size()))
                         : QString::fromStdString(m));
    }
    QString text = QObject::tr("%1 at ε = %2")
                       .arg(scope.fullPipeline ? QObject::tr("full pipeline") : QObject::tr("mixture stage"),
                            epsilons.join(QStringLiteral(", ")));
    text += tasks.isEmpty() ? QObject::tr("; every task")
                            : (tasks.size() == 1 ? QObject::tr("; task %1") : QObject::tr("; tasks %1"))
                                  .arg(tasks.join(QStringLiteral(", ")));
    if (scope.fullPipeline)
        text += names.isEmpty() ? QObject::tr("; all five methods") : QStringLiteral("; ") + names.join(", ");
    if (scope.fullPipeline && scope.trainingSteps)
        text += QObject::tr("; %1 pretraining and fine-tuning steps").arg(*scope.trainingSteps);
    return text;
}

const std::vector<std::string>& comparisonMethods() {
    static const std::vector<std::string> names = methods::allMethodNames();
    return names;
}

Result<StudyRequest> compareRequestFor(const widgets::RunParameters& parameters) {
    auto built = studyRequestFor(parameters);
    if (!built) return built.error();
    StudyRequest request = std::move(built).value();
    request.stages = {"proxies", "mixture", "downstream"};
    request.methods = comparisonMethods();
    return request;
}

Result<std::vector<double>> parseEpsilonList(const QString& text) {
    const QStringList parts = text.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts);
    std::vector<double> values;
    for (const QString& part : parts) {
        const auto parsed = parseDecimalText(part.toStdString());
        const double value = parsed.value_or(0.0);
        if (!parsed || value <= 0.0)
            return fieldError(
                QStringLiteral("ε values: '%1' is not a number > 0 (expected e.g. \"0.5, 1, 2, 4\")").arg(part));
        if (std::find(values.begin(), values.end(), value) != values.end())
            return fieldError(QStringLiteral("ε values: %1 is listed twice").arg(part));
        values.push_back(value);
    }
    if (values.size() < 2)
        return fieldError(
            QStringLiteral("ε values: '%1' gives %2 value(s); a sweep needs at least two (e.g. \"0.5, 1, 2, 4\")")
                .arg(text)
                .arg(values.size()));
    std::sort(values.begin(), values.end());
    return values;
}

Result<StudyRequest> sweepRequestFor(const widgets::RunParameters& parameters, const SweepScope& scope) {
    if (scope.epsilons.size() < 2) return fieldError(QStringLiteral("ε values: a sweep needs at least two"));
    if (!scope.methods.empty() && !scope.fullPipeline)
        return fieldError(
            QStringLiteral("methods: only the full pipeline runs methods; the mixture stage is "
                           "DP-MixMin's alone"));
    for (const auto& m : scope.methods)
        if (!methods::methodOfRun(m))
            return fieldError(QStringLiteral("methods: \"%1\" is not a method (expected %2)")
                                  .arg(QString::fromStdString(m), QString::fromStdString(methods::shortNameList())));
    auto built = scope.fullPipeline ? compareRequestFor(parameters) : studyRequestFor(parameters);
    if (!built) return built.error();
    StudyRequest request = std::move(built).value();
    request.epsilons = scope.epsilons;
    request.tasks = scope.tasks;
    if (!scope.methods.empty()) request.methods = scope.methods;
    if (scope.trainingSteps) {
        if (!scope.fullPipeline || *scope.trainingSteps < 1)
            return fieldError(QStringLiteral("training steps: %1 applies to the full pipeline only, as a whole "
                                             "number >= 1")
                                  .arg(*scope.trainingSteps));
        request.pretrainSteps = *scope.trainingSteps;
        request.finetuneSteps = *scope.trainingSteps;
    }
    return request;
}

Result<AuditRequest> auditRequestFor(const widgets::RunParameters& parameters, const AuditSettings& settings) {
    if (settings.task.trimmed().isEmpty())
        return fieldError(QStringLiteral("task: choose the sensitive task to audit"));
    if (settings.runs < 2)
        return fieldError(
            QStringLiteral("runs: %1 runs per world is too few; the audit needs at least 2").arg(settings.runs));
    if (settings.seed < 0)
        return fieldError(QStringLiteral("seed: %1 is negative; expected a whole number >= 0").arg(settings.seed));
    AuditRequest request;
    request.task = settings.task.trimmed().toStdString();
    if (!settings.mechanism.isEmpty()) {
        // A fine-tuning mechanism: the panel's ε is the claim (the non-private control claims none).
        request.mechanism = settings.mechanism.toStdString();
        request.trainingCanary = settings.trainingCanary.toStdString();
        request.runs = settings.runs;
        request.oneRun = settings.oneRun;
        request.whiteBox = settings.oneRun && settings.whiteBox;
        request.canaries = settings.canaries;
        if (settings.finetune)
            request.finetune = FinetuneSettings{settings.finetune->clip, settings.finetune->batch,
                                                settings.finetune->lr, settings.finetune->steps};
        request.seed = settings.seed;
        if (settings.mechanism != QStringLiteral("sgd")) request.epsilon = parameters.epsilon;
        request.accountant = engineAccountant(parameters.accountant);
        return request;
    }
    request.naturalCanary = settings.naturalCanary;
    request.quietestSource = !settings.naturalCanary && settings.quietestSource;
    request.runs = settings.runs;
    request.noNoise = settings.noNoise;
    if (!settings.noNoise) request.epsilon = parameters.epsilon;
    request.accountant = engineAccountant(parameters.accountant);
    request.seed = settings.seed;
    request.mixture =
        MixtureSettings{parameters.clipNorm, parameters.batchSize, parameters.learningRate, parameters.steps};
    return request;
}

namespace {

// A stored audit's re-run: its canary, runs per world, ε and mixture settings, at `seed`.
Result<RerunPlan> auditRerunPlan(const project::RunRecord& run, const QJsonObject& config, long long seed,
                                 const QString& label) {
    RerunPlan plan;
    const QString canary = config.value("canary").toString();
    AuditRequest audit;
    audit.task = run.task;
    audit.naturalCanary = canary.startsWith("natural");
    audit.quietestSource = canary.startsWith("max-clip-quietest");
    audit.raiseTopSource = canary.startsWith("max-clip") && canary.contains("-raise");
    audit.noNoise = config.value("no_noise").toBool() || canary.endsWith("-no-noise");
    audit.runs = config.value("runs_per_world").toInteger(0);
    if (!audit.noNoise && run.epsilon) audit.epsilon = *run.epsilon;
    audit.seed = seed;
    if (config.contains("clip"))
        audit.mixture = MixtureSettings{config.value("clip").toDouble(), config.value("batch").toInteger(),
                                        config.value("lr").toDouble(), config.value("steps").toInteger()};
    if (audit.runs < 2) return fieldError(QStringLiteral("%1: its configuration has no runs_per_world").arg(label));
    plan.audit = audit;
    plan.description = QStringLiteral("Re-run of run %1: audit '%2', %3 runs per world, seed %4")
                           .arg(run.id)
                           .arg(canary)
                           .arg(audit.runs)
                           .arg(seed);
    return plan;
}

}  // namespace

Result<RerunPlan> rerunPlanFor(const project::RunRecord& run, std::optional<long long> newSeed) {
    const QString label = QStringLiteral("run %1 (%2)").arg(run.id).arg(QString::fromStdString(run.method));
    if (run.method == "proxy")
        return fieldError(
            QStringLiteral("%1: proxies are trained (or reused) by every study run; re-run a DP-MixMin or "
                           "baseline run instead")
                .arg(label));
    if (isExperiment(run.method))
        return fieldError(QStringLiteral("%1 is an experiment of `dpmix experiment`; re-run it from the command line "
                                         "(the workbench re-runs study runs and audits)")
                              .arg(label));
    if (newSeed && *newSeed < 0)
        return fieldError(QStringLiteral("seed: %1 is negative; expected a whole number >= 0").arg(*newSeed));
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(run.configJson), &parseError);
    if (!doc.isObject())
        return fieldError(QStringLiteral("%1: its stored configuration is not a JSON object (%2)")
                              .arg(label, parseError.errorString()));
    const QJsonObject config = doc.object();
    const QString stage = config.value("stage").toString();
    const long long seed = newSeed.value_or(run.seed);
    RerunPlan plan;
    if (stage == "audit") return auditRerunPlan(run, config, seed, label);
    if (stage != "mixture" && stage != "downstream")
        return fieldError(QStringLiteral("%1: its configuration names stage '%2'; only mixture, downstream and audit "
                                         "runs can be re-run")
                              .arg(label, stage));
    if (!config.contains("rho")) return fieldError(QStringLiteral("%1: its configuration has no rho").arg(label));
    StudyRequest study;
    study.rho = config.value("rho").toDouble();
    study.seeds = {seed};
    // A re-run keeps the run's randomness mode: seeded runs repeat, secret runs draw afresh.
    study.reproducible = config.value("randomness").toString() == QLatin1String("seeded");
    // ... and its accountant, when its configuration names one (older runs: the spec's).
    privacy::Accountant accountant;
    if (privacy::parseAccountant(config.value("accountant").toString().toStdString(), accountant))
        study.accountant = accountant;
    if (!run.task.empty()) study.tasks = {run.task};
    if (run.epsilon) study.epsilons = {*run.epsilon};
    if (stage == "mixture") {
        study.stages = {"proxies", "mixture"};
        if (config.contains("clip"))
            study.mixture = MixtureSettings{config.value("clip").toDouble(), config.value("batch").toInteger(),
                                            config.value("lr").toDouble(), config.value("steps").toInteger()};
    } else if (auto failed = readDownstreamConfig(config, label, run.method, study)) {
        return *failed;
    }
    plan.study = study;
    plan.description = QStringLiteral("Re-run of run %1: %2%3, seed %4")
                           .arg(run.id)
                           .arg(QString::fromStdString(run.method))
                           .arg(run.epsilon ? QStringLiteral(" at ε = %1").arg(*run.epsilon) : QString())
                           .arg(seed);
    return plan;
}

}  // namespace dpmix::workbench
