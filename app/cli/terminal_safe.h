#pragma once
// Text the CLI prints comes partly from files it did not write (a received project's run names,
// messages, task names): a terminal escape sequence in them could hide or rewrite later lines
// (ESC[8m makes everything after it invisible), a bidirectional override (U+202E) can reorder
// what a line shows, and a newline in a study name can print a whole forged line ("Integrity
// hash chain ✓"). Two layers:
//   * installTerminalSafeOutput() puts a filter on std::cout and std::cerr that prints every C0
//     control character but newline and tab, DEL, every C1 control (U+0080–U+009F) and every
//     bidirectional mark, embedding, override or isolate as a visible escape (\x1b, \u202e);
//   * oneLine() is for a stored string printed inside a line: it escapes newline, carriage
//     return and tab as well, so the string stays on its line.
// JSON output is unaffected: nlohmann::json escapes control characters, and a JSON reader sees
// the string as it is stored.
#include <string>

namespace dpmix::cli {

void installTerminalSafeOutput();

/// `text` as one visible line: C0 controls (newline and tab included), DEL, C1 controls and the
/// bidirectional formatting characters as \n, \t, \xNN or \uNNNN; bytes that are not UTF-8 as \xNN.
std::string oneLine(const std::string& text);

}  // namespace dpmix::cli
