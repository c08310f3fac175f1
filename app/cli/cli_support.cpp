#include "app/cli/cli_support.h"

#include <csignal>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>

namespace dpmix::cli {
namespace {

// The token Ctrl-C cancels. A copy shares the flag, and setting an atomic is signal-safe.
CancellationToken* gInterruptToken = nullptr;

extern "C" void cancelOnInterrupt(int) {
    if (gInterruptToken) gInterruptToken->cancel();
}

}  // namespace

std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream s(text);
    std::string item;
    while (std::getline(s, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
}

InterruptCancels::InterruptCancels(const CancellationToken& token) {
    static CancellationToken held;
    held = token;
    gInterruptToken = &held;
    previous_ = std::signal(SIGINT, cancelOnInterrupt);
}

InterruptCancels::~InterruptCancels() {
    std::signal(SIGINT, previous_ == SIG_ERR ? SIG_DFL : previous_);
    gInterruptToken = nullptr;
}

ProgressCallback stderrProgress() {
    auto last = std::make_shared<std::pair<int, std::string>>(-1, "");
    return [last](const ProgressEvent& e) {
        const int percent = e.total > 0 ? static_cast<int>(100 * e.done / e.total) : -1;
        if (percent == last->first && e.stage == last->second) return;
        *last = {percent, e.stage};
        std::cerr << "[" << e.stage << "] " << e.done << "/" << e.total << (e.message.empty() ? "" : "  " + e.message)
                  << '\n';
    };
}

std::string cliMessage(const Error& e) {
    std::string message = e.field.empty() ? e.message : "--" + e.message;
    static const std::pair<const char*, const char*> kFlags[] = {{"the local executor", "--executor local"},
                                                                 {"the Slurm executor", "--executor slurm"}};
    for (const auto& [thing, flag] : kFlags)
        for (auto at = message.find(thing); at != std::string::npos; at = message.find(thing, at))
            message.replace(at, std::strlen(thing), flag);
    return message;
}

}  // namespace dpmix::cli
