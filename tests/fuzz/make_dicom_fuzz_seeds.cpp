// make-dicom-fuzz-seeds DIR: the fuzz_dicom harness's seed corpus, written by GDCM (dicom_fixtures.h)
// at build time: the shapes the loader reads (8/12/16 bits, signed, MONOCHROME1/2, rescale and
// window, RLE / JPEG-LS / JPEG lossless, multi-frame, RGB) and a truncated file.
#include "tests/engine/data/dicom_fixtures.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

namespace fx = dpmix::data::fixtures;

namespace {

fx::DicomFixture ramp(int bits, int frames = 1, int samples = 1) {
    fx::DicomFixture f;
    f.bitsAllocated = bits > 8 ? 16 : 8;
    f.bitsStored = bits;
    f.frames = frames;
    for (int k = 0; k < 16 * frames * samples; ++k) f.stored.push_back((k * 37) % (1 << bits));
    return f;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: make-dicom-fuzz-seeds DIR\n";
        return 2;
    }
    const std::string dir = argv[1];
    try {
        fx::writeDicom(dir + "/mono2-16.dcm", ramp(16));
        auto windowed = ramp(12);
        windowed.slope = 2;
        windowed.intercept = -1024;
        windowed.windowCentre = 40;
        windowed.windowWidth = 400;
        fx::writeDicom(dir + "/rescaled-12.dcm", windowed);
        auto inverted = ramp(8);
        inverted.photometric = "MONOCHROME1";
        fx::writeDicom(dir + "/mono1-8.dcm", inverted);
        auto signedRamp = ramp(12);
        signedRamp.isSigned = true;
        fx::writeDicom(dir + "/signed-12.dcm", signedRamp);
        auto rle = ramp(12);
        rle.compression = fx::DicomCompression::Rle;
        fx::writeDicom(dir + "/rle.dcm", rle);
        auto jpegLs = ramp(12);
        jpegLs.compression = fx::DicomCompression::JpegLs;
        fx::writeDicom(dir + "/jpeg-ls.dcm", jpegLs);
        auto jpeg = ramp(16);
        jpeg.compression = fx::DicomCompression::JpegLossless;
        fx::writeDicom(dir + "/jpeg-lossless.dcm", jpeg);
        fx::writeDicom(dir + "/frames.dcm", ramp(8, 3));
        auto rgb = ramp(8, 1, 3);
        rgb.photometric = "RGB";
        fx::writeDicom(dir + "/rgb.dcm", rgb);
        std::ifstream in(dir + "/mono2-16.dcm", std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), {});
        std::ofstream(dir + "/truncated.dcm", std::ios::binary) << bytes.substr(0, bytes.size() - 9);
    } catch (const std::exception& e) {
        std::cerr << "make-dicom-fuzz-seeds: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
