// The study draft: each registration is one undo step (undo removes it, redo brings it back),
// replacing the sensitive set and removing a public source are undoable too, and the project
// spec carries the registrations plus the panel's parameters or says what is missing.
#include "app/workbench/study/study_builder.h"

#include <QUndoStack>
#include <QtTest>

using namespace dpmix::workbench;

namespace {
SourceRegistration source(const std::string& name, long long examples) {
    SourceRegistration r;
    r.source = {name, "idx", "/data/" + name + "-images-idx3-ubyte", {{"labels", name + "-labels-idx1-ubyte"}}};
    r.facts.kind = dpmix::data::SourceKind::Images;
    r.facts.examples = examples;
    return r;
}
}  // namespace

class TstStudyBuilder : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void registrationIsOneUndoStep() {
        QUndoStack stack;
        StudyBuilder b(&stack);
        QSignalSpy changed(&b, &StudyBuilder::changed);
        b.registerSource(SourceRole::Public, source("a", 10), {{"odd", {"1", "3"}}});
        QCOMPARE(stack.count(), 1);
        QCOMPARE(stack.undoText(), QString("Add public source a"));
        QCOMPARE(b.draft().publicSources.size(), std::size_t(1));
        QCOMPARE(b.draft().publicTasks.size(), std::size_t(1));
        stack.undo();
        QVERIFY(b.draft().empty());
        stack.redo();
        QCOMPARE(b.draft().publicSources.at(0).source.name, std::string("a"));
        QCOMPARE(b.draft().publicTasks.at(0).classes, (std::vector<std::string>{"1", "3"}));
        QCOMPARE(changed.count(), 3);  // push (redo), undo, redo
    }

    void sensitiveIsReplacedAndRestored() {
        QUndoStack stack;
        StudyBuilder b(&stack);
        b.registerSource(SourceRole::Sensitive, source("s1", 100), {});
        auto second = source("s2", 200);
        second.userLevel = true;
        b.registerSource(SourceRole::Sensitive, second, {{"t", {"0"}}});
        QCOMPARE(stack.undoText(), QString("Replace sensitive data with s2"));
        QCOMPARE(b.draft().sensitive->source.name, std::string("s2"));
        QVERIFY(b.draft().sensitive->userLevel);
        stack.undo();
        QCOMPARE(b.draft().sensitive->source.name, std::string("s1"));
        QVERIFY(b.draft().sensitiveTasks.empty());
        stack.undo();
        QVERIFY(!b.draft().sensitive);
    }

    void samePublicNameReplacesAndRemoveIsUndoable() {
        QUndoStack stack;
        StudyBuilder b(&stack);
        b.registerSource(SourceRole::Public, source("a", 10), {});
        b.registerSource(SourceRole::Public, source("b", 20), {});
        b.registerSource(SourceRole::Public, source("a", 11), {});
        QCOMPARE(b.draft().publicSources.size(), std::size_t(2));
        QCOMPARE(b.draft().publicSources[0].facts.examples, 11LL);
        QVERIFY(!b.removePublicSource("zzz"));
        QCOMPARE(stack.count(), 3);
        QVERIFY(b.removePublicSource("a"));
        QCOMPARE(b.draft().publicSources.size(), std::size_t(1));
        stack.undo();
        QCOMPARE(b.draft().publicSources.size(), std::size_t(2));
        QCOMPARE(b.draft().publicSources[0].source.name, std::string("a"));
    }

    void editRenamesInPlaceAndSensitiveIsRemovable() {
        QUndoStack stack;
        StudyBuilder b(&stack);
        b.registerSource(SourceRole::Public, source("a", 10), {});
        b.registerSource(SourceRole::Public, source("b", 20), {});
        b.registerSource(SourceRole::Public, source("a2", 12), {}, "a");
        QCOMPARE(b.draft().publicSources.size(), std::size_t(2));
        QCOMPARE(b.draft().publicSources[0].source.name, std::string("a2"));  // same position
        QVERIFY(b.find(SourceRole::Public, "a") == nullptr);
        QCOMPARE(b.find(SourceRole::Public, "a2")->facts.examples, 12LL);
        QVERIFY(!b.removeSensitive());
        b.registerSource(SourceRole::Sensitive, source("s", 5), {});
        QVERIFY(b.find(SourceRole::Sensitive, "s"));
        QVERIFY(b.removeSensitive());
        QVERIFY(!b.draft().sensitive);
        stack.undo();
        QCOMPARE(b.draft().sensitive->source.name, std::string("s"));
    }

    void eachPublicSourceKeepsItsOwnTasks() {
        // Several public sources (docs/METHODS.md, "Several public sources"): registering or
        // editing one source sets its tasks only; removing it removes them.
        QUndoStack stack;
        StudyBuilder b(&stack);
        b.registerSource(SourceRole::Public, source("fashion", 10), {{"top", {"0"}}, {"shoe", {"5", "7"}}});
        b.registerSource(SourceRole::Public, source("digits", 10), {{"seven", {"7"}}});
        QCOMPARE(b.draft().publicTasks.size(), std::size_t(3));
        QCOMPARE(b.draft().tasksOf(SourceRole::Public, "fashion").size(), std::size_t(2));
        QCOMPARE(b.draft().tasksOf(SourceRole::Public, "digits").at(0).source, std::string("digits"));
        b.registerSource(SourceRole::Public, source("fashion", 12), {{"bag", {"8"}}});  // an edit
        QCOMPARE(b.draft().tasksOf(SourceRole::Public, "fashion").size(), std::size_t(1));
        QCOMPARE(b.draft().tasksOf(SourceRole::Public, "digits").size(), std::size_t(1));
        b.registerSource(SourceRole::Sensitive, source("sens", 50), {{"low", {"0"}}});
        dpmix::widgets::RunParameters p;
        auto two = b.projectSpec("two", p);
        QVERIFY2(two.ok(), two.ok() ? "" : two.error().message.c_str());
        QCOMPARE(two->publicTasks.size(), std::size_t(2));
        QCOMPARE(two->publicTasks.at(0).source, std::string("fashion"));  // each task names its source
        QVERIFY(b.removePublicSource("digits"));
        QCOMPARE(b.draft().publicTasks.size(), std::size_t(1));
        auto one = b.projectSpec("one", p);
        QVERIFY(one.ok());
        QVERIFY(one->publicTasks.at(0).source.empty());  // one source: written as before
        stack.undo();                                    // the source comes back with its task
        QCOMPARE(b.draft().tasksOf(SourceRole::Public, "digits").size(), std::size_t(1));
    }

    void specCarriesSourcesAndParameters() {
        QUndoStack stack;
        StudyBuilder b(&stack);
        b.registerSource(SourceRole::Public, source("pub", 10), {{"odd", {"1", "3"}}});
        auto s = source("sens", 50);
        s.userLevel = true;
        b.registerSource(SourceRole::Sensitive, s, {{"low", {"0", "1"}}});
        dpmix::widgets::RunParameters p;
        p.epsilon = 4.0;
        p.delta = "1e-6";
        p.rho = 0.25;
        p.seeds = "3, 5 8";
        p.composition = dpmix::widgets::CompositionMode::Sequential;
        p.clipNorm = 7.0;
        p.batchSize = 64;
        p.learningRate = 0.5;
        p.steps = 12;
        auto spec = b.projectSpec("study", p);
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().message.c_str());
        QCOMPARE(spec->name, std::string("study"));
        QCOMPARE(spec->publicSources.size(), std::size_t(1));
        QCOMPARE(spec->publicSources[0].written.options.at("labels"), std::string("pub-labels-idx1-ubyte"));
        QCOMPARE(spec->sensitive.written.name, std::string("sens"));
        QVERIFY(spec->sensitive.userLevel);
        QCOMPARE(spec->publicTasks.at(0).name, std::string("odd"));
        QCOMPARE(spec->sensitiveTasks.at(0).name, std::string("low"));
        QCOMPARE(spec->privacy.epsilons, std::vector<double>{4.0});
        QCOMPARE(spec->privacy.delta, 1e-6);
        QCOMPARE(spec->privacy.rho, 0.25);
        QVERIFY(spec->privacy.composition == dpmix::privacy::Composition::Sequential);
        QCOMPARE(spec->seeds, (std::vector<long long>{3, 5, 8}));
        QCOMPARE(spec->mixture.clip, 7.0);
        QCOMPARE(spec->mixture.batch, 64LL);
        QCOMPARE(spec->mixture.lr, 0.5);
        QCOMPARE(spec->mixture.steps, 12LL);
    }

    void aDraftFromAProjectKeepsWhatTheWindowDoesNotEdit() {
        // The project's spec: a budget cap, a fine-tuning mechanism and user group size, seeds.
        dpmix::project::ProjectSpec basis;
        basis.name = "original";
        basis.description = "Chest X-rays, 2026 cohort.";
        basis.privacy.budget = 6.0;
        basis.finetune.mechanism = dpmix::methods::FinetuneMechanism::Dirichlet;
        basis.finetune.userGroupSize = 4;
        basis.seeds = {9};
        basis.publicSources.push_back({{"pub", "idx", "pub.idx", {}}, {}, false, "bilinear", "replicate"});
        basis.sensitive = {{"sens", "idx", "sens.idx", {}}, {}, false};
        basis.publicTasks = {{"odd", {"1", "3"}, ""}};
        dpmix::project::SourceRecord pub{dpmix::project::SourceRole::Public,     "pub", "idx", "/abs/pub.idx",
                                         R"({"labels": "/abs/pub-labels.idx"})", false, {}};
        pub.facts.labelNames = {"0", "1", "2", "3"};
        const dpmix::project::SourceRecord sens{
            dpmix::project::SourceRole::Sensitive, "sens", "idx", "/abs/sens.idx", "{}", true, {}};
        const StudyDraft draft = draftFromProject(basis, {pub, sens});
        QCOMPARE(draft.publicSources.size(), std::size_t(1));
        QCOMPARE(draft.publicSources[0].source.path, std::string("/abs/pub.idx"));  // as stored: absolute
        QCOMPARE(draft.publicSources[0].source.options.at("labels"), std::string("/abs/pub-labels.idx"));
        QCOMPARE(draft.publicSources[0].resize, std::string("bilinear"));
        QCOMPARE(draft.publicSources[0].colour, std::string("replicate"));
        QVERIFY(draft.sensitive && draft.sensitive->userLevel);
        QCOMPARE(draft.publicTasks.at(0).source, std::string("pub"));
        QCOMPARE(draft.mixtureComponents(), 1LL);  // one task on its one source

        QUndoStack stack;
        StudyBuilder b(&stack);
        b.apply(draft);
        dpmix::widgets::RunParameters p;
        p.seeds = "1, 2";
        p.finetuneBatch = 48;
        p.finetuneClip = 0.7;
        p.pretrainSteps = 77;
        auto spec = b.projectSpec("copy", p);
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().message.c_str());
        QCOMPARE(spec->name, std::string("copy"));
        QCOMPARE(spec->description, std::string("Chest X-rays, 2026 cohort."));
        QCOMPARE(spec->privacy.budget.value_or(-1.0), 6.0);  // the cap carries over
        QCOMPARE(dpmix::methods::nameOf(spec->finetune.mechanism), std::string("dirichlet"));
        QCOMPARE(spec->finetune.userGroupSize, 4LL);
        QCOMPARE(spec->finetune.batch, 48LL);  // the panel's values
        QCOMPARE(spec->finetune.clip, 0.7);
        QCOMPARE(spec->pretrain.steps, 77LL);
        QCOMPARE(spec->seeds, (std::vector<long long>{1, 2}));  // replaced, not appended
        QCOMPARE(spec->publicSources.size(), std::size_t(1));
        QCOMPARE(spec->publicSources[0].written.path, std::string("/abs/pub.idx"));
    }

    void specSaysWhatIsMissingOrWrong() {
        QUndoStack stack;
        StudyBuilder b(&stack);
        dpmix::widgets::RunParameters p;
        auto none = b.projectSpec("x", p);
        QVERIFY(!none.ok());
        QVERIFY(QString::fromStdString(none.error().message).contains("no sensitive data set"));
        // Sensitive data alone is a study too: one for Private Set Generation, which needs no
        // public data (it gets the method's psg section).
        b.registerSource(SourceRole::Sensitive, source("s", 10), {});
        auto psgOnly = b.projectSpec("x", p);
        QVERIFY2(psgOnly.ok(), psgOnly.ok() ? "" : psgOnly.error().message.c_str());
        QVERIFY(psgOnly->publicSources.empty());
        QVERIFY(psgOnly->psg.has_value());
        QCOMPARE(psgOnly->psg->imagesPerClass, 10LL);
        b.clear();
        b.registerSource(SourceRole::Public, source("pub", 10), {});
        auto noSensitive = b.projectSpec("x", p);
        QVERIFY(!noSensitive.ok());
        QVERIFY(QString::fromStdString(noSensitive.error().message).contains("no sensitive data set"));
        b.registerSource(SourceRole::Sensitive, source("s", 10), {});
        p.delta = "tiny";
        auto badDelta = b.projectSpec("x", p);
        QVERIFY(!badDelta.ok());
        QVERIFY(QString::fromStdString(badDelta.error().message).contains("delta = \"tiny\""));
        p.delta = "1e-5";
        p.seeds = "1, two";
        auto badSeed = b.projectSpec("x", p);
        QVERIFY(!badSeed.ok());
        QVERIFY(QString::fromStdString(badSeed.error().message).contains("seeds = \"two\""));
    }
};

QTEST_MAIN(TstStudyBuilder)
#include "tst_study_builder.moc"
