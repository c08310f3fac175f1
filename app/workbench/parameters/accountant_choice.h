#pragma once
// The panel's accountant choice (widgets, no engine types) and the engine's, one conversion each way.
#include "engine/privacy/accountant.h"
#include "widgets/run_parameters.h"

namespace dpmix::workbench {

inline privacy::Accountant engineAccountant(widgets::AccountantChoice choice) {
    return choice == widgets::AccountantChoice::Rdp ? privacy::Accountant::Rdp : privacy::Accountant::Prv;
}

inline widgets::AccountantChoice panelAccountant(privacy::Accountant accountant) {
    return accountant == privacy::Accountant::Rdp ? widgets::AccountantChoice::Rdp : widgets::AccountantChoice::Prv;
}

}  // namespace dpmix::workbench
