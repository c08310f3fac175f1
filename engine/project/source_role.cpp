#include "engine/project/source_role.h"

#include "engine/core/kind_table.h"

namespace dpmix::project {

const std::vector<SourceRoleTraits>& allSourceRoles() {
    static const std::vector<SourceRoleTraits> table = {
        {.role = SourceRole::Public, .name = "public"},
        {.role = SourceRole::Sensitive, .name = "sensitive"},
    };
    return table;
}

std::string nameOf(SourceRole role) {
    return std::string(core::rowOf(allSourceRoles(), &SourceRoleTraits::role, role, "project::SourceRole").name);
}

Result<SourceRole> parseSourceRole(std::string_view name) {
    return core::parseSpelling(allSourceRoles(), &SourceRoleTraits::role, name, "a source role");
}

}  // namespace dpmix::project
