# DPMIX_FUZZ=ON: the libFuzzer build (tests/fuzz). Only the torch- and Qt-free modules the
# harnesses reach — core, privacy, data, project — are built, every file instrumented with
# ASan + UBSan (and libFuzzer's coverage), so a finding points at our code, not at a harness.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "DPMIX_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++ "
                      "(Debian: apt-get install clang)")
endif()
# (ccache, lld: the top-level CMakeLists.txt included DpmixBuildSpeed before this file.)
# -O1 and line tables only: what the sanitizers' authors recommend for usable reports, and about
# half the compile time of -O3 -g (docs/DEVELOPING.md, "Build speed").
string(REPLACE "-O3" "-O1" CMAKE_CXX_FLAGS_RELEASE "${CMAKE_CXX_FLAGS_RELEASE}")
add_compile_options(-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined
                    -fno-omit-frame-pointer -gline-tables-only)
add_link_options(-fsanitize=address,undefined)
add_compile_definitions(QT_NO_KEYWORDS)

find_package(Boost 1.74 REQUIRED)
find_package(CLI11 REQUIRED)  # the command line's argument fuzzer
find_package(SQLite3 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(SODIUM REQUIRED IMPORTED_TARGET libsodium)
# OpenSSL libcrypto: AES-256-CTR, the secret key stream where the CPU has AES instructions.
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
# FFTW3: the PRV accountant composes privacy-loss distributions by FFT.
pkg_check_modules(FFTW3 REQUIRED IMPORTED_TARGET fftw3)
include(DpmixTargets)

add_subdirectory(engine/core)
add_subdirectory(engine/privacy)
add_subdirectory(engine/data)
add_subdirectory(engine/methods)
add_subdirectory(engine/project)
enable_testing()
add_subdirectory(tests/fuzz)

# The same modules' unit tests under the sanitizers, on the Qt-free harness of the headless build
# (tests/support/headless): every line they run is instrumented, the harness's included.
option(DPMIX_SANITIZE_UNIT_TESTS "Also build and run the core, privacy, data and project unit tests with ASan + UBSan" ON)
if(DPMIX_SANITIZE_UNIT_TESTS)
  set(DPMIX_WITH_GUI OFF)
  add_subdirectory(tests/support/headless ${CMAKE_BINARY_DIR}/tests/support/headless)
  add_subdirectory(tests/engine/core ${CMAKE_BINARY_DIR}/tests/engine/core)
  add_subdirectory(tests/engine/privacy ${CMAKE_BINARY_DIR}/tests/engine/privacy)
  add_subdirectory(tests/engine/data ${CMAKE_BINARY_DIR}/tests/engine/data)
  add_subdirectory(tests/engine/project ${CMAKE_BINARY_DIR}/tests/engine/project)
endif()
