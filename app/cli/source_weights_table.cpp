#include "app/cli/source_weights_table.h"

#include "app/cli/terminal_safe.h"

#include <cstdio>
#include <iostream>

namespace dpmix::cli {

void printSourceWeightRows(const std::string& title, const std::vector<experiments::SourceWeightRow>& rows) {
    char line[256];
    std::cout << "source weights of " << oneLine(title) << " (λ_DP / λ*, mean over seeds)\n";
    for (const auto& r : rows) {
        std::snprintf(line, sizeof line, "  %-16s eps %-4g", oneLine(r.task).c_str(), r.epsilon);
        std::cout << line;
        for (std::size_t i = 0; i < r.sources.size(); ++i) {
            std::snprintf(line, sizeof line, "  %s %.3f/%.3f", oneLine(r.sources[i]).c_str(), r.dp[i], r.star[i]);
            std::cout << line;
        }
        std::snprintf(line, sizeof line,
                      "\n      λ_DP on the sources λ* gives < 0.02: mean %.3f, largest %.3f (%d seeds)\n",
                      r.dpOnNeglectedMean, r.dpOnNeglectedMax, r.seeds);
        std::cout << line;
    }
    std::cout.flush();
}

}  // namespace dpmix::cli
