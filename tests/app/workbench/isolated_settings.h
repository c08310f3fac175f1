#pragma once
// A workbench test's own settings: QStandardPaths in test mode and QSettings under its own
// organisation and application name, cleared, so a test never reads or writes a user's settings
// (recent files, window state) nor another test's.
#include <QCoreApplication>
#include <QSettings>
#include <QStandardPaths>

namespace dpmix::workbench::test {

inline void isolateSettings(const char* testName) {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("dpmix-tests");
    QCoreApplication::setApplicationName(testName);
    QSettings().clear();
}

}  // namespace dpmix::workbench::test
