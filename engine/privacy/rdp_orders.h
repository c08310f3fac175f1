#pragma once
#include <vector>

namespace dpmix::privacy {

/// The Rényi orders the Gaussian accountant optimises over by default: 1.1, 1.2, ..., 10.9
/// and 12, 13, ..., 63 — the grid of Opacus's RDP accountant, so our ε can be checked
/// against it row by row.
std::vector<double> defaultRdpOrders();

/// Integer orders lo, lo+1, ..., hi.
std::vector<double> integerOrders(int lo, int hi);

}  // namespace dpmix::privacy
