#pragma once
// What the registration dialog offers for each data-layer loader: a readable name, whether the
// path is a file or a folder (for the file picker), and the options a user can set. The option
// keys and meanings are the data layer's (engine/data/source_loader.h); this is only their menu.
#include <QList>
#include <QString>
#include <QStringList>

namespace dpmix::workbench {

enum class PathKind { File, Folder, FileOrFolder };

struct LoaderOption {
    QString key;          // the SourceSpec option key, e.g. "labels"
    QString label;        // what the form shows
    QString hint;         // placeholder / tooltip: the default and the accepted values
    bool isPath = false;  // a file next to the main path: the form offers a file picker
};

struct LoaderInfo {
    QString key;         // SourceSpec::loader, e.g. "idx"
    QString title;       // "IDX images (MNIST / Fashion-MNIST)"
    bool images = true;  // false: a text loader
    PathKind pathKind = PathKind::File;
    QString fileFilter;  // for QFileDialog when the path is a file
    QList<LoaderOption> options;
};

/// Every loader the dialog offers, in menu order (images first, then text, then mail).
const QList<LoaderInfo>& loaderCatalog();
/// The entry for `key`, or nullptr for a loader the data layer does not have.
const LoaderInfo* findLoader(const QString& key);

}  // namespace dpmix::workbench
