#pragma once
// Mean and sample standard deviation over seeds, for the experiment tables.
#include <vector>

namespace dpmix::audit {

struct MeanStd {
    double mean = 0.0;
    double std = 0.0;  // sample standard deviation (n − 1); 0 for fewer than 2 values
    long long count = 0;
};

MeanStd meanStd(const std::vector<double>& values);

}  // namespace dpmix::audit
