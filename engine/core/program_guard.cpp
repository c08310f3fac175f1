#include "engine/core/program_guard.h"

#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>

#include <unistd.h>

namespace dpmix {
namespace {

std::string gProgram = "dpmix";

std::string describe(std::exception_ptr e) {
    try {
        if (e) std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
        return "out of memory (std::bad_alloc): the input asks for more memory than this machine has";
    } catch (const std::exception& x) {
        return x.what();
    } catch (...) {
        return "an unknown exception";
    }
    return "std::terminate was called";
}

[[noreturn]] void onTerminate() {
    const std::string line = gProgram + ": internal error: " + describe(std::current_exception()) +
                             " (nothing further was done; please report this with the command line)\n";
    // write(2), not iostreams: the streams may be what failed.
    (void)!::write(2, line.data(), line.size());
    std::_Exit(2);
}

}  // namespace

int guardedMain(const std::string& program, const std::function<int()>& body) {
    gProgram = program;
    std::set_terminate(onTerminate);
    try {
        return body();
    } catch (...) {
        std::cerr << program << ": internal error: " << describe(std::current_exception())
                  << " (nothing further was done; please report this with the command line)" << std::endl;
        return 2;
    }
}

}  // namespace dpmix
