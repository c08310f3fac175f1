#pragma once
// The part a source plays in a study, defined once: public (pretraining, mixture components) or
// sensitive (the data every DP mechanism protects). The project file stores its spelling in the
// sources table (a CHECK constraint holds it to these two); code asks the enum.
#include "engine/core/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace dpmix::project {

enum class SourceRole { Public, Sensitive };

struct SourceRoleTraits {
    SourceRole role = SourceRole::Public;
    std::string_view name;  // as the project file stores it: "public"
};

const std::vector<SourceRoleTraits>& allSourceRoles();
/// The spelling the project file stores (and messages use: "public source 'x'").
std::string nameOf(SourceRole role);
/// A stored spelling; the error names the value and lists the accepted ones.
Result<SourceRole> parseSourceRole(std::string_view name);

}  // namespace dpmix::project
