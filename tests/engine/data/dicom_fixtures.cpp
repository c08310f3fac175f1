// DICOM fixtures written with GDCM: a data set built element by element (so the header says
// exactly what a test wants, rescale and window included), written uncompressed, then compressed
// by GDCM's own codecs when asked.
#include "dicom_fixtures.h"

#include <gdcmDataElement.h>
#include <gdcmImageChangeTransferSyntax.h>
#include <gdcmImageReader.h>
#include <gdcmImageWriter.h>
#include <gdcmSequenceOfFragments.h>
#include <gdcmTrace.h>
#include <gdcmWriter.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace dpmix::data::fixtures {
namespace {

void put(gdcm::DataSet& ds, std::uint16_t group, std::uint16_t element, gdcm::VR vr, std::string value) {
    if (value.size() % 2) value += vr == gdcm::VR::UI ? '\0' : ' ';
    gdcm::DataElement de(gdcm::Tag(group, element));
    de.SetVR(vr);
    de.SetByteValue(value.data(), static_cast<std::uint32_t>(value.size()));
    ds.Insert(de);
}

void putUs(gdcm::DataSet& ds, std::uint16_t group, std::uint16_t element, int value) {
    const auto v = static_cast<std::uint16_t>(value);
    gdcm::DataElement de(gdcm::Tag(group, element));
    de.SetVR(gdcm::VR::US);
    de.SetByteValue(reinterpret_cast<const char*>(&v), 2);
    ds.Insert(de);
}

std::string number(double value) {
    std::ostringstream text;
    text << value;
    return text.str();
}

int samplesOf(const DicomFixture& f) { return f.photometric == "RGB" ? 3 : 1; }

std::string pixelBytes(const DicomFixture& f) {
    const std::size_t count = std::size_t(f.rows) * f.columns * f.frames * samplesOf(f);
    if (f.stored.size() != count) throw std::runtime_error("fixture: stored values do not fill the image");
    std::string bytes;
    for (const auto v : f.stored) {
        if (f.bitsAllocated == 8) {
            bytes += static_cast<char>(v & 0xff);
        } else {
            const auto u = static_cast<std::uint16_t>(v & 0xffff);
            bytes += static_cast<char>(u & 0xff);
            bytes += static_cast<char>(u >> 8);
        }
    }
    if (bytes.size() % 2) bytes += '\0';
    return bytes;
}

void putIdentity(gdcm::DataSet& ds, const DicomFixture& f) {
    put(ds, 0x0008, 0x0016, gdcm::VR::UI,
        f.frames > 1 ? "1.2.840.10008.5.1.4.1.1.7.3" : "1.2.840.10008.5.1.4.1.1.7");  // (multi-frame) secondary capture
    put(ds, 0x0008, 0x0018, gdcm::VR::UI, f.sopUid);
    put(ds, 0x0008, 0x0020, gdcm::VR::DA, f.studyDate);
    put(ds, 0x0008, 0x0050, gdcm::VR::SH, f.accession);
    put(ds, 0x0008, 0x0060, gdcm::VR::CS, "OT");
    put(ds, 0x0010, 0x0010, gdcm::VR::PN, f.patientName);
    if (f.withPatientId) put(ds, 0x0010, 0x0020, gdcm::VR::LO, f.patientId);
    put(ds, 0x0010, 0x0030, gdcm::VR::DA, f.birthDate);
    if (!f.bodyPart.empty()) put(ds, 0x0018, 0x0015, gdcm::VR::CS, f.bodyPart);
    put(ds, 0x0020, 0x000d, gdcm::VR::UI, f.studyUid);
    put(ds, 0x0020, 0x000e, gdcm::VR::UI, f.seriesUid);
    put(ds, 0x0020, 0x0013, gdcm::VR::IS, std::to_string(f.instanceNumber));
}

void putImagePixel(gdcm::DataSet& ds, const DicomFixture& f) {
    putUs(ds, 0x0028, 0x0002, samplesOf(f));
    put(ds, 0x0028, 0x0004, gdcm::VR::CS, f.photometric);
    if (samplesOf(f) == 3) putUs(ds, 0x0028, 0x0006, 0);
    if (f.frames > 1) put(ds, 0x0028, 0x0008, gdcm::VR::IS, std::to_string(f.frames));
    putUs(ds, 0x0028, 0x0010, f.rows);
    putUs(ds, 0x0028, 0x0011, f.columns);
    putUs(ds, 0x0028, 0x0100, f.bitsAllocated);
    putUs(ds, 0x0028, 0x0101, f.bitsStored);
    putUs(ds, 0x0028, 0x0102, f.bitsStored - 1);
    putUs(ds, 0x0028, 0x0103, f.isSigned ? 1 : 0);
    if (f.windowCentre) put(ds, 0x0028, 0x1050, gdcm::VR::DS, number(*f.windowCentre));
    if (f.windowWidth) put(ds, 0x0028, 0x1051, gdcm::VR::DS, number(*f.windowWidth));
    if (f.intercept) put(ds, 0x0028, 0x1052, gdcm::VR::DS, number(*f.intercept));
    if (f.slope) put(ds, 0x0028, 0x1053, gdcm::VR::DS, number(*f.slope));
}

void putPixelData(gdcm::DataSet& ds, const DicomFixture& f) {
    const std::string bytes = pixelBytes(f);
    gdcm::DataElement pixels(gdcm::Tag(0x7fe0, 0x0010));
    if (f.transferSyntaxUid.empty()) {
        pixels.SetVR(f.bitsAllocated == 8 ? gdcm::VR::OB : gdcm::VR::OW);
        pixels.SetByteValue(bytes.data(), static_cast<std::uint32_t>(bytes.size()));
    } else {  // encapsulated: an empty offset table and one fragment of bytes no codec will read
        gdcm::SmartPointer<gdcm::SequenceOfFragments> fragments = new gdcm::SequenceOfFragments;
        gdcm::Fragment fragment;
        fragment.SetByteValue(bytes.data(), static_cast<std::uint32_t>(bytes.size()));
        fragments->AddFragment(fragment);
        pixels.SetVR(gdcm::VR::OB);
        pixels.SetValue(*fragments);
    }
    ds.Insert(pixels);
}

void compress(const std::string& path, DicomCompression compression) {
    gdcm::ImageReader reader;
    reader.SetFileName(path.c_str());
    if (!reader.Read()) throw std::runtime_error("fixture: GDCM cannot read back " + path);
    gdcm::ImageChangeTransferSyntax change;
    change.SetTransferSyntax(compression == DicomCompression::JpegLossless
                                 ? gdcm::TransferSyntax::JPEGLosslessProcess14_1
                             : compression == DicomCompression::JpegLs ? gdcm::TransferSyntax::JPEGLSLossless
                                                                       : gdcm::TransferSyntax::RLELossless);
    change.SetInput(reader.GetImage());
    if (!change.Change()) throw std::runtime_error("fixture: GDCM cannot compress " + path);
    gdcm::ImageWriter writer;
    writer.SetFileName(path.c_str());
    writer.SetFile(reader.GetFile());
    writer.SetImage(change.GetOutput());
    if (!writer.Write()) throw std::runtime_error("fixture: GDCM cannot write compressed " + path);
}

}  // namespace

