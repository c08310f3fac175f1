# Build speed (docs/DEVELOPING.md, "Build speed"). Included by the main and the fuzz build.
#  - ccache, when installed: a second build of the same sources (CI's fresh clone on this
#    machine, a rebuild after `git clean`) reuses the objects. CCACHE_BASEDIR makes the paths
#    under the source tree relative in the hash, so a clone in another folder hits too.
#  - lld, when installed: the ~180 executables link against LibTorch and Qt; GNU ld takes
#    several times longer on them.
#  - The heavy-compile pool (torch translation units, ~1 GB each) sized to the machine's memory
#    instead of one at a time.

option(DPMIX_CCACHE "Compile through ccache when it is installed" ON)
if(DPMIX_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(DPMIX_CCACHE_PROGRAM ccache)
  if(DPMIX_CCACHE_PROGRAM)
    # DEPEND: a miss reads the compiler's own dependency file instead of running the
    # preprocessor once more (a first build would otherwise pay ~30% extra). NOHASHDIR: the
    # sanitizer build's line tables name the compile folder; a hit from another clone keeps
    # that clone's folder there, which only a debugger would notice. Sloppiness: the precompiled
    # headers' defines and time stamps (ccache's manual, "Precompiled headers"), and headers
    # generated just before the compile (moc, the PCH itself).
    set(CMAKE_CXX_COMPILER_LAUNCHER
        ${CMAKE_COMMAND} -E env
        CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
        CCACHE_NOHASHDIR=1
        CCACHE_DEPEND=1
        CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
        ${DPMIX_CCACHE_PROGRAM})
    message(STATUS "Compiling through ccache (${DPMIX_CCACHE_PROGRAM})")
  endif()
endif()

option(DPMIX_LLD "Link with lld when it is installed" ON)
if(DPMIX_LLD)
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=lld" DPMIX_HAVE_LLD)
  if(DPMIX_HAVE_LLD)
    add_link_options(-fuse-ld=lld)
    message(STATUS "Linking with lld")
  endif()
endif()

# A torch translation unit needs about 1 GB (docs/DEVELOPING.md, "Compile cost of torch headers"):
# as many at once as cores, but no more than one per 1.5 GB of memory, so a small-RAM runner does
# not swap.
cmake_host_system_information(RESULT _dpmix_memory_mib QUERY TOTAL_PHYSICAL_MEMORY)
cmake_host_system_information(RESULT _dpmix_cores QUERY NUMBER_OF_LOGICAL_CORES)
math(EXPR _dpmix_heavy "${_dpmix_memory_mib} / 1536")
if(_dpmix_heavy GREATER _dpmix_cores)
  set(_dpmix_heavy ${_dpmix_cores})
endif()
if(_dpmix_heavy LESS 1)
  set(_dpmix_heavy 1)
endif()
set_property(GLOBAL APPEND PROPERTY JOB_POOLS heavy_compile=${_dpmix_heavy})

# Unity builds for the libraries whose sources are many small files over the same heavy
# templates (nlohmann::json, CLI11, SQLite wrappers): the command line, the pipeline's
# orchestration and the project file. Compiled one by one, every file instantiates and optimises
# the same json functions again; in batches of 8 they are compiled once a batch.
# docs/DEVELOPING.md, "Build speed". -DDPMIX_UNITY=OFF compiles file by file (e.g. to check that
# each file includes what it uses).
option(DPMIX_UNITY "Unity builds for the JSON-heavy libraries" ON)
function(dpmix_unity_build target)
  if(DPMIX_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE BATCH UNITY_BUILD_BATCH_SIZE 8)
  endif()
endfunction()

# The orchestration libraries (the project file, the study runner and its rooms, the executor)
# read and write JSON, SQLite and folders and call the engine's numerical libraries, which keep
# -O3: nothing in them is hot, and -O1 compiles their json-heavy batches in a third less CPU time
# (measured on engine/project's largest batch: 22.4 → 14.9 CPU-s). IEEE arithmetic is the same at
# either level (no -ffast-math, no FMA contraction on x86-64), so results do not change.
# docs/DEVELOPING.md, "Build speed".
function(dpmix_orchestration_library target)
  dpmix_unity_build(${target})
  target_compile_options(${target} PRIVATE $<$<CONFIG:Release,RelWithDebInfo,MinSizeRel>:-O1>)
endfunction()

