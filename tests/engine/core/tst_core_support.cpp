// The small shared pieces of engine/core: cancellation, progress, version, the file-size limit,
// the one rule for numbers typed by users, the one list form of messages, the heap tuning.
#include "engine/core/cancellation.h"
#include "engine/core/double_bits.h"
#include "engine/core/file_size_limit.h"
#include "engine/core/job_meter.h"
#include "engine/core/joined_list.h"
#include "engine/core/malloc_tuning.h"
#include "engine/core/mean_std.h"
#include "engine/core/number_text.h"
#include "engine/core/progress.h"
#include "engine/core/version.h"

#include "tests/support/unit_test.h"

#include <cmath>
#include <csignal>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

// A sanitizer's allocator stands in for glibc's malloc (clang: __has_feature; GCC: __SANITIZE_*__).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DPMIX_SANITIZER_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define DPMIX_SANITIZER_MALLOC 1
#endif
#endif

class TestCoreSupport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void copiesOfATokenShareOneRequest() {
        dpmix::CancellationToken token;
        const dpmix::CancellationToken copy = token;
        QVERIFY(!copy.isCancelled());
        dpmix::throwIfCancelled(copy);  // nothing requested: no throw
        token.cancel();
        QVERIFY(copy.isCancelled());
        QVERIFY_THROWS_EXCEPTION(dpmix::Cancelled, dpmix::throwIfCancelled(copy));
        QVERIFY(!dpmix::CancellationToken().isCancelled());  // a new token is its own
    }

    void aCancellationFromAnotherThreadIsSeen() {
        dpmix::CancellationToken token;
        std::thread canceller([token] { token.cancel(); });
        canceller.join();
        QVERIFY(token.isCancelled());
    }

    void progressReachesTheCallbackAndAnEmptyOneIsAllowed() {
        std::vector<dpmix::ProgressEvent> seen;
        const dpmix::ProgressCallback cb = [&](const dpmix::ProgressEvent& e) { seen.push_back(e); };
        dpmix::report(cb, {"mixture", 3, 10, "loss 0.5"});
        dpmix::report({}, {"mixture", 4, 10, ""});  // no callback: nothing happens
        QCOMPARE(seen.size(), std::size_t(1));
        QCOMPARE(seen[0].stage, std::string("mixture"));
        QCOMPARE(seen[0].done, 3LL);
        QCOMPARE(seen[0].total, 10LL);
        QCOMPARE(seen[0].message, std::string("loss 0.5"));
    }

    // One bar for the whole job (docs/MANUAL.md, "Running"). Phases of cost 10 (reports nothing: a reused proxy),
    // 30 and 60 out of 100; the fractions are worked out by hand from those costs.
    void aJobMeterWeighsEachPhaseByItsCost() {
        std::vector<double> seen;
        dpmix::JobMeter meter([&](const dpmix::ProgressEvent& e) { seen.push_back(e.jobFraction); });
        auto early = meter.phase(10);
        dpmix::report(early, {"load", 1, 2, ""});
        QCOMPARE(seen.back(), -1.0);  // no plan yet: unknown, not a guess
        meter.setTotal(100);
        auto mixture = meter.phase(30);  // the first phase (cost 10) now counts as done
        dpmix::report(mixture, {"mixture", 1, 3, ""});
        QVERIFY(std::abs(seen.back() - 0.20) < 1e-12);  // (10 + 30 · 1/3) / 100
        auto finetune = meter.phase(60);
        dpmix::report(finetune, {"finetune", 0, 100, ""});
        QVERIFY(std::abs(seen.back() - 0.40) < 1e-12);  // (10 + 30) / 100
        dpmix::report(mixture, {"mixture", 3, 3, ""});  // a late event of an earlier phase moves nothing
        QVERIFY(std::abs(seen.back() - 0.40) < 1e-12);
        dpmix::report(finetune, {"finetune", 50, 100, ""});
        QVERIFY(std::abs(seen.back() - 0.70) < 1e-12);
        dpmix::report(finetune, {"finetune", 20, 100, ""});  // never backwards
        QVERIFY(std::abs(seen.back() - 0.70) < 1e-12);
        dpmix::report(finetune, {"finetune", 100, 100, ""});
        QCOMPARE(seen.back(), 1.0);
        // Parts: a phase of 40 whose "pretrain" is 10 and "finetune" 20 (the rest, 10, reports nothing).
        meter.setTotal(200);
        auto staged = meter.phase(40, {{"pretrain", 10}, {"finetune", 20}});
        dpmix::report(staged, {"pretrain", 1, 1, ""});
        QVERIFY(std::abs(seen.back() - 110.0 / 200) < 1e-12);  // 100 before it + 10
        dpmix::report(staged, {"finetune", 1, 2, ""});
        QVERIFY(std::abs(seen.back() - 120.0 / 200) < 1e-12);  // + 10 + 20 · 1/2
        dpmix::report(staged, {"other", 1, 4, ""});            // not a part: a share of the whole phase
        QVERIFY(std::abs(seen.back() - 120.0 / 200) < 1e-12);  // 40 · 1/4 = 10 < 20 done: unchanged
        meter.setTotal(50);                                    // an estimate that was too small: clamped, never past 1
        dpmix::report(finetune, {"finetune", 100, 100, ""});
        QCOMPARE(seen.back(), 1.0);
    }

    void theHeapTuningTakesEffectOnGlibc() {
        // Training frees and re-allocates large tensors every step; untuned, glibc returns them to
        // the kernel and page-faults them back (docs/DEVELOPING.md, "BLAS and malloc").
#if defined(DPMIX_SANITIZER_MALLOC)
        QSKIP("the sanitizer's allocator replaces glibc's malloc, and its mallopt changes nothing");
#elif defined(__GLIBC__)
        QVERIFY(dpmix::tuneMallocForTraining());
#else
        QVERIFY(!dpmix::tuneMallocForTraining());
#endif
    }

    void theVersionIsTheProjects() { QCOMPARE(dpmix::versionString(), std::string(DPMIX_EXPECTED_VERSION)); }

    void aFileSizeLimitBecomesAnErrorNotASignal() {
        struct sigaction before {};
        QCOMPARE(sigaction(SIGXFSZ, nullptr, &before), 0);
        dpmix::reportFileSizeLimitAsError();
        struct sigaction after {};
        QCOMPARE(sigaction(SIGXFSZ, nullptr, &after), 0);
        QVERIFY(after.sa_handler == SIG_IGN);  // a write past RLIMIT_FSIZE now fails with EFBIG
        (void)sigaction(SIGXFSZ, &before, nullptr);
    }

    void decimalTextIsReadOneWay() {
        using dpmix::parseDecimalText;
        QCOMPARE(parseDecimalText("0.25").value(), 0.25);
        QCOMPARE(parseDecimalText("-3").value(), -3.0);
        QCOMPARE(parseDecimalText("1E3").value(), 1000.0);
        for (const char* refused : {"", " ", "abc", "0x1p-7", "inf", "nan", "-inf", "1e400", "1,5", "1 000", "2.5x",
                                    "1e", "--1", ".", " 0.01", "0.01 "})
            QVERIFY2(!parseDecimalText(refused).has_value(), refused);
    }

    void aDoubleTravelsAsItsBitsInHex() {
        // 1.0 is 0x3FF0000000000000 (sign 0, exponent 1023, mantissa 0): worked out by hand.
        QCOMPARE(dpmix::doubleToHexBits(1.0), std::string("3ff0000000000000"));
        QCOMPARE(dpmix::doubleToHexBits(-0.0), std::string("8000000000000000"));
        for (double v : {0.1, -2.5e-308, 4.9e-324, 1e308, 1.0 / 3.0}) {
            const auto back = dpmix::doubleFromHexBits(dpmix::doubleToHexBits(v));
            QVERIFY(back.ok());
            QVERIFY(std::memcmp(&*back, &v, sizeof v) == 0);  // bit for bit
        }
        QVERIFY(!dpmix::doubleFromHexBits("3FF0000000000000"));  // upper case is not what is written
        QVERIFY(!dpmix::doubleFromHexBits("3ff000000000000"));   // 15 digits
        QVERIFY(!dpmix::doubleFromHexBits("3ff000000000000g"));
        QCOMPARE(dpmix::doubleFromHexBits("xyz").error().message, std::string("a number is not 16 hex digits"));
    }

    void wholeNumbersAcceptExactlyWholeDecimalText() {
        using dpmix::parseWholeNumberText;
        QCOMPARE(parseWholeNumberText("1000").value(), 1000LL);
        QCOMPARE(parseWholeNumberText("1e3").value(), 1000LL);  // the CLI and the workbench agree on this
        QCOMPARE(parseWholeNumberText("1000.0").value(), 1000LL);
        QCOMPARE(parseWholeNumberText("-7").value(), -7LL);
        QCOMPARE(parseWholeNumberText("9e15").value(), 9'000'000'000'000'000LL);
        for (const char* refused : {"2.5", "1e-3", "1e16", "x", "", "0x10"})
            QVERIFY2(!parseWholeNumberText(refused).has_value(), refused);
    }

    // The one mean ± sample std of every table: values worked by hand.
    void meanStdIsTheSampleStandardDeviation() {
        const std::vector<double> v{2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0};  // mean 5, sum of squares 32
        const auto m = dpmix::meanStd(v);
        QCOMPARE(m.count, 8LL);
        QCOMPARE(m.mean, 5.0);
        QCOMPARE(m.std, std::sqrt(32.0 / 7.0));
        const std::vector<double> one{0.3};
        QCOMPARE(dpmix::meanStd(one).std, 0.0);  // no spread from one value
        QCOMPARE(dpmix::meanStd(one).mean, 0.3);
        const auto none = dpmix::meanStd(std::vector<double>{});
        QCOMPARE(none.count, 0LL);
        QCOMPARE(none.mean, 0.0);
    }

    // Lists in messages and stored options: written out by hand, for each container and form.
    void listsJoinOneWay() {
        const std::vector<std::string> names{"idx", "csv-images", "jsonl"};
        QCOMPARE(dpmix::core::joinedList(names), std::string("idx, csv-images, jsonl"));
        QCOMPARE(dpmix::core::joinedList(names, ","), std::string("idx,csv-images,jsonl"));
        QCOMPARE(dpmix::core::quotedList(names), std::string("\"idx\", \"csv-images\", \"jsonl\""));
        const std::set<std::string> sorted{"b", "a"};
        QCOMPARE(dpmix::core::quotedList(sorted), std::string("\"a\", \"b\""));
        const std::vector<const char*> literals{"x"};
        QCOMPARE(dpmix::core::joinedList(literals, " | ", dpmix::core::Quoted::Yes), std::string("\"x\""));
        QCOMPARE(dpmix::core::quotedList(std::vector<std::string>{}), std::string());
        QCOMPARE(dpmix::core::joinedList(std::vector<std::string>{""}), std::string());  // one empty name
    }
};

QTEST_APPLESS_MAIN(TestCoreSupport)
#include "tst_core_support.moc"
