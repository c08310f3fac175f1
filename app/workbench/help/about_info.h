#pragma once
// What the About box says: product, Qt, LibTorch and project-file schema versions.
#include <QString>

namespace dpmix::workbench {

struct AboutInfo {
    QString appVersion;     // dpmix::versionString()
    QString qtVersion;      // qVersion() at run time
    QString torchVersion;   // runtime::probeRuntime().torchVersion
    QString schemaVersion;  // ProjectStore::schemaVersion()
};

QString aboutHtml(const AboutInfo& info);

}  // namespace dpmix::workbench
