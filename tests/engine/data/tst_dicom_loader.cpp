// The "dicom" loader on DICOM studies written by GDCM at run time (dicom_fixtures.h): display
// values computed by hand from the stored values (modality rescale, the linear VOI window of
// PS3.3 C.11.2.1.2.1, MONOCHROME1), 8/12/16 bits, signed, compressed (JPEG lossless, JPEG-LS,
// RLE), multi-frame and colour files, the patient as the user (a keyed pseudonym), labels from a
// CSV or a header tag, and the bad files: each refused with its path and the reason, and no error
// ever quoting a patient id, name, date or UID.
#include "data_fixtures.h"
#include "dicom_fixtures.h"
#include "engine/data/dicom_pseudonym.h"
#include "engine/data/dicom_source.h"
#include "engine/data/isolated_call.h"
#include "engine/data/source_loader.h"

#include "tests/support/unit_test.h"

#include <filesystem>
#include <set>

using namespace dpmix::data;
namespace fx = dpmix::data::fixtures;
using dpmix::test_support::contains;

namespace {

std::string messageOf(const dpmix::Result<ImageDataset>& d) { return d.ok() ? "" : d.error().message; }

// 4×4 images: stored values k·step + base (k = 0..15) unless given.
fx::DicomFixture ramp(int base, int step) {
    fx::DicomFixture f;
    for (int k = 0; k < 16; ++k) f.stored.push_back(base + k * step);
    return f;
}

// No identifier a fixture writes may appear in a message.
bool quotesAnIdentifier(const std::string& message) {
    for (const char* id : {"PAT-", "Doe", "Jane", "1.2.826", "2.25.", "ACC0", "19700101", "20240102"})
        if (contains(message, id)) return true;
    return false;
}

}  // namespace

class TestDicomLoader : public QObject {
    Q_OBJECT
    dpmix::test_support::TempDir dir_;
    std::string path(const std::string& name) { return dir_.filePath(name); }

    // A folder's images at their own size 4×4, labelled by Modality ("OT").
    dpmix::Result<ImageDataset> load(const std::string& folder, std::map<std::string, std::string> options = {}) {
        options.emplace("size", "4");
        options.emplace("label_tag", "Modality");
        options.emplace("pseudonym_key", path("key.txt"));
        return loadImageSource({"scans", "dicom", path(folder), std::move(options)});
    }

