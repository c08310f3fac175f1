// The verdict on a mechanism's claimed ε, from hand-made stored audit records: refuted, not
// refuted, not audited, refuted at another claim; records of other mechanisms, other δ and
// impossible counts are ignored. ε_LB is recomputed from the counts, so the expected bounds here
// are derived by hand from the Clopper–Pearson closed form for zero errors:
//   upper(0 of n) = 1 − (α/2)^(1/n),  ε_LB = log((1 − δ − upper_FN) / upper_FP).
// A one-run audit's record (details "kind": "one-run") is judged by the one-run bound; with δ = 0
// and every one of r guesses correct it has the closed form ε_LB = logit(β^(1/r)), β = 0.05
// (docs/AUDIT.md, "The bound").
#include "engine/audit/claim_verdict.h"

#include "tests/support/unit_test.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

using namespace dpmix::audit;
using namespace dpmix::test_support;

namespace {

constexpr double kDelta = 1e-5;

/// ε_LB of an audit with no error among n runs per world, at 95% (two-sided: α/2 = 0.025).
double perfectSeparationBound(long long n) {
    const double upper = 1.0 - std::pow(0.025, 1.0 / static_cast<double>(n));
    return std::log((1.0 - kDelta - upper) / upper);
}

StoredMechanismAudit audit(long long runId, const std::string& mechanism, double claimed, long long fp, long long fn,
                           long long n, double delta = kDelta) {
    StoredMechanismAudit a;
    a.runId = runId;
    a.name = "finetune-" + mechanism + "-large-norm";
    a.mechanism = mechanism;
    a.claimedEpsilon = claimed;
    a.delta = delta;
    a.counts = {fp, fn, n, n};
    return a;
}

/// ε_LB of a one-run audit with δ = 0 whose r guesses are all correct, at 95% (one-sided).
double allCorrectOneRunBound(long long r) {
    const double p = std::pow(0.05, 1.0 / static_cast<double>(r));
    return std::log(p / (1.0 - p));
}

/// A stored one-run audit of DP-SGD at claimed ε, with m canaries, r guesses (r/2 each way, the
/// included ones among them `included`) and v correct, its confusion matrix `counts`.
std::string oneRunDetails(double claimed, long long m, long long r, long long v) {
    return R"({"audit":"training","kind":"one-run","mechanism":"dp-sgd","claimed_epsilon":)" + std::to_string(claimed) +
           R"(,"canaries":)" + std::to_string(m) + R"(,"guesses":)" + std::to_string(r) + R"(,"correct":)" +
           std::to_string(v) + R"(,"epsilon_lb":99})";
}

}  // namespace

