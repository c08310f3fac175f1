# All third-party packages come from Debian 12 (scripts/setup.sh installs them).

# Qt's `slots`/`signals`/`emit` macros collide with LibTorch (c10::ivalue::Object::slots())
# and AUTOMOC's aggregate defeats include-order tricks (docs/DEVELOPING.md, "Qt keywords and LibTorch"): no keywords anywhere.
add_compile_definitions(QT_NO_KEYWORDS)

find_package(Boost 1.74 REQUIRED)                # Boost.Math, header-only
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(SQLite3 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
# TorchConfigVersion.cmake of Debian's 1.13.1 says 1.13.0: ask for no version (docs/DEVELOPING.md, "Finding LibTorch").
find_package(Torch REQUIRED)
find_package(Threads REQUIRED)
# libsodium: the ChaCha20 generator and OS entropy behind every DP mechanism's randomness.
find_package(PkgConfig REQUIRED)
pkg_check_modules(SODIUM REQUIRED IMPORTED_TARGET libsodium)
# OpenSSL libcrypto: AES-256-CTR, the secret key stream where the CPU has AES instructions.
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
# FFTW3: the PRV accountant composes privacy-loss distributions by FFT.
pkg_check_modules(FFTW3 REQUIRED IMPORTED_TARGET fftw3)

if(DPMIX_WITH_GUI)
  # PrintSupport must be found before QCustomPlotQt6, whose config file does not (pitfall 1).
  find_package(Qt6 6.4 REQUIRED COMPONENTS Core Gui Widgets PrintSupport Test Concurrent Svg)
  find_package(QCustomPlotQt6 REQUIRED)
  # Qt6::Test defines QT_TESTCASE_SOURCEDIR / QT_TESTCASE_BUILDDIR as absolute paths (for
  # QFINDTESTDATA, which no test uses): every test's compile line would then name the clone's
  # folder and no other clone could reuse its objects through ccache (docs/DEVELOPING.md,
  # "Build speed"). Tests find the trees at run time instead (tests/support/unit_test.h).
  get_target_property(_dpmix_test_defs Qt6::Test INTERFACE_COMPILE_DEFINITIONS)
  list(FILTER _dpmix_test_defs EXCLUDE REGEX "^QT_TESTCASE_")
  set_target_properties(Qt6::Test PROPERTIES INTERFACE_COMPILE_DEFINITIONS "${_dpmix_test_defs}")
endif()
