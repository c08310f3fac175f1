# Helpers that keep each module's CMakeLists short and uniform.

# dpmix_engine_library(NAME SOURCES ... [DEPS ...] [PRIVATE_DEPS ...] [TORCH])
#   A library of the Qt-free engine: target dpmix_<NAME>, alias dpmix::<NAME>.
#   TORCH links LibTorch privately (its leaked definitions stay inside) and puts the
#   library's compiles in the heavy job pool.
function(dpmix_engine_library name)
  cmake_parse_arguments(ARG "TORCH" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(dpmix_${name} STATIC ${ARG_SOURCES})
  add_library(dpmix::${name} ALIAS dpmix_${name})
  target_include_directories(dpmix_${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_compile_features(dpmix_${name} PUBLIC cxx_std_20)
  set_target_properties(dpmix_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(dpmix_${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  if(ARG_TORCH)
    target_link_libraries(dpmix_${name} PRIVATE torch)
    set_property(TARGET dpmix_${name} PROPERTY JOB_POOL_COMPILE heavy_compile)
    # <ATen/ATen.h> is about half of a torch translation unit's compile: precompiled once for
    # the first torch library (train, see engine/CMakeLists.txt), reused by the others.
    if(DPMIX_TORCH_PCH STREQUAL name)
      target_precompile_headers(dpmix_${name} PRIVATE <ATen/ATen.h>)
    elseif(DPMIX_TORCH_PCH AND TARGET dpmix_${DPMIX_TORCH_PCH})
      target_precompile_headers(dpmix_${name} REUSE_FROM dpmix_${DPMIX_TORCH_PCH})
    endif()
  endif()
endfunction()

# dpmix_headless_test_registry(TARGET SOURCES ...)
#   Headless build: for the test source that includes "tst_x.moc", generates that file with the
#   registry of its test functions (tests/support/headless/test_registry_main.cpp) — the part
#   of moc's work the Qt-free harness needs.
function(dpmix_headless_test_registry target)
  set(_dir ${CMAKE_CURRENT_BINARY_DIR}/${target}_registry)
  foreach(_src ${ARGN})
    if(NOT _src MATCHES "\\.cpp$")
      continue()
    endif()
    get_filename_component(_base ${_src} NAME_WE)
    get_filename_component(_abs ${_src} ABSOLUTE)
    add_custom_command(OUTPUT ${_dir}/${_base}.moc
      COMMAND ${CMAKE_COMMAND} -E make_directory ${_dir}
      COMMAND headless_test_registry ${_abs} ${_dir}/${_base}.moc
      DEPENDS ${_abs} headless_test_registry
      COMMENT "Listing the test functions of ${_base}" VERBATIM)
    target_sources(${target} PRIVATE ${_dir}/${_base}.moc)
    set_source_files_properties(${_dir}/${_base}.moc PROPERTIES HEADER_FILE_ONLY ON)
  endforeach()
  target_include_directories(${target} PRIVATE ${_dir})
endfunction()

# dpmix_moc_test_sources(TARGET SOURCES ...)
#   Runs moc on the test sources that need it, without AUTOMOC: a .cpp that includes "<name>.moc"
#   and a header that declares Q_OBJECT. A test's classes need nothing from its includes, so moc
#   reads the one file (0.04 s) where AUTOMOC scans every include of every source (about 2 CPU-s
#   per test executable) — docs/DEVELOPING.md, "Build speed". The sources are scanned when CMake
#   configures: a new `#include "x.moc"` or Q_OBJECT in a test header needs a re-run of cmake.
function(dpmix_moc_test_sources target)
  set(_dir ${CMAKE_CURRENT_BINARY_DIR}/${target}_moc)
  foreach(_src ${ARGN})
    get_filename_component(_abs ${_src} ABSOLUTE)
    get_filename_component(_base ${_src} NAME_WE)
    if(_src MATCHES "\\.cpp$")
      file(STRINGS ${_abs} _includes_moc REGEX "#include \"${_base}\\.moc\"")
      if(NOT _includes_moc)
        continue()
      endif()
      set(_out ${_dir}/${_base}.moc)
    else()
      file(STRINGS ${_abs} _declares_qobject REGEX "Q_OBJECT")
      if(NOT _declares_qobject)
        continue()
      endif()
      set(_out ${_dir}/moc_${_base}.cpp)
    endif()
    # The path moc is given is written into its output: relative, so the object does not name
    # the clone's folder (ccache).
    file(RELATIVE_PATH _rel ${CMAKE_CURRENT_BINARY_DIR} ${_abs})
    add_custom_command(OUTPUT ${_out}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${_dir}
      COMMAND Qt6::moc -DQT_NO_KEYWORDS ${_rel} -o ${_out}
      DEPENDS ${_abs} Qt6::moc
      WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}
      COMMENT "moc ${_src}" VERBATIM)
    target_sources(${target} PRIVATE ${_out})
    if(_src MATCHES "\\.cpp$")
      set_source_files_properties(${_out} PROPERTIES HEADER_FILE_ONLY ON)
    endif()
  endforeach()
  target_include_directories(${target} PRIVATE ${_dir})
endfunction()

# dpmix_add_qtest(NAME SOURCES ... LIBS ... [LABELS ...] [TIMEOUT s] [STATISTICAL_PARTS])
#   One Qt Test executable per unit, registered with CTest, run offscreen. In the headless build
#   (DPMIX_WITH_GUI=OFF) the same sources build against the Qt-free harness instead. STATISTICAL_PARTS:
#   the executable also holds Monte-Carlo tests (tests/support/test_support.h, inThisTestPart):
#   NAME runs the deterministic ones under LABELS, NAME_statistical the others under `statistical`.
# The test that empties the tests' budget stores before the others run (CTest adds a required
# fixture's set-up test to any selection of tests).
function(dpmix_budget_store_fixture)
  get_property(_added GLOBAL PROPERTY DPMIX_BUDGET_STORE_FIXTURE)
  if(NOT _added)  # once for the whole build (if(TEST) sees only this directory's tests)
    set_property(GLOBAL PROPERTY DPMIX_BUDGET_STORE_FIXTURE ON)
    add_test(NAME dpmix_clean_budget_stores
             COMMAND ${CMAKE_COMMAND} -E rm -rf "${CMAKE_BINARY_DIR}/test-budget-stores")
    set_tests_properties(dpmix_clean_budget_stores PROPERTIES FIXTURES_SETUP dpmix_budget_stores LABELS "unit;sanitizer")
  endif()
endfunction()

function(dpmix_add_qtest name)
  cmake_parse_arguments(ARG "STATISTICAL_PARTS" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin/tests)
  if(DPMIX_WITH_GUI)
    dpmix_moc_test_sources(${name} ${ARG_SOURCES})
    # Every test links Qt Widgets, so all compile with the same Qt defines and share one
    # precompiled header (tests/support/CMakeLists.txt).
    target_link_libraries(${name} PRIVATE Qt6::Test Qt6::Widgets ${ARG_LIBS})
    # LibTorch's interface defines the (default) C++11 string ABI; the tests that link it would
    # otherwise not match the shared header.
    target_compile_definitions(${name} PRIVATE _GLIBCXX_USE_CXX11_ABI=1)
    if(TARGET dpmix_test_pch)
      target_precompile_headers(${name} REUSE_FROM dpmix_test_pch)
    endif()
  else()
    dpmix_headless_test_registry(${name} ${ARG_SOURCES})
    target_link_libraries(${name} PRIVATE dpmix_headless_test ${ARG_LIBS})
  endif()
  # Tests include shared helpers by their path from the root (tests/support/test_support.h).
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  add_test(NAME ${name} COMMAND ${name})
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  # OPENBLAS_THREAD_TIMEOUT as dpmix sets it for itself (engine/runtime/blas_threads.h): tests that
  # train in their own process get the same quiet OpenBLAS, and the dpmix they start needs no restart.
  set(_env "QT_QPA_PLATFORM=offscreen;XDG_RUNTIME_DIR=/tmp;DPMIX_DATA_DIR=${PROJECT_SOURCE_DIR}/data;OPENBLAS_THREAD_TIMEOUT=4"
           "DPMIX_TEST_SOURCE_DIR=${PROJECT_SOURCE_DIR};DPMIX_TEST_BINARY_DIR=${CMAKE_BINARY_DIR}")
  # Each test charges a budget store of its own (docs/PRIVACY.md, "The budget store"), emptied
  # before every ctest run, never the user's: tests on one fixture data set must not see another
  # test's spending, nor a developer's. Likewise the owner's signing key (a release is signed
  # at export): a key folder of the test's own, never the developer's ~/.config/dpmix.
  dpmix_budget_store_fixture()
  set(_stores "${CMAKE_BINARY_DIR}/test-budget-stores")
  if(ARG_STATISTICAL_PARTS)
    add_test(NAME ${name}_statistical COMMAND ${name})
    set_tests_properties(${name}_statistical PROPERTIES
      LABELS statistical TIMEOUT ${ARG_TIMEOUT} FIXTURES_REQUIRED dpmix_budget_stores
      ENVIRONMENT "${_env};DPMIX_TEST_PART=statistical;DPMIX_BUDGET_STORE=${_stores}/${name}_statistical.sqlite;DPMIX_KEY_DIR=${_stores}/${name}_statistical-keys")
    set(_env "${_env};DPMIX_TEST_PART=deterministic")
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT}
    FIXTURES_REQUIRED dpmix_budget_stores
    ENVIRONMENT "${_env};DPMIX_BUDGET_STORE=${_stores}/${name}.sqlite;DPMIX_KEY_DIR=${_stores}/${name}-keys")
endfunction()