void writeDicom(const std::string& path, const DicomFixture& f) {
    gdcm::Trace::SetWarning(false);
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    gdcm::Writer writer;
    gdcm::DataSet& ds = writer.GetFile().GetDataSet();
    putIdentity(ds, f);
    putImagePixel(ds, f);
    putPixelData(ds, f);
    const auto syntax = f.transferSyntaxUid.empty()
                            ? gdcm::TransferSyntax(gdcm::TransferSyntax::ExplicitVRLittleEndian)
                            : gdcm::TransferSyntax(gdcm::TransferSyntax::GetTSType(f.transferSyntaxUid.c_str()));
    writer.GetFile().GetHeader().SetDataSetTransferSyntax(syntax);
    writer.SetFileName(path.c_str());
    if (!writer.Write()) throw std::runtime_error("fixture: GDCM cannot write " + path);
    if (f.compression != DicomCompression::None) compress(path, f.compression);
}

// Explicit VR little endian by hand (PS3.10 / PS3.5 7.5): the meta group, then the directory
// records as items of undefined length in a sequence of undefined length.
std::string le16(int v) { return std::string{static_cast<char>(v & 0xff), static_cast<char>((v >> 8) & 0xff)}; }
std::string le32(std::uint32_t v) { return le16(static_cast<int>(v & 0xffff)) + le16(static_cast<int>(v >> 16)); }