    void write(const std::string& file, const fx::DicomFixture& f) { fx::writeDicom(path(file), f); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        fx::writeFile(path("key.txt"), "0123456789abcdef0123456789abcdef\n");
        std::filesystem::permissions(path("key.txt"),
                                     std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    }

    void hmacMatchesRfc4231() {
        // RFC 4231, test cases 1 and 2.
        QCOMPARE(hmacSha256Hex(std::string(20, '\x0b'), "Hi There"),
                 std::string("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"));
        QCOMPARE(hmacSha256Hex("Jefe", "what do ya want for nothing?"),
                 std::string("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
    }

    void aChildThatDiesOrHangsCostsOnlyItsItem() {
        // Item 1 aborts (as GDCM's assertions do), item 3 hangs past the 1 s limit; the others answer.
        std::vector<std::string> answers;
        auto started = runIsolatedEach(
            5,
            [](std::size_t i) -> dpmix::Result<std::string> {
                if (i == 1) std::abort();
                if (i == 3) ::sleep(5);
                if (i == 4) return dpmix::Error{"four is refused"};
                return "item " + std::to_string(i);
            },
            1,
            [&](std::size_t i, dpmix::Result<std::string> r) {
                answers.push_back(std::to_string(i) + ": " + (r ? *r : r.error().message));
                return true;
            });
        QVERIFY(!started);
        QCOMPARE(answers, (std::vector<std::string>{"0: item 0",
                                                    "1: the DICOM library aborted (SIGABRT: an assertion of the "
                                                    "library) reading it",
                                                    "2: item 2", "3: the reader ran past 1 s and was stopped",
                                                    "4: four is refused"}));
    }

    void rescaleThenTheFilesWindow() {
        // x = 2·s − 1024, window C = 0, W = 200: 0 for x ≤ −100, 1 for x > 99, else (x + 0.5)/199 + 0.5.
        fx::DicomFixture f = ramp(0, 0);
        f.stored = {400, 462, 463, 512, 561, 562, 600, 500, 0, 0, 0, 0, 0, 0, 0, 0};
        f.slope = 2;
        f.intercept = -1024;
        f.windowCentre = 0;
        f.windowWidth = 200;
        write("rescale/a.dcm", f);
        auto d = load("rescale");
        QVERIFY2(d.ok(), messageOf(d).c_str());
        QCOMPARE(d->size(), std::size_t(1));
        const std::vector<double> expected = {0, 0, 0.0100503, 0.5025126, 0.9949749, 1, 1, 0.3819095};
        for (std::size_t k = 0; k < expected.size(); ++k) DPMIX_COMPARE_NEAR(d->pixels[k], expected[k], 1e-5);
        // A chosen window replaces the file's: C = 1000, W = 2001 around x = 2·s − 1024.
        auto chosen = load("rescale", {{"window", "1000,2001"}});
        QVERIFY2(chosen.ok(), messageOf(chosen).c_str());
        DPMIX_COMPARE_NEAR(chosen->pixels[3], (0 - 999.5) / 2000.0 + 0.5, 1e-6);  // x = 0: 0.00025
        auto minmax = load("rescale", {{"window", "minmax"}});  // x from −1024 (s = 0) to 176 (s = 600)
        QVERIFY2(minmax.ok(), messageOf(minmax).c_str());
        DPMIX_COMPARE_NEAR(minmax->pixels[3], 1024.0 / 1200.0, 1e-6);
    }

    void monochrome1EightBitIsInverted() {
        fx::DicomFixture f = ramp(0, 17);  // 0, 17, ..., 255; no window: the image's range
        f.bitsAllocated = f.bitsStored = 8;
        f.photometric = "MONOCHROME1";
        write("mono1/a.dcm", f);
        auto d = load("mono1");
        QVERIFY2(d.ok(), messageOf(d).c_str());
        DPMIX_COMPARE_NEAR(d->pixels[0], 1.0, 1e-6);
        DPMIX_COMPARE_NEAR(d->pixels[3], 0.8, 1e-6);  // 51 of 255, inverted
        DPMIX_COMPARE_NEAR(d->pixels[15], 0.0, 1e-6);
    }

    void twelveBitsIgnoreTheUnusedHighBits() {
        fx::DicomFixture f = ramp(0, 273);  // 0, 273, ..., 4095 with junk in bits 12-15
        for (auto& v : f.stored) v |= 0xa000;
        f.bitsStored = 12;
        write("bits12/a.dcm", f);
        auto d = load("bits12");
        QVERIFY2(d.ok(), messageOf(d).c_str());
        DPMIX_COMPARE_NEAR(d->pixels[1], 273.0 / 4095.0, 1e-6);
        DPMIX_COMPARE_NEAR(d->pixels[15], 1.0, 1e-6);
    }

    void signedTwelveBitsAreSignExtended() {
        // Stored as the low 12 bits only: −2048 = 0x800, −1 = 0xfff, 2047 = 0x7ff.
        fx::DicomFixture f = ramp(0, 0);
        f.stored = {0x800, 0xfff, 0, 0x7ff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        f.bitsStored = 12;
        f.isSigned = true;
        write("signed/a.dcm", f);
        auto d = load("signed", {{"window", "0,4096"}});  // 0 for x ≤ −2048; (x + 0.5)/4095 + 0.5 up to 2047
        QVERIFY2(d.ok(), messageOf(d).c_str());
        DPMIX_COMPARE_NEAR(d->pixels[0], 0.0, 1e-6);
        DPMIX_COMPARE_NEAR(d->pixels[1], (-1 + 0.5) / 4095.0 + 0.5, 1e-6);
        DPMIX_COMPARE_NEAR(d->pixels[2], 0.5 / 4095.0 + 0.5, 1e-6);
        DPMIX_COMPARE_NEAR(d->pixels[3], 1.0, 1e-6);
    }

    void compressedFilesDecodeLikeTheRawOne() {
        fx::DicomFixture f = ramp(100, 250);  // 100 .. 3850, 12 bits
        f.bitsStored = 12;
        write("raw/a.dcm", f);
        auto raw = load("raw");
        QVERIFY2(raw.ok(), messageOf(raw).c_str());
        for (auto [name, compression] :
             {std::pair{"jpeg-lossless", fx::DicomCompression::JpegLossless},
              std::pair{"jpeg-ls", fx::DicomCompression::JpegLs}, std::pair{"rle", fx::DicomCompression::Rle}}) {
            f.compression = compression;
            write(std::string(name) + "/a.dcm", f);
            auto d = load(name);
            QVERIFY2(d.ok(), (std::string(name) + ": " + messageOf(d)).c_str());
            QCOMPARE(d->pixels, raw->pixels);
        }
        DPMIX_COMPARE_NEAR(raw->pixels[1], 250.0 / 3750.0, 1e-6);
    }

    void aSyntaxNoCodecReadsIsNamed() {
        fx::DicomFixture f = ramp(0, 1);
        f.transferSyntaxUid = "1.2.840.10008.1.2.4.100";  // MPEG2 Main Profile
        write("mpeg/a.dcm", f);
        auto d = load("mpeg");
        QVERIFY(!d.ok());
        QVERIFY2(contains(messageOf(d), path("mpeg/a.dcm")), messageOf(d).c_str());
        QVERIFY2(contains(messageOf(d), "1.2.840.10008.1.2.4.100"), messageOf(d).c_str());
    }

    void multiFrameRefusedOrSplit() {
        fx::DicomFixture f;
        f.frames = 3;
        f.bitsAllocated = f.bitsStored = 8;
        for (int frame = 0; frame < 3; ++frame)
            for (int k = 0; k < 16; ++k) f.stored.push_back(k == 0 ? 0 : 10 * (frame + 1));
        write("frames/a.dcm", f);
        auto refused = load("frames");
        QVERIFY(!refused.ok());
        QVERIFY2(contains(messageOf(refused), path("frames/a.dcm")) && contains(messageOf(refused), "multi-frame") &&
                     contains(messageOf(refused), "frames = split"),
                 messageOf(refused).c_str());
        auto split = load("frames", {{"frames", "split"}});
        QVERIFY2(split.ok(), messageOf(split).c_str());
        QCOMPARE(split->size(), std::size_t(3));
        QCOMPARE(split->users.size(), std::size_t(3));
        QCOMPARE(split->users[0], split->users[2]);  // one file, one patient
    }

    void colourRefusedOrItsLuma() {
        fx::DicomFixture f;
        f.photometric = "RGB";
        f.bitsAllocated = f.bitsStored = 8;
        const std::vector<std::vector<int>> pixels = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}};
        for (int k = 0; k < 16; ++k)
            for (int c = 0; c < 3; ++c) f.stored.push_back(pixels[k % 4][c]);
        write("colour/a.dcm", f);
        auto refused = load("colour");
        QVERIFY(!refused.ok());
        QVERIFY2(contains(messageOf(refused), "colour = luminance"), messageOf(refused).c_str());
        auto luma = load("colour", {{"colour", "luminance"}});
        QVERIFY2(luma.ok(), messageOf(luma).c_str());
        DPMIX_COMPARE_NEAR(luma->pixels[0], 0.299, 1e-6);
        DPMIX_COMPARE_NEAR(luma->pixels[1], 0.587, 1e-6);
        DPMIX_COMPARE_NEAR(luma->pixels[2], 0.114, 1e-6);
        DPMIX_COMPARE_NEAR(luma->pixels[3], 1.0, 1e-6);
    }

    void thePatientIsTheUserAsAKeyedPseudonym() {
        // Three patients with 2, 1 and 2 images, in two studies for patient 0.
        for (int p = 0; p < 3; ++p)
            for (int i = 0; i < (p == 1 ? 1 : 2); ++i) {
                fx::DicomFixture f = ramp(p * 100, 1 + i);
                f.patientId = "PAT-" + std::to_string(p);
                f.studyUid = "1.2.826.9." + std::to_string(p) + "." + std::to_string(p == 0 ? i : 0);
                f.sopUid = "1.2.826.9.9." + std::to_string(p) + "." + std::to_string(i);
                write("patients/p" + std::to_string(p) + "/" + std::to_string(i) + ".dcm", f);
            }
        fx::writeFile(path("patients/README.txt"), "not DICOM: skipped");
        auto d = load("patients");
        QVERIFY2(d.ok(), messageOf(d).c_str());
        QCOMPARE(d->size(), std::size_t(5));
        const std::string key = "0123456789abcdef0123456789abcdef";
        const std::vector<std::string> expected = {dicomPseudonym(key, "PAT-0"), dicomPseudonym(key, "PAT-0"),
                                                   dicomPseudonym(key, "PAT-1"), dicomPseudonym(key, "PAT-2"),
                                                   dicomPseudonym(key, "PAT-2")};
        QCOMPARE(d->users, expected);
        QCOMPARE(expected[0], "p" + hmacSha256Hex(key, "PAT-0").substr(0, 32));
        for (const auto& user : d->users) QVERIFY(!contains(user, "PAT"));
        auto survey = surveyDicomSource({"scans", "dicom", path("patients"), {}}, 3);
        QVERIFY2(survey.ok(), survey.ok() ? "" : survey.error().message.c_str());
        QCOMPARE(survey->patients, 3LL);
        QCOMPARE(survey->studies, 4LL);
        QCOMPARE(survey->images, 5LL);
        QCOMPARE(survey->skippedFiles, 1LL);
        QCOMPARE(survey->preview.size(), std::size_t(3));
        QVERIFY(std::find(survey->tags.begin(), survey->tags.end(), "PatientID (0010,0020)") != survey->tags.end());
    }

    void theDefaultKeyIsMadeOnceAndPrivate() {
        const std::string keys = path("owner-keys");
        const char* before = std::getenv("DPMIX_KEY_DIR");
        const std::string saved = before ? before : "";
        setenv("DPMIX_KEY_DIR", keys.c_str(), 1);
        const SourceSpec spec{"scans", "dicom", path("patients"), {{"label_tag", "Modality"}, {"size", "4"}}};
        auto first = loadImageSource(spec);
        auto second = loadImageSource(spec);
        before ? setenv("DPMIX_KEY_DIR", saved.c_str(), 1) : unsetenv("DPMIX_KEY_DIR");
        QVERIFY2(first.ok() && second.ok(), messageOf(first).c_str());
        QCOMPARE(first->users, second->users);
        const auto perms = std::filesystem::status(keys + "/dicom-pseudonym.key").permissions();
        QCOMPARE(perms & std::filesystem::perms::all,
                 std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
        auto other = load("patients");  // another key, other pseudonyms
        QVERIFY(other.ok());
        QVERIFY(other->users[0] != first->users[0]);
        std::filesystem::permissions(keys + "/dicom-pseudonym.key", std::filesystem::perms::others_read,
                                     std::filesystem::perm_options::add);
        auto exposed = load("patients", {{"pseudonym_key", keys + "/dicom-pseudonym.key"}});
        QVERIFY(!exposed.ok());
        QVERIFY2(contains(messageOf(exposed), "chmod 600"), messageOf(exposed).c_str());
    }

    void aFileWithoutPatientIdIsRefusedOrOneUnit() {
        fx::DicomFixture f = ramp(0, 1);
        write("missing/a.dcm", f);
        f.withPatientId = false;
        f.sopUid = "1.2.826.0.1.3680043.2.1125.1.1.2";
        write("missing/b.dcm", f);
        write("missing/c.dcm", f);
        auto refused = load("missing");
        QVERIFY(!refused.ok());
        const std::string m = messageOf(refused);
        QVERIFY2(contains(m, "2 DICOM file(s) have no PatientID") && contains(m, path("missing/b.dcm")) &&
                     contains(m, path("missing/c.dcm")) && !contains(m, path("missing/a.dcm")),
                 m.c_str());
        QVERIFY2(!quotesAnIdentifier(m), m.c_str());
        auto grouped = load("missing", {{"missing_user", "one-unit"}});
        QVERIFY2(grouped.ok(), messageOf(grouped).c_str());
        QCOMPARE(std::set<std::string>(grouped->users.begin(), grouped->users.end()).size(), std::size_t(2));
        QCOMPARE(grouped->users[1], grouped->users[2]);
        auto otherTag = load("missing", {{"user_tag", "AccessionNumber"}});
        QVERIFY2(otherTag.ok(), messageOf(otherTag).c_str());
    }

    void badFilesNameThePathAndTheReason() {
        fx::DicomFixture f = ramp(0, 1);
        write("corrupt/a.dcm", f);
        std::string bytes;
        {
            std::ifstream in(path("corrupt/a.dcm"), std::ios::binary);
            bytes.assign(std::istreambuf_iterator<char>(in), {});
        }
        fx::writeFile(path("corrupt/b.dcm"), bytes.substr(0, bytes.size() / 2));    // truncated in the header
        fx::writeFile(path("corrupt2/c.dcm"), bytes.substr(0, bytes.size() - 20));  // truncated pixel data
        for (const auto* folder : {"corrupt", "corrupt2"}) {
            auto d = load(folder);
            QVERIFY2(!d.ok(), folder);
            const std::string m = messageOf(d);
            QVERIFY2(contains(m, folder == std::string("corrupt") ? path("corrupt/b.dcm") : path("corrupt2/c.dcm")),
                     m.c_str());
            QVERIFY2(contains(m, "DICOM file '"), m.c_str());
            QVERIFY2(!quotesAnIdentifier(m), m.c_str());
        }
        std::string damagedMeta = bytes;
        damagedMeta[132 + 4] = 'x';  // the first file meta element's VR: GDCM would assert on it
        fx::writeFile(path("corrupt3/d.dcm"), damagedMeta);
        auto meta = load("corrupt3");
        QVERIFY2(contains(messageOf(meta), path("corrupt3/d.dcm")) &&
                     contains(messageOf(meta), "its file meta information is damaged"),
                 messageOf(meta).c_str());
        auto skipped = load("corrupt", {{"bad_files", "skip"}});
        QVERIFY2(skipped.ok(), messageOf(skipped).c_str());
        QCOMPARE(skipped->size(), std::size_t(1));
        auto survey = surveyDicomSource({"scans", "dicom", path("corrupt"), {}}, 4);
        QVERIFY(survey.ok());
        QCOMPARE(survey->errors.size(), std::size_t(1));
        QCOMPARE(survey->errors[0].path, path("corrupt/b.dcm"));
    }

    void labelsFromACsvKeyedByUid() {
        for (int i = 0; i < 3; ++i) {
            fx::DicomFixture f = ramp(i, 1);
            f.patientId = "PAT-" + std::to_string(i);
            f.sopUid = "1.2.826.7." + std::to_string(i);
            f.studyUid = "1.2.826.8." + std::to_string(i);
            f.accession = "ACC0" + std::to_string(i);
            write("labelled/" + std::to_string(i) + ".dcm", f);
        }
        fx::writeFile(path("labels.csv"),
                      "SOPInstanceUID,Effusion,Mass,Age\n1.2.826.7.0,1,0,40\n1.2.826.7.1,0,-1,50\n"
                      "1.2.826.7.2,,1,60\n");
        const std::map<std::string, std::string> csv = {{"labels_csv", "labels.csv"},
                                                        {"labels", "Effusion,Mass"},
                                                        {"uncertain", "mask"},
                                                        {"pseudonym_key", path("key.txt")},
                                                        {"size", "4"}};
        auto d = loadImageSource({"scans", "dicom", path("labelled"), csv});
        QVERIFY2(d.ok(), messageOf(d).c_str());
        QCOMPARE(d->labelNames, (std::vector<std::string>{"Effusion", "Mass"}));
        QCOMPARE(d->labels, (std::vector<float>{1, 0, 0, 0, 0, 1}));
        QCOMPARE(d->labelMask, (std::vector<unsigned char>{1, 1, 1, 0, 1, 1}));
        // Keyed by the accession number, in a column of another name.
        fx::writeFile(path("by-accession.csv"), "Acc,Effusion\nACC02,1\nACC01,0\nACC00,1\n");
        auto byAccession = loadImageSource({"scans",
                                            "dicom",
                                            path("labelled"),
                                            {{"labels_csv", "by-accession.csv"},
                                             {"label_key", "AccessionNumber"},
                                             {"key_column", "Acc"},
                                             {"pseudonym_key", path("key.txt")},
                                             {"size", "4"}}});
        QVERIFY2(byAccession.ok(), messageOf(byAccession).c_str());
        QCOMPARE(byAccession->labels, (std::vector<float>{1, 0, 1}));
        // A file without a row: its path, not its UID; or left out on request.
        fx::writeFile(path("short.csv"), "SOPInstanceUID,Effusion\n1.2.826.7.0,1\n1.2.826.7.2,0\n");
        auto missing = loadImageSource(
            {"scans", "dicom", path("labelled"), {{"labels_csv", "short.csv"}, {"pseudonym_key", path("key.txt")}}});
        QVERIFY(!missing.ok());
        QVERIFY2(contains(messageOf(missing), path("labelled/1.dcm")) &&
                     contains(messageOf(missing), "SOPInstanceUID has no row") &&
                     !quotesAnIdentifier(messageOf(missing)),
                 messageOf(missing).c_str());
        auto skip = loadImageSource(
            {"scans",
             "dicom",
             path("labelled"),
             {{"labels_csv", "short.csv"}, {"unlabelled", "skip"}, {"pseudonym_key", path("key.txt")}, {"size", "4"}}});
        QVERIFY2(skip.ok(), messageOf(skip).c_str());
        QCOMPARE(skip->size(), std::size_t(2));
        QCOMPARE(skip->labels, (std::vector<float>{1, 0}));
        QCOMPARE(skip->users, (std::vector<std::string>{d->users[0], d->users[2]}));
        fx::writeFile(path("twice.csv"), "SOPInstanceUID,Effusion\n1.2.826.7.0,1\n1.2.826.7.0,0\n");
        auto twice = loadImageSource(
            {"scans", "dicom", path("labelled"), {{"labels_csv", "twice.csv"}, {"pseudonym_key", path("key.txt")}}});
        QVERIFY(!twice.ok());
        QVERIFY2(contains(messageOf(twice), "lines 2 and 3") && !quotesAnIdentifier(messageOf(twice)),
                 messageOf(twice).c_str());
    }

    void aHeaderTagAsTheLabel() {
        for (int i = 0; i < 3; ++i) {
            fx::DicomFixture f = ramp(i, 1);
            f.bodyPart = i == 1 ? "HAND" : "CHEST";
            f.sopUid = "1.2.826.6." + std::to_string(i);
            write("parts/" + std::to_string(i) + ".dcm", f);
        }
        auto d = load("parts", {{"label_tag", "BodyPartExamined"}, {"classes", "HAND,CHEST,KNEE"}});
        QVERIFY2(d.ok(), messageOf(d).c_str());
        QCOMPARE(d->labelNames, (std::vector<std::string>{"HAND", "CHEST", "KNEE"}));
        QCOMPARE(d->labels, (std::vector<float>{0, 1, 0, 1, 0, 0, 0, 1, 0}));
        auto outside = load("parts", {{"label_tag", "BodyPartExamined"}, {"classes", "CHEST"}});
        QVERIFY(!outside.ok());
        QVERIFY2(contains(messageOf(outside), path("parts/1.dcm")), messageOf(outside).c_str());
    }

    void oneImagePerSeriesIsTheMiddleInstance() {
        for (int i = 1; i <= 3; ++i) {
            fx::DicomFixture f = ramp(i * 1000, 1);  // instance i: values from i·1000 (minmax: same image)
            f.stored[0] = 0;
            f.stored[1] = i * 10;  // tells the instances apart: pixel 1 = i·10 / max
            f.instanceNumber = i;
            f.sopUid = "1.2.826.5." + std::to_string(i);
            write("series/" + std::to_string(4 - i) + ".dcm", f);
        }
        auto d = load("series", {{"per", "series"}});
        QVERIFY2(d.ok(), messageOf(d).c_str());
        QCOMPARE(d->size(), std::size_t(1));
        DPMIX_COMPARE_NEAR(d->pixels[1], 20.0 / (2000 + 15), 1e-6);
    }

    void aDicomDirListsItsFiles() {
        fx::DicomFixture f = ramp(0, 1);
        write("dicomdir/IMAGES/IM1", f);
        f.sopUid = "1.2.826.4.2";
        write("dicomdir/IMAGES/IM2", f);
        write("dicomdir/IMAGES/IM3", f);  // on disk, not in the DICOMDIR
        fx::writeDicomDir(path("dicomdir/DICOMDIR"), {"IMAGES/IM1", "IMAGES/IM2"});
        auto d = load("dicomdir/DICOMDIR");
        QVERIFY2(d.ok(), messageOf(d).c_str());
        QCOMPARE(d->size(), std::size_t(2));
    }

    void badOptionsAreNamed() {
        fx::DicomFixture f = ramp(0, 1);
        write("options/a.dcm", f);
        for (auto [key, value, expected] : {std::tuple{"window", "wide", "option 'window' = 'wide'"},
                                            {"frames", "all", "option 'frames' = 'all'"},
                                            {"user_tag", "PatientIdentifier", "'PatientIdentifier' is not a DICOM tag"},
                                            {"colur", "luminance", "unknown option 'colur'"}}) {
            auto d = load("options", {{key, value}});
            QVERIFY(!d.ok());
            QVERIFY2(contains(messageOf(d), expected), messageOf(d).c_str());
        }
        auto noLabels = loadImageSource({"scans", "dicom", path("options"), {}});
        QVERIFY2(contains(messageOf(noLabels), "set option labels_csv"), messageOf(noLabels).c_str());
        auto notThere = load("nowhere");
        QVERIFY2(contains(messageOf(notThere), "is missing"), messageOf(notThere).c_str());
    }
};

QTEST_APPLESS_MAIN(TestDicomLoader)
#include "tst_dicom_loader.moc"
