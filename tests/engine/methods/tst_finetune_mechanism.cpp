// The fine-tuning mechanisms' table (engine/methods/finetune_mechanism.h): every mechanism's
// stored spelling round-trips, an unknown spelling is refused with the accepted ones, and the
// spellings are the ones project files were written with (docs/PROJECT_FILE.md, "stages").
#include "engine/methods/finetune_mechanism.h"

#include "tests/support/kind_table_checks.h"
#include "tests/support/unit_test.h"

#include <set>

using namespace dpmix;
using methods::FinetuneMechanism;

class TestFinetuneMechanism : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyMechanismRoundTrips() {
        std::set<std::string> names;
        testing::checkSpellingsRoundTrip(
            methods::allFinetuneMechanisms(), &methods::FinetuneMechanismTraits::mechanism,
            [](auto k) { return methods::nameOf(k); },
            [](const std::string& n) { return methods::parseFinetuneMechanism(n); }, names);
        QCOMPARE(names.size(), std::size_t{3});
    }

    void theStoredSpellingsAreThoseOfEarlierProjectFiles() {
        QCOMPARE(methods::nameOf(FinetuneMechanism::DpSgd), std::string("dp-sgd"));
        QCOMPARE(methods::nameOf(FinetuneMechanism::Dirichlet), std::string("dirichlet"));
        QCOMPARE(methods::nameOf(FinetuneMechanism::AdamixR), std::string("adamix-r"));
        QVERIFY(methods::traitsOf(FinetuneMechanism::DpSgd).userLevel);
        QVERIFY(!methods::traitsOf(FinetuneMechanism::Dirichlet).userLevel);
        QVERIFY(!methods::traitsOf(FinetuneMechanism::AdamixR).userLevel);
    }

    void anUnknownNameIsRefusedWithTheAcceptedOnes() {
        for (const std::string name : {"laplace", "", "DP-SGD", "dpsgd", "adamix", "dp-sgd "}) {
            const auto parsed = methods::parseFinetuneMechanism(name);
            QVERIFY2(!parsed, name.c_str());
            QCOMPARE(parsed.error().message, "\"" + name +
                                                 "\" is not a fine-tuning mechanism: expected \"dp-sgd\", "
                                                 "\"dirichlet\" or \"adamix-r\"");
        }
    }
};

QTEST_APPLESS_MAIN(TestFinetuneMechanism)
#include "tst_finetune_mechanism.moc"
