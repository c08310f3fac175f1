#include "engine/privacy/dirichlet_accountant.h"
#include "engine/privacy/gaussian_accountant.h"
#include "engine/privacy/key_stream.h"
#include "engine/privacy/ledger.h"
#include "engine/privacy/ledger_json.h"
#include "engine/privacy/prv_accountant.h"

#include "tests/support/unit_test.h"

#include <cmath>

using namespace dpmix::privacy;
using namespace dpmix::test_support;

class TestLedger : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void emptyLedgerSpendsNothing() {
        const Ledger ledger;
        QCOMPARE(ledger.total().epsilon, 0.0);
        QVERIFY(ledger.verify().ok);
    }
    void gaussianEntryRecordsItsEpsilon() {
        const auto e = gaussianEntry("mixture", "A", PrivacyUnit::Example, 0.01, 1.0, 1000, 1e-6, 13.0);
        DPMIX_COMPARE_NEAR(e.epsilon, 2.43669380, 5e-9);
        QVERIFY(e.established);
    }
    void sequentialCalibrationSpendsExactlyTheRest() {
        // No prior: the same σ as the single-mechanism calibration (independent search).
        const auto aloneResult = calibrateGaussianSigmaAfter({}, 1.0, 1e-5, 0.01, 1000);
        QVERIFY(aloneResult);
        const SigmaAfterPrior alone = *aloneResult;
        const double reference = calibrateGaussianSigma(1.0, 1e-5, 0.01, 1000)->sigma;
        QVERIFY2(std::fabs(alone.sigma - reference) < 1e-8 * reference, str(alone.sigma, " vs ", reference).c_str());
        // After DP-MixMin at (ε/2, δ/2): the composed total meets ε, and a slightly smaller σ would not.
        const double sigmaA = calibrateGaussianSigma(0.5, 0.5e-5, 0.2, 100)->sigma;
        const LedgerEntry mixture = gaussianEntry("mixture", "A", PrivacyUnit::Example, 0.2, sigmaA, 100, 0.5e-5, 13.0);
        const auto restResult = calibrateGaussianSigmaAfter({mixture}, 1.0, 1e-5, 0.005, 500);
        QVERIFY(restResult);
        const SigmaAfterPrior rest = *restResult;
        Ledger ledger(Composition::Sequential);
        ledger.record(mixture);
        ledger.record(gaussianEntry("finetune", "B", PrivacyUnit::Example, 0.005, rest.sigma, 500, 1e-5, 2.0));
        const auto t = ledger.total();
        QVERIFY(t.epsilon <= 1.0 + 1e-9);
        QVERIFY(t.epsilon > 1.0 - 1e-6);
        QCOMPARE(t.delta, 1e-5);
        Ledger tighter(Composition::Sequential);
        tighter.record(mixture);
        tighter.record(
            gaussianEntry("finetune", "B", PrivacyUnit::Example, 0.005, rest.sigma * (1 - 1e-6), 500, 1e-5, 2.0));
        QVERIFY(tighter.total().epsilon > 1.0);
        // A prior that spent everything leaves nothing.
        const LedgerEntry greedy = gaussianEntry("mixture", "A", PrivacyUnit::Example, 1.0, 0.5, 100, 1e-5, 13.0);
        const auto none = calibrateGaussianSigmaAfter({greedy}, 1.0, 1e-5, 0.005, 500);
        QVERIFY(!none);
        QVERIFY(none.error().message.find("leave no budget") != std::string::npos);
    }

    void parallelCompositionTakesTheMaximum() {
        Ledger ledger(Composition::Parallel);
        ledger.record(gaussianEntry("mixture", "A", PrivacyUnit::Example, 0.2, 8.0, 100, 1e-5, 13.0));
        ledger.record(gaussianEntry("finetune", "B", PrivacyUnit::Example, 0.01, 1.0, 1000, 1e-5, 2.0));
        const auto t = ledger.total();
        const double a = ledger.entries()[0].epsilon, b = ledger.entries()[1].epsilon;
        DPMIX_COMPARE_NEAR(t.epsilon, std::max(a, b), 1e-12);
        QCOMPARE(t.perSplit.size(), std::size_t(2));
        QCOMPARE(t.delta, 1e-5);
    }
    void sameSplitComposesByAddingRdp() {
        // Two identical T-step entries on one split = one 2T-step mechanism (RDP is additive).
        Ledger ledger(Composition::Parallel);
        ledger.record(gaussianEntry("s1", "A", PrivacyUnit::Example, 0.05, 1.2, 300, 1e-5, 1.0));
        ledger.record(gaussianEntry("s2", "A", PrivacyUnit::Example, 0.05, 1.2, 300, 1e-5, 1.0));
        const double expected = gaussianEpsilon({0.05, 1.2, 600}, 1e-5).epsilon;
        DPMIX_COMPARE_NEAR(ledger.total().epsilon, expected, 1e-12 * expected);
        // ... which is less than adding the two ε's (the point of RDP composition).
        QVERIFY(ledger.total().epsilon < 2 * ledger.entries()[0].epsilon);
    }
    void sequentialCompositionSumsAcrossSplits() {
        Ledger ledger(Composition::Sequential);
        ledger.record(gaussianEntry("mixture", "A", PrivacyUnit::Example, 0.05, 1.2, 300, 1e-5, 1.0));
        ledger.record(gaussianEntry("finetune", "B", PrivacyUnit::Example, 0.05, 1.2, 300, 1e-5, 1.0));
        const double expected = gaussianEpsilon({0.05, 1.2, 600}, 1e-5).epsilon;
        DPMIX_COMPARE_NEAR(ledger.total().epsilon, expected, 1e-12 * expected);
        ledger.setComposition(Composition::Parallel);
        QVERIFY(ledger.total().epsilon < expected);
    }
    void dirichletIsMarkedNotEstablished() {
        Ledger ledger;
        ledger.record(dirichletEntry("finetune", "B", 3.0, 0.277, 250.0 / 60000, 9600, 1e-5));
        const auto t = ledger.total();
        QVERIFY(!t.established);
        QVERIFY(t.epsilon <= 1.0 + 1e-3 && t.epsilon > 0.9);
        QVERIFY(contains(t.assumptions.front(), "labels are treated as public"));
        QVERIFY(contains(t.assumptions.front(), "not established"));
    }
    void mixedMechanismsOnOneSplitUseIntegerOrders() {
        Ledger ledger;
        ledger.record(dirichletEntry("d", "B", 3.0, 0.3, 0.01, 100, 1e-5));
        ledger.record(gaussianEntry("g", "B", PrivacyUnit::Example, 0.01, 1.0, 100, 1e-5, 1.0));
        const auto t = ledger.total();
        QVERIFY(t.epsilon > std::max(ledger.entries()[0].epsilon, ledger.entries()[1].epsilon));
        QVERIFY(t.epsilon < ledger.entries()[0].epsilon + ledger.entries()[1].epsilon);
        QCOMPARE(t.perSplit.front().order, std::round(t.perSplit.front().order));
    }
    void nonPrivateUseIsInfinite() {
        Ledger ledger;
        ledger.record(gaussianEntry("finetune", "B", PrivacyUnit::Example, 0.01, 1.0, 100, 1e-5, 1.0));
        ledger.record(nonPrivateEntry("random-search", "A", "lambda selected on split A without DP"));
        QVERIFY(std::isinf(ledger.total().epsilon));
    }
    void jsonRoundTripPreservesEverything() {
        Ledger ledger(Composition::Sequential);
        ledger.record(gaussianEntry("mixture", "A", PrivacyUnit::User, 0.2, 8.278, 100, 1e-5, 0.01));
        ledger.record(dirichletEntry("finetune", "B", 3.0, 0.5, 0.004, 1000, 1e-5));
        ledger.record(nonPrivateEntry("random-search", "A", "why"));
        const auto back = ledgerFromJson(ledgerToJson(ledger));
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QVERIFY(back->composition() == Composition::Sequential);
        QCOMPARE(back->entries().size(), std::size_t(3));
        for (std::size_t i = 0; i < 3; ++i) {
            const auto& x = ledger.entries()[i];
            const auto& y = back->entries()[i];
            QCOMPARE(y.stage, x.stage);
            QVERIFY(y.mechanism == x.mechanism);
            QVERIFY(y.unit == x.unit);
            QCOMPARE(y.q, x.q);
            QCOMPARE(y.sigma, x.sigma);
            QCOMPARE(y.steps, x.steps);
            QCOMPARE(y.dirichletR, x.dirichletR);
            QCOMPARE(y.established, x.established);
            QVERIFY(y.epsilon == x.epsilon);  // also ∞ == ∞
        }
        QVERIFY(back->verify().ok);
    }
    void verifyDetectsAnEditedEntry() {
        Ledger ledger;
        ledger.record(gaussianEntry("mixture", "A", PrivacyUnit::Example, 0.2, 8.278, 100, 1e-5, 13.0));
        std::string json = ledgerToJson(ledger);
        // A reviewer's file where someone lowered σ after the fact but kept the old ε.
        const auto pos = json.find("\"sigma\":8.278");
        QVERIFY(pos != std::string::npos);
        json.replace(pos, 13, "\"sigma\":4.000");
        const auto edited = ledgerFromJson(json);
        QVERIFY(edited.ok());
        const auto v = edited->verify();
        QVERIFY(!v.ok);
        QVERIFY(!v.entries.front().matches);
        QVERIFY(v.entries.front().recomputed > v.entries.front().recorded);
        QVERIFY(!v.problems.empty());
        // A recorded total that disagrees is reported too.
        QVERIFY(!ledger.verify(ledger.total().epsilon * 0.5).ok);
        QVERIFY(ledger.verify(ledger.total().epsilon).ok);
    }
    void aPrvEntryIsCertifiedAndRecomputedByPrv() {
        const auto e =
            gaussianEntry("mixture", "A", PrivacyUnit::Example, 0.01, 1.0, 1000, 1e-6, 13.0, Accountant::Prv);
        QVERIFY(e.accounting == Accountant::Prv);
        QVERIFY(startsWith(e.accountant, "prv-"));
        // The certificate is the PRV upper bound here (RDP says 2.4367): computed independently.
        const auto prv = prvEpsilon({{0.01, 1.0, 1000}}, 1e-6).value();
        DPMIX_COMPARE_NEAR(e.epsilon, prv.upper, 1e-12);
        QVERIFY(e.epsilon < 2.43669380 - 0.2);
        DPMIX_COMPARE_NEAR(recomputeEpsilon(e), e.epsilon, 1e-12);
    }
    void prvEntriesOnOneSplitComposeTheirLossDistributions() {
        // Two PRV entries on split A compose as one PRV composition, tighter than RDP's sum and
        // never the max of the entries' ε.
        Ledger ledger;
        ledger.record(gaussianEntry("mixture", "A", PrivacyUnit::Example, 0.01, 1.0, 500, 1e-5, 1.0, Accountant::Prv));
        ledger.record(gaussianEntry("extra", "A", PrivacyUnit::Example, 0.02, 2.0, 300, 1e-5, 1.0, Accountant::Prv));
        const auto together = prvEpsilon({{0.01, 1.0, 500}, {0.02, 2.0, 300}}, 1e-5).value();
        DPMIX_COMPARE_NEAR(ledger.total().epsilon, together.upper, 1e-12);
        QVERIFY(ledger.total().epsilon > std::max(ledger.entries()[0].epsilon, ledger.entries()[1].epsilon));
        // The same entries recorded by RDP compose by RDP, to a larger ε.
        Ledger rdp;
        rdp.record(gaussianEntry("mixture", "A", PrivacyUnit::Example, 0.01, 1.0, 500, 1e-5, 1.0));
        rdp.record(gaussianEntry("extra", "A", PrivacyUnit::Example, 0.02, 2.0, 300, 1e-5, 1.0));
        QVERIFY(rdp.total().epsilon > ledger.total().epsilon);
        // A group with one RDP entry composes by RDP: the mixed group equals the all-RDP one.
        Ledger mixed;
        mixed.record(ledger.entries()[0]);
        mixed.record(rdp.entries()[1]);
        DPMIX_COMPARE_NEAR(mixed.total().epsilon, rdp.total().epsilon, 1e-12);
    }
    void prvSequentialCalibrationMeetsTheTargetByPrv() {
        const double sigmaA = calibrateGaussianSigmaPrv(0.5, 0.5e-5, 0.2, 100)->sigma;
        const LedgerEntry mixture =
            gaussianEntry("mixture", "A", PrivacyUnit::Example, 0.2, sigmaA, 100, 0.5e-5, 13.0, Accountant::Prv);
        const auto rest = calibrateGaussianSigmaAfter({mixture}, 1.0, 1e-5, 0.005, 500, Accountant::Prv);
        QVERIFY2(rest.ok(), rest.ok() ? "" : rest.error().message.c_str());
        Ledger ledger(Composition::Sequential);
        ledger.record(mixture);
        ledger.record(
            gaussianEntry("finetune", "B", PrivacyUnit::Example, 0.005, rest->sigma, 500, 1e-5, 2.0, Accountant::Prv));
        QVERIFY(ledger.total().epsilon <= 1.0);
        // Less noise than the RDP calibration of the same rest.
        const LedgerEntry rdpMixture =
            gaussianEntry("mixture", "A", PrivacyUnit::Example, 0.2, sigmaA, 100, 0.5e-5, 13.0);
        QVERIFY(rest->sigma < calibrateGaussianSigmaAfter({rdpMixture}, 1.0, 1e-5, 0.005, 500)->sigma);
    }
    void theAccountantSurvivesJsonAndOldLedgersReadAsRdp() {
        Ledger ledger;
        ledger.record(gaussianEntry("mixture", "A", PrivacyUnit::Example, 0.2, 8.0, 100, 1e-5, 13.0, Accountant::Prv));
        const std::string json = ledgerToJson(ledger);
        QVERIFY(json.find("\"accounting\":\"prv\"") != std::string::npos);
        const auto back = ledgerFromJson(json);
        QVERIFY(back.ok());
        QVERIFY(back->entries().front().accounting == Accountant::Prv);
        QVERIFY(back->verify().ok);
        // A ledger written before the PRV accountant has no field: RDP certified it.
        Ledger old;
        old.record(gaussianEntry("mixture", "A", PrivacyUnit::Example, 0.2, 8.0, 100, 1e-5, 13.0));
        std::string oldJson = ledgerToJson(old);
        const auto field = oldJson.find(",\"accounting\":\"rdp\"");
        QVERIFY(field != std::string::npos);
        oldJson.erase(field, std::string(",\"accounting\":\"rdp\"").size());
        const auto oldBack = ledgerFromJson(oldJson);
        QVERIFY(oldBack.ok());
        QVERIFY(oldBack->entries().front().accounting == Accountant::Rdp);
        QVERIFY(oldBack->verify().ok);
        // A PRV entry whose recorded ε was the RDP one does not verify: recomputation uses PRV.
        std::string swapped = oldJson;
        swapped.replace(swapped.find("\"stage\""), 0, "\"accounting\":\"prv\",");
        const auto forged = ledgerFromJson(swapped);
        QVERIFY(forged.ok());
        QVERIFY(!forged->verify().ok);
        QVERIFY(!ledgerFromJson(std::string(json).replace(json.find("\"prv\""), 5, "\"xyz\"")).ok());
    }
    void theKeyStreamIsRecordedAndSurvivesJson() {
        // A DP entry says which key stream its randomness came from (secret: this machine's
        // choice; seeded: ChaCha20 everywhere); a non-private one says nothing, nor does a ledger
        // written before the field, and reading a file keeps what it says.
        LedgerEntry secret = gaussianEntry("finetune", "B", PrivacyUnit::Example, 0.01, 1.0, 100, 1e-5, 1.0);
        setRandomness(secret, RandomnessMode::Secret);
        QCOMPARE(secret.keyStream, describeKeyStream(RandomnessMode::Secret));
        LedgerEntry seeded = secret;
        setRandomness(seeded, RandomnessMode::Seeded);
        QVERIFY(seeded.keyStream.rfind("ChaCha20", 0) == 0);
        LedgerEntry none = nonPrivateEntry("random-search", "A", "why");
        setRandomness(none, RandomnessMode::Seeded);
        QVERIFY(none.keyStream.empty());
        Ledger ledger;
        ledger.record(secret);
        ledger.record(seeded);
        ledger.record(none);
        const std::string json = ledgerToJson(ledger);
        QVERIFY(json.find("\"key_stream\":\"" + secret.keyStream + "\"") != std::string::npos);
        const auto back = ledgerFromJson(json);
        QVERIFY(back.ok());
        QCOMPARE(back->entries()[0].keyStream, secret.keyStream);
        QCOMPARE(back->entries()[1].keyStream, seeded.keyStream);
        QVERIFY(back->entries()[2].keyStream.empty());
        std::string other = json;
        const std::string stored = "\"key_stream\":\"" + secret.keyStream + "\"";
        other.replace(other.find(stored), stored.size(), "\"key_stream\":\"ChaCha20 (another machine)\"");
        QCOMPARE(ledgerFromJson(other)->entries()[0].keyStream, std::string("ChaCha20 (another machine)"));
        std::string old = json;
        old.erase(old.find("," + stored), stored.size() + 1);
        QVERIFY(ledgerFromJson(old)->entries()[0].keyStream.empty());
    }
    void malformedJsonNamesTheProblem() {
        auto r = ledgerFromJson("{\"entries\":[{\"mechanism\":\"subsampled-gaussian\",\"epsilon\":1}]}");
        QVERIFY(!r.ok());
        QVERIFY(contains(r.error().message, "entry 1"));
        QVERIFY(contains(r.error().message, "'q'"));
        QVERIFY(!ledgerFromJson("not json").ok());
    }
    // A damaged or forged file: parameters no mechanism can have are an error naming the field,
    // never a question to the accountant (which refuses them by throwing).
    void parametersNoMechanismCanHaveAreRefused() {
        Ledger ledger;
        ledger.record(gaussianEntry("mixture", "A", PrivacyUnit::Example, 0.2, 8.278, 100, 1e-5, 13.0));
        ledger.record(dirichletEntry("finetune", "B", 3.0, 0.5, 0.004, 1000, 1e-5));
        const std::string good = ledgerToJson(ledger);
        QVERIFY(ledgerFromJson(good).ok());
        const std::vector<std::pair<std::string, std::string>> damaged = {
            {"\"q\":0.2", "\"q\":2.0"},           {"\"q\":0.2", "\"q\":-0.1"},
            {"\"sigma\":8.278", "\"sigma\":-1"},  {"\"sigma\":8.278", "\"sigma\":\"inf\""},
            {"\"steps\":100", "\"steps\":1e300"}, {"\"steps\":100", "\"steps\":2.5"},
            {"\"steps\":100", "\"steps\":-3"},    {"\"dirichlet_r\":0.5", "\"dirichlet_r\":3.5"},
            {"\"q\":0.004", "\"q\":0"},           {"\"dirichlet_alpha\":3.0", "\"dirichlet_alpha\":null"}};
        for (const auto& [from, to] : damaged) {
            std::string text = good;
            const auto at = text.find(from);
            QVERIFY2(at != std::string::npos, from.c_str());
            text.replace(at, from.size(), to);
            const auto read = ledgerFromJson(text);
            QVERIFY2(!read.ok(), to.c_str());
            const std::string field = to.substr(0, to.find(':'));
            QVERIFY2(read.error().message.find("out of range") != std::string::npos, read.error().message.c_str());
            QVERIFY2(read.error().message.find(field.substr(1, field.size() - 2)) != std::string::npos,
                     read.error().message.c_str());
        }
        std::string delta = good;
        delta.replace(delta.find("\"delta\":1e-05"), 14, "\"delta\":1.5");
        QVERIFY(!ledgerFromJson(delta).ok());
    }
};

QTEST_APPLESS_MAIN(TestLedger)
#include "tst_ledger.moc"
