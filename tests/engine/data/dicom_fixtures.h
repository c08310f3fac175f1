#pragma once
// Small DICOM files written with GDCM at test run time (never committed): the tests of the dicom
// loader, the CLI's DICOM study and the fuzz corpus build their studies from these. Nothing here
// calls the code under test. Pixel values are given as stored integers, so a test computes the
// display values it expects by hand from them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dpmix::data::fixtures {

enum class DicomCompression { None, JpegLossless, JpegLs, Rle };

struct DicomFixture {
    std::string patientId = "PAT-0001", patientName = "Doe^Jane", birthDate = "19700101", studyDate = "20240102";
    bool withPatientId = true;
    std::string studyUid = "1.2.826.0.1.3680043.2.1125.1", seriesUid = "1.2.826.0.1.3680043.2.1125.1.1";
    std::string sopUid = "1.2.826.0.1.3680043.2.1125.1.1.1", accession = "ACC0001";
    std::string bodyPart;  // BodyPartExamined, when set
    int instanceNumber = 1;
    int rows = 4, columns = 4, frames = 1;
    int bitsAllocated = 16, bitsStored = 16;
    bool isSigned = false;
    std::string photometric = "MONOCHROME2";  // MONOCHROME1, MONOCHROME2 or RGB (3 samples, interleaved)
    std::vector<std::int32_t> stored;         // rows·columns·frames·samples values as stored (raw bits)
    std::optional<double> slope, intercept, windowCentre, windowWidth;
    DicomCompression compression = DicomCompression::None;
    std::string transferSyntaxUid;  // overrides the syntax written in the header (a syntax no codec reads)
};

/// Writes `f` as a Part 10 file at `path` (parent folders made); throws std::runtime_error when
/// GDCM cannot write or compress it.
void writeDicom(const std::string& path, const DicomFixture& f);

/// A DICOMDIR at `path` whose image records reference `files` (relative, '/'-separated).
void writeDicomDir(const std::string& path, const std::vector<std::string>& files);

/// A study of `patients` × `imagesPerPatient` 16×16 12-bit MONOCHROME2 images under `folder`
/// (<folder>/case<p>/<n>.dcm: no identifier in a path) with a label CSV at `labelsCsv` keyed by
/// SOPInstanceUID, columns SOPInstanceUID,Finding (1 for odd patients, whose images are
/// brighter). Identifiers are made from `tag` ("PID<tag>-<p>", "Name<tag>^P<p>", UIDs
/// 2.25.<tag>..., accession "A<tag>X<p>"). Returns every identifier written (patient ids first,
/// then names, birth dates, study dates, UIDs and accession numbers), for a test to grep for.
std::vector<std::string> writeDicomStudy(const std::string& folder, const std::string& labelsCsv, int patients,
                                         int imagesPerPatient, int tag = 47);

/// A public set of `images` 16×16 8-bit images under `folder`, BodyPartExamined CHEST (even i:
/// a bright disc) or HAND (odd i: a dark one), one anonymous patient each ("ANON<i>").
void writePublicDicomSet(const std::string& folder, int images);

/// Image `image` of patient `patient` as a 64×64 12-bit chest-like picture: a bright body, two dark
/// lung fields (their size varies with the image, their grey with the patient) and, when
/// `nodule`, a bright disc in the right lung; the file's window (C 2048, W 4096) shows it. The
/// identifiers are the struct's defaults: the caller sets them.
DicomFixture chestLikeImage(int patient, int image, bool nodule);

/// A study of `patients` × `imagesPerPatient` chest-like images (chestLikeImage) under `folder`
/// (<folder>/case<p>/<n>.dcm), with a label CSV at `labelsCsv` keyed by SOPInstanceUID, columns
/// SOPInstanceUID,Nodule (1 for odd patients). Identifiers as writeDicomStudy makes them from
/// `tag`; returns every identifier written, for a test to grep for.
std::vector<std::string> writeChestStudy(const std::string& folder, const std::string& labelsCsv, int patients,
                                         int imagesPerPatient, int tag = 48);

}  // namespace dpmix::data::fixtures
