#pragma once
// The RDP curve of one ledger entry, shared by the run ledger (ledger.cpp) and the dataset's
// privacy budget (privacy_budget.cpp), so both compose exactly the same curves.
#include "engine/privacy/ledger.h"

#include <vector>

namespace dpmix::privacy {

/// Largest RDP order of the Dirichlet bound (integer orders 2..kMaxDirichletOrder).
inline constexpr int kMaxDirichletOrder = 256;

/// RDP of one entry at one order, multiplied by its steps (+inf for NonPrivate, and for a
/// Dirichlet entry at a non-integer order: its bound covers integer orders only).
double entryRdp(const LedgerEntry& entry, double order);

/// The order grid a group of entries is composed on: the default grid, or integer orders
/// 2..kMaxDirichletOrder when any entry is a Dirichlet mechanism.
std::vector<double> compositionOrders(const std::vector<const LedgerEntry*>& entries);

}  // namespace dpmix::privacy
