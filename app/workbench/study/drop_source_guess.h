#pragma once
// Which loader reads a dropped file or folder, guessed from its name and a look inside, so a
// drop onto the project tree opens the registration dialog already filled in. The guess is only
// a starting point: the dialog previews it and the user can change everything.
#include "engine/data/source_spec.h"

#include <QString>
#include <QStringList>

namespace dpmix::workbench {

struct SourceGuess {
    data::SourceSpec source;  // loader ("" when no loader fits), absolute path, name, options
    QString reason;           // why this loader, or why none fits (shown in the dialog)
};

/// Rules, first match wins:
///   file *idx3-ubyte[.gz] / *.idx         → idx (label file *idx1-ubyte[.gz] next to it as "labels";
///                                           classes "fashion-mnist" when the path says fashion)
///   file *idx1-ubyte[.gz] (a label file)  → idx on the matching image file, when it exists
///   *.jsonl[.gz], *.ndjson                → jsonl
///   *.csv                                 → csv-images
///   *.mbox, *.mbx, a file starting "From " → mbox
///   <digit>.json, folder of 0.json…9.json → mnist-json
///   other *.json, folder of folders of *.json → spam-assassin
///   folder with cur/ and new/             → maildir
///   folder holding text files             → text-folder
/// Names of files (and folders) are their stem, except generic stems (manifest, index, labels,
/// data, images, metadata, train, test; any case), which name nothing: those get the parent
/// folder's name ("xray/manifest.csv" → "xray").
SourceGuess guessSource(const QString& path);

/// The name a file proposes for its source: its stem, or its folder's name when the stem is generic.
QString fileSourceName(const QString& path);

/// `base` when no registered source has it, else the first free "base-2", "base-3", ….
QString uniqueSourceName(const QString& base, const QStringList& taken);

}  // namespace dpmix::workbench
