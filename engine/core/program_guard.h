#pragma once
// What every program's `main` shares so that no input ends it in a signal (uncaught std::filesystem_error and
// std::bad_alloc once ended `dpmix` in SIGABRT; docs/RELIABILITY.md): `guardedMain` runs the
// program's body and turns an exception that escapes it into one line on stderr and exit status
// 2, and a terminate handler does the same for an exception escaping a thread or a noexcept
// function. Used by dpmix, dpmix-text and dpmix-workbench.
#include <functional>
#include <string>

namespace dpmix {

/// Runs `body`; an escaping exception prints "<program>: internal error: <what> …" and returns 2.
/// Installs the terminate handler first.
int guardedMain(const std::string& program, const std::function<int()>& body);

}  // namespace dpmix
