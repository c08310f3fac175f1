#pragma once
// Text the CLI prints comes partly from files it did not write (a received project's run names,
// messages, task names): a terminal escape sequence in them could hide or rewrite later lines
// (ESC[8m makes everything after it invisible). installTerminalSafeOutput() puts a filter on
// std::cout and std::cerr that prints every control character but newline and tab as a visible
// \xNN escape. JSON output is unaffected: nlohmann::json already escapes control characters.
namespace dpmix::cli {

void installTerminalSafeOutput();

}  // namespace dpmix::cli