std::string shortElement(int group, int element, const char* vr, std::string value, char pad) {
    if (value.size() % 2) value += pad;
    return le16(group) + le16(element) + vr + le16(static_cast<int>(value.size())) + value;
}

void writeDicomDir(const std::string& path, const std::vector<std::string>& files) {
    std::string meta = le16(2) + le16(1) + "OB" + std::string(2, '\0') + le32(2) + std::string("\0\1", 2);
    meta += shortElement(2, 2, "UI", "1.2.840.10008.1.3.10", '\0');
    meta += shortElement(2, 3, "UI", "2.25.1001", '\0');
    meta += shortElement(2, 0x10, "UI", "1.2.840.10008.1.2.1", '\0');
    std::string out = std::string(128, '\0') + "DICM" + le16(2) + le16(0) + "UL" + le16(4) +
                      le32(static_cast<std::uint32_t>(meta.size())) + meta;
    out += le16(4) + le16(0x1220) + "SQ" + std::string(2, '\0') + le32(0xffffffff);
    for (const auto& file : files) {
        std::string id = file;
        std::replace(id.begin(), id.end(), '/', '\\');
        out += le16(0xfffe) + le16(0xe000) + le32(0xffffffff);
        out += shortElement(4, 0x1430, "CS", "IMAGE", ' ') + shortElement(4, 0x1500, "CS", id, ' ');
        out += le16(0xfffe) + le16(0xe00d) + le32(0);
    }
    out += le16(0xfffe) + le16(0xe0dd) + le32(0);
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << out;
}

namespace {

// Patient p's identifiers in a generated study made from `tag` (the ones a test greps for).
void identifyPatient(DicomFixture& f, int tag, int p) {
    f.patientId = "PID" + std::to_string(tag) + "-" + std::to_string(p);
    f.patientName = "Name" + std::to_string(tag) + "^P" + std::to_string(p);
    f.birthDate = std::to_string(1920 + p % 80) + "0315";
    f.studyDate = "2023" + std::to_string(10 + p % 3) + "1" + std::to_string(p % 10);
    f.studyUid = "2.25." + std::to_string(tag) + "." + std::to_string(p + 1);
    f.seriesUid = f.studyUid + ".1";
    f.accession = "A" + std::to_string(tag) + "X" + std::to_string(p);
}

}  // namespace

std::vector<std::string> writeDicomStudy(const std::string& folder, const std::string& labelsCsv, int patients,
                                         int imagesPerPatient, int tag) {
    std::vector<std::string> ids, others;
    std::filesystem::create_directories(std::filesystem::path(labelsCsv).parent_path());
    std::ofstream csv(labelsCsv);
    csv << "SOPInstanceUID,Finding\n";
    for (int p = 0; p < patients; ++p) {
        DicomFixture f;
        identifyPatient(f, tag, p);
        f.rows = f.columns = 16;
        f.bitsStored = 12;
        ids.push_back(f.patientId);
        others.insert(others.end(), {f.patientName, f.birthDate, f.studyDate, f.studyUid, f.seriesUid, f.accession});
        const bool finding = p % 2 == 1;
        for (int i = 0; i < imagesPerPatient; ++i) {
            f.sopUid = f.seriesUid + "." + std::to_string(i + 1);
            f.instanceNumber = i + 1;
            f.stored.assign(16 * 16, 0);
            for (int k = 0; k < 16 * 16; ++k)  // a patient's images: a ramp, brighter with a finding
                f.stored[k] = (finding ? 1500 : 500) + ((k * 7 + p * 13 + i * 31) % 1000);
            writeDicom(folder + "/case" + std::to_string(p + 1) + "/" + std::to_string(i + 1) + ".dcm", f);
            csv << f.sopUid << "," << (finding ? 1 : 0) << "\n";
            others.push_back(f.sopUid);
        }
    }
    ids.insert(ids.end(), others.begin(), others.end());
    return ids;
}

