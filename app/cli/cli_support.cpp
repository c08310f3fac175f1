#include "app/cli/cli_support.h"

#include <chrono>
#include <cstdio>

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

std::string jobProgressText(double fraction, double elapsedSeconds) {
    if (fraction < 0.0) return {};
    std::string text = "  [job " + std::to_string(static_cast<int>(100.0 * fraction)) + "%";
    // Extrapolated from the time spent so far; too early (under 2% or 10 s) it says nothing useful.
    if (fraction >= 0.02 && fraction < 1.0 && elapsedSeconds >= 10.0) {
        const auto left = static_cast<long long>(elapsedSeconds * (1.0 - fraction) / fraction + 0.5);
        char buf[32];
        if (left >= 3600)
            std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", left / 3600, left / 60 % 60, left % 60);
        else
            std::snprintf(buf, sizeof buf, "%lld:%02lld", left / 60, left % 60);
        text += ", about " + std::string(buf) + " left";
    }
    return text + "]";
}

ProgressCallback stderrProgress() {
    auto last = std::make_shared<std::pair<int, std::string>>(-1, "");
    const auto start = std::chrono::steady_clock::now();
    return [last, start](const ProgressEvent& e) {
        const int percent = e.total > 0 ? static_cast<int>(100 * e.done / e.total) : -1;
        if (percent == last->first && e.stage == last->second) return;
        *last = {percent, e.stage};
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::cerr << "[" << e.stage << "] " << e.done << "/" << e.total << (e.message.empty() ? "" : "  " + e.message)
                  << jobProgressText(e.jobFraction, elapsed) << '\n';
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
