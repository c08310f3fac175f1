// "Will public data help?" (docs/MANUAL.md, "Will public data help?"): the panel's advice from a small stored map
// written by the test (regime_map_fixture.h), for a given pool kind, n and ε — the nearest measured regime of the
// study's kind, labelled an empirical estimate — and why there is none (a text study, an unreadable
// or empty map). In the window: the advice of the open study shows under "Privacy of this run",
// follows ε as it is edited and the study as another opens, and Help ▸ Where public data pays
// opens the heat map on the study's pool kind. With DPMIX_SCREENSHOT_DIR set, the box is saved there
// as public-data-advice.png.
#include "app/workbench/main_window.h"
#include "app/workbench/parameters/parameter_document.h"
#include "app/workbench/parameters/public_data_advice.h"
#include "app/workbench/views/regime_map_dialog.h"
#include "engine/experiments/regime_advice.h"
#include "tests/app/workbench/fake_backends.h"
#include "tests/app/workbench/isolated_settings.h"
#include "tests/app/workbench/regime_map_fixture.h"
#include "tests/app/workbench/window_parts.h"
#include "widgets/parameter_panel.h"
#include "widgets/public_data_advice_box.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QtTest>

using namespace dpmix;
using namespace dpmix::workbench;
using namespace dpmix::workbench::test;
using dpmix::widgets::ParameterField;

namespace {

// A project store whose projects are hand-made snapshots: a study's sources without a file.
class SnapshotStore : public testing::MemoryProjectStore {
public:
    Result<ProjectSnapshot> load(const QString& path) override {
        if (!snapshots.contains(path)) return Error{("no snapshot for " + path).toStdString()};
        return snapshots.value(path);
    }
    void add(const QString& path, std::size_t publicSources, long long examples, data::SourceKind kind,
             double epsilon) {
        ProjectSnapshot s;
        s.path = path;
        s.spec.name = "advice-study";
        s.spec.publicSources.resize(publicSources);
        project::SourceRecord sensitive;
        sensitive.role = project::SourceRole::Sensitive;
        sensitive.name = "private";
        sensitive.facts.kind = kind;
        sensitive.facts.examples = examples;
        s.sources = {sensitive};
        snapshots.insert(path, s);
        widgets::RunParameters p;
        p.epsilon = epsilon;
        files.insert(path, p);
    }
    QMap<QString, ProjectSnapshot> snapshots;
};

PublicDataAdviceText adviceFor(std::size_t publicSources, long long n, double epsilon, bool text = false) {
    const Result<experiments::RegimeMap> map = testing::smallRegimeMap();
    return publicDataAdvice(map, AdviceStudy{publicSources, text, n}, epsilon);
}

}  // namespace

class TstPublicDataAdvice : public QObject {
    Q_OBJECT

    SnapshotStore store_;
    testing::EndlessStageController runs_;
    const Result<experiments::RegimeMap> map_ = testing::smallRegimeMap();

private Q_SLOTS:
    void initTestCase() { isolateSettings("tst_public_data_advice"); }

    void oneSourceReadsTheOneSourceRegime() {
        const auto a = adviceFor(1, 1000, 1.0);
        QVERIFY2(a.headline.startsWith("Choosing public data privately is expected to pay here"),
                 qPrintable(a.headline));
        QVERIFY2(a.detail.startsWith("Empirical estimate on reference data (a test map), not a promise: at n = 1,000, "
                                     "ε = 1 with one public data set, DP-MixMin beat Random Init"),
                 qPrintable(a.detail));
        QVERIFY(a.reason.isEmpty());
        // The same text as the engine's, for the same (kind, n, ε).
        const auto engine =
            experiments::regimeAdvice(testing::smallRegimeMap(), experiments::PoolKind::OneSource, 1000, 1.0).value();
        QCOMPARE(a.headline, QString::fromStdString(engine.headline));
        QCOMPARE(a.detail, QString::fromStdString(engine.detail));
    }

    void severalSourcesReadTheNearestRegimeOfTheirKind() {
        // n = 2,000: ε = 4 is nearest (8,000, 4), ε = 0.5 nearest (500, 0.5); never the one-source regime.
        const auto high = adviceFor(3, 2000, 4.0);
        QVERIFY2(high.headline.startsWith("Public data is not expected to help here"), qPrintable(high.headline));
        QVERIFY2(high.detail.contains("at n = 8,000, ε = 4 with several public data sets"), qPrintable(high.detail));
        const auto low = adviceFor(2, 2000, 0.5);
        QVERIFY2(low.headline.startsWith("No method was ahead beyond seed noise"), qPrintable(low.headline));
        QVERIFY2(low.detail.contains("at n = 500, ε = 0.5"), qPrintable(low.detail));
    }

