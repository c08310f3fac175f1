#pragma once
// Mean and sample standard deviation: the one definition every table, chart and summary of
// dpmix uses (over seeds, over audit runs, over tasks), so that the CLI, the workbench and the
// stored experiment records agree to the last digit.
#include <span>

namespace dpmix {

struct MeanStd {
    double mean = 0.0;  // 0 for no values: callers read `count`
    double std = 0.0;   // sample standard deviation (n − 1); 0 for fewer than 2 values
    long long count = 0;
};

MeanStd meanStd(std::span<const double> values);

}  // namespace dpmix
