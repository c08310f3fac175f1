// The anchor of the tests' shared precompiled header (tests/CMakeLists.txt, dpmix_test_pch):
// every Qt test executable reuses the header this target precompiles.
