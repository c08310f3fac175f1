// Label tasks: one-hot targets, derived binary tasks (unions of base classes), column selection.
#include "engine/data/label_tasks.h"

#include "tests/support/unit_test.h"

using namespace dpmix::data;

class TestLabelTasks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parseTasks() {
        auto t = parseLabelTasks(" footwear = Sandal|Sneaker|Ankle boot ; bag=Bag");
        QVERIFY(t.ok());
        QCOMPARE(t->size(), std::size_t(2));
        QCOMPARE((*t)[0].name, std::string("footwear"));
        QCOMPARE((*t)[0].classes, (std::vector<std::string>{"Sandal", "Sneaker", "Ankle boot"}));
        QVERIFY(!parseLabelTasks("footwear").ok());
        QVERIFY(!parseLabelTasks("=Bag").ok());
        QVERIFY(!parseLabelTasks("a=").ok());
        QVERIFY(!parseLabelTasks("a=Bag;a=Coat").ok());
        QVERIFY(!parseLabelTasks("").ok());
    }
    void fashionFootwearByHand() {
        // Fashion-MNIST ids: 5 Sandal, 7 Sneaker, 9 Ankle boot, 8 Bag, 0 T-shirt/top.
        const auto& names = fashionMnistClassNames();
        QCOMPARE(names.size(), std::size_t(10));
        auto tasks = parseLabelTasks("footwear=Sandal|Sneaker|Ankle boot;carry=Bag");
        QVERIFY(tasks.ok());
        auto m = taskTargets({5, 7, 9, 8, 0}, names, *tasks);
        QVERIFY(m.ok());
        QCOMPARE(m->names, (std::vector<std::string>{"footwear", "carry"}));
        QCOMPARE(m->values, (std::vector<float>{1, 0, 1, 0, 1, 0, 0, 1, 0, 0}));
        auto bad = taskTargets({5}, names, {{"x", {"Boot"}}});
        QVERIFY(!bad.ok() && bad.error().message.find("unknown class 'Boot'") != std::string::npos);
        QVERIFY(!taskTargets({12}, names, *tasks).ok());
    }
    void oneHot() {
        auto m = oneHotTargets({1, 0, 2}, {"a", "b", "c"});
        QVERIFY(m.ok());
        QCOMPARE(m->values, (std::vector<float>{0, 1, 0, 1, 0, 0, 0, 0, 1}));
        auto bad = oneHotTargets({3}, {"a", "b", "c"});
        QVERIFY(!bad.ok() && bad.error().message.find("example 0 has class 3") != std::string::npos);
    }
    void applyToDatasetAndSelectColumns() {
        ImageDataset d;
        d.height = d.width = 1;
        d.pixels = {0.1f, 0.2f, 0.3f};
        d.labelNames = {"a", "b", "c"};
        d.labels = {0, 0, 1, 1, 0, 0, 0, 1, 0};
        d.users = {"u", "v", "u"};
        auto t = applyLabelTasks(d, {{"ab", {"a", "b"}}, {"c", {"c"}}});
        QVERIFY(t.ok());
        QCOMPARE(t->labels, (std::vector<float>{0, 1, 1, 0, 1, 0}));
        QCOMPARE(t->pixels, d.pixels);
        QCOMPARE(t->users, d.users);
        d.labels[0] = 1;  // row 0 now has two positives (a and c)
        auto multi = applyLabelTasks(d, {{"ab", {"a", "b"}}, {"c", {"c"}}});
        QVERIFY(multi.ok());
        QCOMPARE(multi->labels, (std::vector<float>{1, 1, 1, 0, 1, 0}));
        auto cols = selectLabelColumns(d, {2, 0});
        QVERIFY(cols.ok());
        QCOMPARE(cols->labelNames, (std::vector<std::string>{"c", "a"}));
        QCOMPARE(cols->labels, (std::vector<float>{1, 1, 0, 1, 0, 0}));
        QVERIFY(!selectLabelColumns(d, {3}).ok());
    }
    // A clinic's findings: an image may have none, one or several; a task is positive when the
    // image has any of its findings, and needs those findings known.
    void multiLabelFindingsGiveUnionTargets() {
        ImageDataset d;
        d.height = d.width = 1;
        d.pixels = {0.1f, 0.2f, 0.3f, 0.4f};
        d.labelNames = {"Effusion", "Edema", "Nodule"};
        d.labels = {0, 0, 0,  // no finding
                    1, 1, 0,  // effusion and oedema
                    0, 0, 1,  // a nodule
                    1, 0, 1};
        auto t = labelTaskTargets(d, {{"fluid", {"Effusion", "Edema"}}, {"nodule", {"Nodule"}}});
        QVERIFY(t.ok());
        QCOMPARE(t->names, (std::vector<std::string>{"fluid", "nodule"}));
        QCOMPARE(t->values, (std::vector<float>{0, 0, 1, 0, 0, 1, 1, 1}));
        // Image 2's oedema is unknown: "nodule" does not need it, "fluid" does.
        d.labelMask = {1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1};
        auto nodule = labelTaskTargets(d, {{"nodule", {"Nodule"}}});
        QVERIFY(nodule.ok());
        QCOMPARE(nodule->values, (std::vector<float>{0, 0, 1, 1}));
        auto fluid = labelTaskTargets(d, {{"fluid", {"Effusion", "Edema"}}});
        QVERIFY(!fluid.ok());
        QVERIFY2(fluid.error().message.find("example 2 has a missing label 'Edema'") != std::string::npos &&
                     fluid.error().message.find("task 'fluid'") != std::string::npos,
                 fluid.error().message.c_str());
        QVERIFY(!labelTaskTargets(d, {{"x", {"Cardiomegaly"}}}).ok());  // an unknown class
    }
};

QTEST_APPLESS_MAIN(TestLabelTasks)
#include "tst_label_tasks.moc"
