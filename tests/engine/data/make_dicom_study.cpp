// make-dicom-study DIR [PATIENTS] [IMAGES_PER_PATIENT] [PUBLIC_IMAGES]: writes a generated DICOM
// study (dicom_fixtures.h) for the acceptance run of docs/DATA.md "DICOM studies": DIR/scans (the
// sensitive study), DIR/labels.csv (keyed by SOPInstanceUID), DIR/public (a public set labelled by
// BodyPartExamined) and DIR/identifiers.txt (every identifier written, one a line, to grep the
// project, the release and the outputs for). Generated data: never commit it.
#include "dicom_fixtures.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: make-dicom-study DIR [PATIENTS=200] [IMAGES_PER_PATIENT=3] [PUBLIC_IMAGES=400]\n";
        return 2;
    }
    const std::string dir = argv[1];
    const int patients = argc > 2 ? std::atoi(argv[2]) : 200;
    const int images = argc > 3 ? std::atoi(argv[3]) : 3;
    const int publicImages = argc > 4 ? std::atoi(argv[4]) : 400;
    try {
        const auto identifiers =
            dpmix::data::fixtures::writeDicomStudy(dir + "/scans", dir + "/labels.csv", patients, images);
        dpmix::data::fixtures::writePublicDicomSet(dir + "/public", publicImages);
        std::ofstream out(dir + "/identifiers.txt");
        for (const auto& id : identifiers) out << id << "\n";
    } catch (const std::exception& e) {
        std::cerr << "make-dicom-study: " << e.what() << "\n";
        return 1;
    }
    std::cout << "wrote " << patients << " patients x " << images << " images to " << dir << "/scans, " << publicImages
              << " public images to " << dir << "/public\n";
    return 0;
}