class TestClaimVerdict : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theHandDerivedBoundIsTheOneUsed() {
        // 500 EVAL runs per world without an error: ε_LB = 4.905 (hand value of the closed form; 4.91 to 3 digits).
        DPMIX_COMPARE_NEAR(perfectSeparationBound(500), 4.905, 2e-3);
        const auto v = claimVerdict("dirichlet", 4.0, kDelta, {audit(7, "dirichlet", 4.0, 0, 0, 500)});
        QCOMPARE(v.status, ClaimStatus::Refuted);
        QCOMPARE(v.audits, 1);
        QVERIFY(v.strongest.has_value());
        QCOMPARE(v.strongest->runId, 7LL);
        DPMIX_COMPARE_NEAR(v.strongest->epsilonLB, perfectSeparationBound(500), 1e-9);
        QCOMPARE(describe(v, 4.0), std::string("claim refuted by audit (ε_LB = 4.91 > ε = 4; audit run #7)"));
    }

    void aBoundBelowTheClaimDoesNotRefuteIt() {
        // The same perfect separation cannot refute ε = 5: 4.905 < 5.
        const auto v = claimVerdict("dirichlet", 5.0, kDelta, {audit(3, "dirichlet", 5.0, 0, 0, 500)});
        QCOMPARE(v.status, ClaimStatus::NotRefuted);
        QCOMPARE(describe(v, 5.0), std::string("claimed, not refuted (best ε_LB = 4.91 in 1 audit; audit run #3)"));
    }

    void theStrongestOfSeveralAuditsDecides() {
        // Half the runs wrong in each world gives ε_LB = 0; the perfect one refutes ε = 1.
        const auto v = claimVerdict("dirichlet", 1.0, kDelta,
                                    {audit(1, "dirichlet", 1.0, 250, 250, 500), audit(2, "dirichlet", 1.0, 0, 0, 500)});
        QCOMPARE(v.status, ClaimStatus::Refuted);
        QCOMPARE(v.audits, 2);
        QCOMPARE(v.strongest->runId, 2LL);
    }

    void noAuditAtTheClaimIsSaidSo() {
        const auto none = claimVerdict("dirichlet", 1.0, kDelta, {});
        QCOMPARE(none.status, ClaimStatus::NotAudited);
        QCOMPARE(describe(none, 1.0), std::string("claimed, not audited"));
        // Other mechanisms, other δ and other ε are not this claim...
        const auto other =
            claimVerdict("dirichlet", 1.0, kDelta,
                         {audit(1, "dp-sgd", 1.0, 0, 0, 500), audit(2, "dirichlet", 1.0, 0, 0, 500, 1e-6)});
        QCOMPARE(other.status, ClaimStatus::NotAudited);
        // ... but the δ = 1e-6 audit refuted ε = 1 at its own δ: that is reported beside.
        QVERIFY(other.refutedElsewhere.has_value());
        QCOMPARE(other.refutedElsewhere->runId, 2LL);
    }

    void aRefutationAtAnotherClaimIsReportedBeside() {
        const auto v = claimVerdict("dirichlet", 0.5, kDelta, {audit(9, "dirichlet", 4.0, 0, 0, 500)});
        QCOMPARE(v.status, ClaimStatus::NotAudited);
        QVERIFY(v.refutedElsewhere.has_value());
        QCOMPARE(v.refutedElsewhere->runId, 9LL);
        QCOMPARE(describe(v, 0.5), std::string("claimed, not audited; the same mechanism's claim ε = 4 was refuted "
                                               "(ε_LB = 4.91, audit run #9)"));
    }

    void impossibleCountsAreNotEvidence() {
        // A damaged record (more errors than runs, no runs) is skipped, not trusted.
        const auto v = claimVerdict("dirichlet", 1.0, kDelta,
                                    {audit(1, "dirichlet", 1.0, 600, 0, 500), audit(2, "dirichlet", 1.0, 0, 0, 0)});
        QCOMPARE(v.status, ClaimStatus::NotAudited);
        QCOMPARE(v.audits, 0);
    }

    void storedRecordsAreReadByWhatTheirDetailsSay() {
        const auto a = mechanismAuditFrom(4, "finetune-dirichlet-large-norm",
                                          R"({"mechanism":"dirichlet","claimed_epsilon":4,"q":0.1})", {0, 0, 500, 500},
                                          kDelta, 0.95);
        QVERIFY(a.has_value());
        QCOMPARE(a->mechanism, std::string("dirichlet"));
        QCOMPARE(a->claimedEpsilon, 4.0);
        QCOMPARE(a->runId, 4LL);
        // A mixture audit, the non-private control (no claim) and damaged details are not evidence.
        for (const char* details : {R"({"canary":"max-clip"})", R"({"mechanism":"sgd"})",
                                    R"({"mechanism":"dirichlet","claimed_epsilon":"4"})", "{not json", ""})
            QVERIFY2(!mechanismAuditFrom(1, "x", details, {0, 0, 10, 10}, kDelta, 0.95), details);
    }

    void aDirichletEntryAlwaysShowsItsVerdictOthersOnlyWhenAudited() {
        const auto dirichlet = dpmix::privacy::dirichletEntry("finetune", "B", 3.0, 0.3, 0.01, 100, kDelta);
        const auto gaussian = dpmix::privacy::gaussianEntry("finetune", "B", dpmix::privacy::PrivacyUnit::Example, 0.01,
                                                            1.0, 100, kDelta, 1.0);
        const auto mixture = dpmix::privacy::gaussianEntry("mixture", "A", dpmix::privacy::PrivacyUnit::Example, 0.2,
                                                           2.0, 10, kDelta, 1.0);
        QCOMPARE(auditedMechanismOf(dirichlet), std::string("dirichlet"));
        QCOMPARE(auditedMechanismOf(gaussian), std::string("dp-sgd"));
        QCOMPARE(auditedMechanismOf(mixture), std::string());
        QVERIFY(entryVerdict(dirichlet, {}).has_value());  // "claimed, not audited" is worth saying
        QVERIFY(!entryVerdict(gaussian, {}).has_value());  // an established guarantee, nothing said
        QVERIFY(!entryVerdict(mixture, {}).has_value());
        const auto audited = entryVerdict(gaussian, {audit(2, "dp-sgd", gaussian.epsilon, 250, 250, 500)});
        QVERIFY(audited.has_value());
        QCOMPARE(audited->status, ClaimStatus::NotRefuted);
    }

    void summaryLinesNameEachClaimOnce() {
        const auto a = dpmix::privacy::dirichletEntry("finetune", "B", 3.0, 0.3, 0.01, 100, kDelta);
        auto b = a;  // the same claim in a second run
        const auto other = dpmix::privacy::dirichletEntry("finetune", "B", 3.0, 0.6, 0.01, 100, kDelta);
        const auto lines = claimVerdictLines({a, b, other}, {audit(5, "dirichlet", a.epsilon, 0, 0, 500)});
        QCOMPARE(lines.size(), std::size_t(2));
        QVERIFY2(startsWith(lines[0], "Dirichlet mechanism at ε = ") && contains(lines[0], "claim refuted by audit"),
                 lines[0].c_str());
        QVERIFY2(contains(lines[1], "claimed, not audited"), lines[1].c_str());
        QVERIFY(claimVerdictLines({dpmix::privacy::nonPrivateEntry("audit", "A", "x")}, {}).empty());
    }

    void onlyARefutedClaimBlocksARelease() {
        const auto e = dpmix::privacy::dirichletEntry("finetune", "B", 3.0, 0.3, 0.01, 100, kDelta);
        QVERIFY(!refutedClaim({e}, {}));  // claimed, not audited: a confirmed reason may release it
        QVERIFY(!refutedClaim({e}, {audit(1, "dirichlet", e.epsilon, 250, 250, 500)}));  // not refuted
        const auto why = refutedClaim({e}, {audit(6, "dirichlet", e.epsilon, 0, 0, 500)});
        QVERIFY(why.has_value());
        QVERIFY2(why->rfind("its finetune mechanism: claim refuted by audit (ε_LB = 4.91 > ε = ", 0) == 0,
                 why->c_str());
    }

    void aOneRunRecordIsJudgedByTheOneRunBound() {
        // r = 200 guesses, all correct, δ = 0: ε_LB = logit(0.05^(1/200)) = 4.194 (by hand: p = 0.985133).
        DPMIX_COMPARE_NEAR(allCorrectOneRunBound(200), 4.194, 1e-3);
        const auto a = mechanismAuditFrom(9, "finetune-one-run-dp-sgd-large-norm", oneRunDetails(1.0, 1000, 200, 200),
                                          {0, 0, 100, 100}, 0.0, 0.95);
        QVERIFY(a.has_value());
        QVERIFY(a->oneRun.has_value());
        QCOMPARE(a->oneRun->canaries, 1000LL);
        const auto v = claimVerdict("dp-sgd", 1.0, 0.0, {*a});
        QCOMPARE(v.status, ClaimStatus::Refuted);
        // Recomputed from m, r, v — the details' "epsilon_lb": 99 is never read.
        DPMIX_COMPARE_NEAR(v.strongest->epsilonLB, allCorrectOneRunBound(200), 1e-6);
        QCOMPARE(describe(v, 1.0), std::string("claim refuted by audit (ε_LB = 4.19 > ε = 1; audit run #9)"));
        // The same counts do not refute ε = 5.
        const auto b = mechanismAuditFrom(9, "x", oneRunDetails(5.0, 1000, 200, 200), {0, 0, 100, 100}, 0.0, 0.95);
        QCOMPARE(claimVerdict("dp-sgd", 5.0, 0.0, {*b}).status, ClaimStatus::NotRefuted);
    }

    void aOneRunRecordAtChanceIsNotARefutation() {
        // 117 of 200 correct (the logistic head's DP-SGD at ε = 1): ε_LB ≈ 0.1, below the claim.
        const auto a = mechanismAuditFrom(4, "x", oneRunDetails(1.0, 1000, 200, 117), {40, 43, 98, 102}, 1e-5, 0.95);
        QVERIFY(a.has_value());
        const auto v = claimVerdict("dp-sgd", 1.0, 1e-5, {*a});
        QCOMPARE(v.status, ClaimStatus::NotRefuted);
        QVERIFY(v.strongest->epsilonLB < 1.0);
    }

    void aOneRunRecordWhoseCountsDisagreeIsNotEvidence() {
        // r = 200 in the details, but the confusion matrix holds 150 guesses; v = 200 with 3 errors;
        // v > r; m < r: none of them is an audit.
        for (const auto& [details, counts] : std::vector<std::pair<std::string, dpmix::privacy::AuditCounts>>{
                 {oneRunDetails(1.0, 1000, 200, 200), {0, 0, 75, 75}},
                 {oneRunDetails(1.0, 1000, 200, 200), {1, 2, 100, 100}},
                 {oneRunDetails(1.0, 1000, 200, 201), {0, 0, 100, 100}},
                 {oneRunDetails(1.0, 100, 200, 200), {0, 0, 100, 100}}}) {
            const auto a = mechanismAuditFrom(2, "x", details, counts, 0.0, 0.95);
            QVERIFY(a.has_value());
            QCOMPARE(claimVerdict("dp-sgd", 1.0, 0.0, {*a}).status, ClaimStatus::NotAudited);
        }
        // Without its counts in the details a one-run record is not read as an audit at all.
        QVERIFY(!mechanismAuditFrom(
            2, "x", R"({"kind":"one-run","mechanism":"dp-sgd","claimed_epsilon":1,"canaries":10,"guesses":2})",
            {0, 0, 1, 1}, 0.0, 0.95));
        QVERIFY(!mechanismAuditFrom(
            2, "x",
            R"({"kind":"one-run","mechanism":"dp-sgd","claimed_epsilon":1,"canaries":10,"guesses":2,"correct":1.5})",
            {0, 0, 1, 1}, 0.0, 0.95));
    }
};

QTEST_APPLESS_MAIN(TestClaimVerdict)
#include "tst_claim_verdict.moc"
