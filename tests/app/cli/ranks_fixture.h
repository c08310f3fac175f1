#pragma once
// The project the `--ranks` tests fine-tune (tst_cli_ranks locally, tst_cli_cluster_ranks on
// Slurm): 200 random 8×8 images of two classes as both the public and the sensitive source, a
// proxy trained once, and copies of that proxy-only project, one per run compared; and the
// fine-tuned models a copy stored, to compare them weight by weight.
#include "cli_runner.h"
#include "idx_fixture.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <cstring>
#include <utility>
#include <vector>

namespace dpmix::test_support {

/// A small study whose fine-tuning mechanism is `mechanism` (dp-sgd, dirichlet).
inline QString ranksSpec(const QString& name, const QString& mechanism) {
    return QString(R"({
  "name": "%1",
  "public_sources": [{"name": "pub", "loader": "idx", "path": "images.idx",
                      "options": {"labels": "labels.idx", "classes": "a,b"}}],
  "sensitive": {"name": "sens", "loader": "idx", "path": "images.idx",
                "options": {"labels": "labels.idx", "classes": "a,b"}},
  "tasks": {"public": [{"name": "a", "classes": ["a"]}, {"name": "b", "classes": ["b"]}],
            "sensitive": [{"name": "is-a", "classes": ["a"]}]},
  "privacy": {"epsilon": 1, "delta": 1e-5, "rho": 0.5},
  "stages": {"mixture": {"clip": 13, "batch": 20, "lr": 1.0, "steps": 20},
             "pretrain": {"batch": 16, "lr": 0.1, "steps": 2},
             "finetune": {"mechanism": "%2", "batch": 8, "lr": 0.05, "steps": 20, "clip": 1.0}},
  "seeds": [0]
})")
        .arg(name, mechanism);
}

class RanksProject {
public:
    /// Writes the images, `base.json` (DP-SGD, study `name`) and each of `extraSpecs` (file →
    /// mechanism), and trains base's proxy; empty, or what failed.
    QString prepare(const QString& name, const std::vector<std::pair<QString, QString>>& extraSpecs = {}) {
        if (!dir_.isValid()) return "no temporary folder";
        QByteArray pixels, labels;
        QRandomGenerator rng(11);
        for (int i = 0; i < 200 * 64; ++i) pixels.append(char(rng.bounded(256)));
        for (int i = 0; i < 200; ++i) labels.append(char(i % 2));
        writeIdx(dir_.filePath("images.idx"), {200, 8, 8}, pixels);
        writeIdx(dir_.filePath("labels.idx"), {200}, labels);
        std::vector<std::pair<QString, QString>> specs{{"base.json", "dp-sgd"}};
        specs.insert(specs.end(), extraSpecs.begin(), extraSpecs.end());
        for (const auto& [file, mechanism] : specs) {
            QFile f(dir_.filePath(file));
            if (!f.open(QIODevice::WriteOnly) || f.write(ranksSpec(name, mechanism).toUtf8()) <= 0)
                return "cannot write " + f.fileName();
        }
        const auto proxy =
            runDpmix({"run", dir_.filePath("base.json"), "--stages", "proxies", "--proxy-epochs", "1"}, dir_.path());
        if (proxy.exitCode != 0) return proxy.err;
        proxyFiles_ = QDir(dir_.filePath("base.models")).entryList(QDir::Files);
        return proxyFiles_.size() == 1 ? QString()
                                       : QStringLiteral("the proxy run stored %1 model files").arg(proxyFiles_.size());
    }

    /// A copy of the project that holds the proxy only.
    QString copy(const QString& name) const {
        const QString to = dir_.filePath(name + ".dpmix");
        QFile::copy(dir_.filePath("base.dpmix"), to);
        QDir().mkpath(dir_.filePath(name + ".models"));
        for (const QString& f : proxyFiles_)
            QFile::copy(dir_.filePath("base.models/" + f), dir_.filePath(name + ".models/" + f));
        return to;
    }

    const QTemporaryDir& dir() const { return dir_; }
    const QStringList& proxyFiles() const { return proxyFiles_; }

private:
    QTemporaryDir dir_;
    QStringList proxyFiles_;
};

/// The fine-tuned models a project stored: the files of its .models folder that the proxy-only
/// copy does not hold (named by their content's hash, so in no order of the runs).
inline std::vector<std::vector<float>> finetunedModels(const QString& modelsDir, const QStringList& proxyFiles) {
    std::vector<std::vector<float>> models;
    for (const QString& name : QDir(modelsDir).entryList(QDir::Files)) {
        if (proxyFiles.contains(name)) continue;
        QFile f(QDir(modelsDir).filePath(name));
        if (!f.open(QIODevice::ReadOnly)) return {};
        const QByteArray bytes = f.readAll();
        std::vector<float> values(static_cast<std::size_t>(bytes.size()) / sizeof(float));
        std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
        models.push_back(std::move(values));
    }
    return models;
}

}  // namespace dpmix::test_support
