#include "engine/core/malloc_tuning.h"
#include "engine/core/version.h"

#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char** argv) {
    dpmix::tuneMallocForTraining();
    CLI::App app{"dpmix — differentially private learning with public data"};
    app.set_version_flag("--version", dpmix::versionString());
    CLI11_PARSE(app, argc, argv);
    return 0;
}
