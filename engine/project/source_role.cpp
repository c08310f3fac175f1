#include "engine/project/source_role.h"

#include <stdexcept>

namespace dpmix::project {

const std::vector<SourceRoleTraits>& allSourceRoles() {
    static const std::vector<SourceRoleTraits> table = {
        {.role = SourceRole::Public, .name = "public"},
        {.role = SourceRole::Sensitive, .name = "sensitive"},
    };
    return table;
}

std::string nameOf(SourceRole role) {
    for (const auto& t : allSourceRoles())
        if (t.role == role) return std::string(t.name);
    throw std::logic_error("project::nameOf: a SourceRole without a row in the table");
}

Result<SourceRole> parseSourceRole(std::string_view name) {
    for (const auto& t : allSourceRoles())
        if (name == t.name) return t.role;
    std::string expected;
    for (const auto& t : allSourceRoles())
        expected += (expected.empty() ? "\"" : " or \"") + std::string(t.name) + "\"";
    return Error{"\"" + std::string(name) + "\" is not a source role: expected " + expected};
}

}  // namespace dpmix::project
