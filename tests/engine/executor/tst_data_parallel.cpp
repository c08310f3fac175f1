// Which studies' fine-tunings may run data-parallel (engine/study_plan/data_parallel.h), the one
// rule `dpmix run --ranks N`, `--executor slurm --ranks N` and the workbench's Run on cluster…
// share: 1..64 ranks; DP-SGD only (the Dirichlet mechanism and AdaMix-R add no single Gaussian
// to a sum of clipped gradients); no text study; 1 rank is always allowed.
#include "engine/study_plan/data_parallel.h"

#include "tests/engine/project/project_fixture.h"
#include "tests/support/unit_test.h"

using namespace dpmix;

class TestDataParallel : public QObject {
    Q_OBJECT

    static project::ProjectSpec specFineTuningWith(methods::FinetuneMechanism mechanism) {
        project::ProjectSpec spec = project::testing::tinySpec();
        spec.finetune.mechanism = mechanism;
        return spec;
    }

private Q_SLOTS:
    void dpSgdRunsOnAnyRankCountInRange() {
        const auto spec = specFineTuningWith(methods::FinetuneMechanism::DpSgd);
        for (int ranks : {1, 2, 64}) QVERIFY(!study_plan::dataParallelRefusal(ranks, false, spec, {}));
        for (int ranks : {0, -1, 65}) {
            const auto why = study_plan::dataParallelRefusal(ranks, false, spec, {});
            QVERIFY(why && why->find("expected 1 to 64") != std::string::npos);
        }
    }

    void otherMechanismsAndTextStudiesAreRefusedAboveOneRank() {
        for (auto mechanism : {methods::FinetuneMechanism::Dirichlet, methods::FinetuneMechanism::AdamixR}) {
            const auto spec = specFineTuningWith(mechanism);
            QVERIFY(!study_plan::dataParallelRefusal(1, false, spec, {}));
            const auto why = study_plan::dataParallelRefusal(2, false, spec, {});
            QVERIFY(why);
            QVERIFY2(why->find("only DP-SGD") != std::string::npos, why->c_str());
            QVERIFY2(why->find(methods::traitsOf(mechanism).label) != std::string::npos, why->c_str());
        }
        const auto text =
            study_plan::dataParallelRefusal(2, true, specFineTuningWith(methods::FinetuneMechanism::DpSgd), {});
        QVERIFY(text && text->find("text study") != std::string::npos);
        QVERIFY(!study_plan::dataParallelRefusal(1, true, specFineTuningWith(methods::FinetuneMechanism::DpSgd), {}));
    }
};

QTEST_APPLESS_MAIN(TestDataParallel)
#include "tst_data_parallel.moc"
