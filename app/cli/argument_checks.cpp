#include "app/cli/argument_checks.h"

#include "app/cli/cli_support.h"

#include <algorithm>
#include <set>
#include <string>
#include <thread>

namespace dpmix::cli {

void addSharedChecks(CLI::App& app) {
    static const std::set<std::string> kListFlags = {"--runs",    "--seed",  "--epsilon", "--epsilons", "--stages",
                                                     "--methods", "--tasks", "--ks",      "--shots"};
    for (CLI::Option* option : app.get_options()) {
        if (option->get_positional() || option->get_type_size() == 0) continue;
        if (option->check_lname("threads")) {
            option->check(CLI::Range(0, maxThreads()));
            continue;
        }
        bool list = option->get_description().find("comma-separated") != std::string::npos;
        for (const auto& name : option->get_lnames()) list = list || kListFlags.count("--" + name) > 0;
        if (!list) continue;
        const std::string flag = "--" + option->get_lnames().front();
        option->check(CLI::Validator(
            [flag](std::string& value) -> std::string {
                if (!splitList(value).empty()) return {};
                return "an empty list ('" + value + "'): expected at least one comma-separated value (leave " + flag +
                       " out for the default)";
            },
            "LIST"));
    }
    for (CLI::App* sub : app.get_subcommands({})) addSharedChecks(*sub);
}

int maxThreads() {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    return static_cast<int>(std::max(4u, cores * 4));
}

}  // namespace dpmix::cli