void writePublicDicomSet(const std::string& folder, int images) {
    for (int i = 0; i < images; ++i) {
        DicomFixture f;
        f.patientId = "ANON" + std::to_string(i);
        f.sopUid = "2.25.9." + std::to_string(i + 1);
        f.bodyPart = i % 2 == 0 ? "CHEST" : "HAND";
        f.rows = f.columns = 16;
        f.bitsAllocated = f.bitsStored = 8;
        for (int y = 0; y < 16; ++y)
            for (int x = 0; x < 16; ++x) {
                const bool inDisc = (x - 8) * (x - 8) + (y - 8) * (y - 8) < 16 + i % 20;
                f.stored.push_back(inDisc ? (i % 2 == 0 ? 230 : 60) : 20 + (x * y + i) % 30);
            }
        writeDicom(folder + "/" + std::to_string(i + 1) + ".dcm", f);
    }
}

DicomFixture chestLikeImage(int patient, int image, bool nodule) {
    DicomFixture f;
    f.rows = f.columns = 64;
    f.bitsStored = 12;
    f.windowCentre = 2048;
    f.windowWidth = 4096;
    f.instanceNumber = image + 1;
    for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 64; ++x) {
            const auto inside = [&](double cx, double cy, double rx, double ry) {
                return std::pow((x - cx) / rx, 2) + std::pow((y - cy) / ry, 2) < 1;
            };
            int v = inside(32, 34, 28 + patient % 3, 30) ? 3000 : 300;
            if (inside(20, 32, 9, 20 + image % 4) || inside(44, 32, 9, 20 + image % 4)) v = 900 + 40 * (patient % 16);
            if (nodule && inside(45, 26 + 2 * (image % 4), 4, 4)) v = 3600;
            f.stored.push_back(v + (x * 13 + y * 7 + patient) % 60);
        }
    return f;
}

std::vector<std::string> writeChestStudy(const std::string& folder, const std::string& labelsCsv, int patients,
                                         int imagesPerPatient, int tag) {
    std::vector<std::string> ids, others;
    std::filesystem::create_directories(std::filesystem::path(labelsCsv).parent_path());
    std::ofstream csv(labelsCsv);
    csv << "SOPInstanceUID,Nodule\n";
    for (int p = 0; p < patients; ++p) {
        const bool nodule = p % 2 == 1;
        for (int i = 0; i < imagesPerPatient; ++i) {
            DicomFixture f = chestLikeImage(p, i, nodule);
            identifyPatient(f, tag, p);
            f.sopUid = f.seriesUid + "." + std::to_string(i + 1);
            if (i == 0) {
                ids.push_back(f.patientId);
                others.insert(others.end(),
                              {f.patientName, f.birthDate, f.studyDate, f.studyUid, f.seriesUid, f.accession});
            }
            writeDicom(folder + "/case" + std::to_string(p + 1) + "/" + std::to_string(i + 1) + ".dcm", f);
            csv << f.sopUid << "," << (nodule ? 1 : 0) << "\n";
            others.push_back(f.sopUid);
        }
    }
    ids.insert(ids.end(), others.begin(), others.end());
    return ids;
}

}  // namespace dpmix::data::fixtures
