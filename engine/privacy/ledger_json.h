#pragma once
// The ledger's JSON form (stored in the project file, shown by `dpmix inspect`).
// ε = ∞ is written as the string "inf" since JSON has no infinity.
#include "engine/core/result.h"
#include "engine/privacy/ledger.h"

#include <string>

namespace dpmix::privacy {

std::string ledgerToJson(const Ledger& ledger, int indent = -1);

/// Parses a ledger; an Error names the entry and field that is missing or malformed.
Result<Ledger> ledgerFromJson(const std::string& text);

/// The composed total as JSON (for reports and `--json` output).
std::string ledgerTotalToJson(const LedgerTotal& total, int indent = -1);

}  // namespace dpmix::privacy