    void withoutAdviceItSaysWhyOrStaysHidden() {
        const auto text = adviceFor(1, 1000, 1.0, true);
        QVERIFY(text.headline.isEmpty());
        QVERIFY2(text.reason.contains("text study"), qPrintable(text.reason));
        const Result<experiments::RegimeMap> broken = experiments::regimeMapFromJson("[]", "bad-map.json");
        const auto unreadable = publicDataAdvice(broken, AdviceStudy{1, false, 1000}, 1.0);
        QVERIFY2(unreadable.reason.contains("cannot be read (bad-map.json"), qPrintable(unreadable.reason));
        const Result<experiments::RegimeMap> empty = experiments::RegimeMap{};
        QVERIFY(publicDataAdvice(empty, AdviceStudy{1, false, 1000}, 1.0).reason.contains("holds no measured regime"));
        // Hidden (no headline, no reason): no public data, no sensitive data yet, ε not valid yet.
        for (const auto& a : {adviceFor(0, 1000, 1.0), adviceFor(1, 0, 1.0), adviceFor(1, 1000, 0.0)})
            QVERIFY(a.headline.isEmpty() && a.reason.isEmpty());
    }

    void thePanelFollowsEpsilonAndTheOpenStudy() {
        store_.add("/tmp/mixed.dpmix", 2, 2000, data::SourceKind::Images, 4.0);
        store_.add("/tmp/mail.dpmix", 1, 2000, data::SourceKind::Text, 1.0);
        WorkbenchServices services{&runs_, &store_, [] { return QStringLiteral("test"); }};
        services.regimeMap = &map_;
        MainWindow w(services);
        widgets::PublicDataAdviceBox* box = parameterPanel(w)->publicDataAdvice();
        QVERIFY(!box->isVisibleTo(parameterPanel(w)));  // no study: nothing to advise on
        QCOMPARE(w.openFile("/tmp/mixed.dpmix"), QString());
        QVERIFY(box->isVisibleTo(parameterPanel(w)));
        QCOMPARE(box->title(), QString("Will public data help?"));
        QVERIFY2(box->headline().startsWith("Public data is not expected to help here"), qPrintable(box->headline()));
        const QString detail = adviceFor(2, 2000, 4.0).detail;
        QCOMPARE(box->detailLabel()->text(), detail);
        QCOMPARE(box->headlineLabel()->toolTip(), detail);
        QVERIFY(box->whatsThis().contains("empirical estimate"));
        if (const QString shots = qEnvironmentVariable("DPMIX_SCREENSHOT_DIR"); !shots.isEmpty()) {
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(box->grab().save(shots + "/public-data-advice.png"));
        }
        // ε edited as the panel edits it: the advice moves to the nearest regime at the new ε.
        w.document()->edit(ParameterField::Epsilon, 0.5);
        QVERIFY2(box->headline().startsWith("No method was ahead beyond seed noise"), qPrintable(box->headline()));
        QVERIFY(box->detail().contains("at n = 500, ε = 0.5"));
        // Another study opens: a text study has no advice, and says why in grey.
        QCOMPARE(w.openFile("/tmp/mail.dpmix"), QString());
        QVERIFY(!box->hasAdvice());
        QVERIFY(box->isVisibleTo(parameterPanel(w)));
        QVERIFY2(box->headlineLabel()->text().contains("text study"), qPrintable(box->headlineLabel()->text()));
        QVERIFY(!box->detailLabel()->isVisibleTo(box));
    }

    void helpOpensTheHeatMapOnTheStudysPoolKind() {
        store_.add("/tmp/mixed.dpmix", 2, 2000, data::SourceKind::Images, 4.0);
        WorkbenchServices services{&runs_, &store_, [] { return QStringLiteral("test"); }};
        services.regimeMap = &map_;
        MainWindow w(services);
        QCOMPARE(w.openFile("/tmp/mixed.dpmix"), QString());
        windowPart<QAction>(w, "showRegimeMap")->trigger();
        auto* dialog = w.findChild<RegimeMapDialog*>("regimeMapDialog");
        QVERIFY(dialog && dialog->isVisible());
        QCOMPARE(dialog->poolKindBox()->currentData().toInt(), static_cast<int>(experiments::PoolKind::Heterogeneous));
        QCOMPARE(dialog->heatMap()->sizes(), (QList<long long>{500, 8000}));
        QVERIFY(dialog->caption()->text().contains("a test map"));
        QCOMPARE(w.showRegimeMap(), dialog);  // made once, then raised
    }
};

QTEST_MAIN(TstPublicDataAdvice)
#include "tst_public_data_advice.moc"
