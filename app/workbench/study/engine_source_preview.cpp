#include "app/workbench/study/engine_source_preview.h"

#include "engine/data/dicom_source.h"
#include "engine/data/source_loader.h"

#include <QRegularExpression>

#include <algorithm>
#include <functional>
#include <set>

namespace dpmix::workbench {

namespace {

constexpr int kSnippetChars = 240;

long long distinctNonEmpty(const std::vector<std::string>& values) {
    std::set<std::string> distinct;
    for (const auto& v : values)
        if (!v.empty()) distinct.insert(v);
    return static_cast<long long>(distinct.size());
}

// One example as an 8-bit image: grey for one channel, RGB for three (first three otherwise).
QImage exampleImage(const data::ImageDataset& d, std::size_t index) {
    const int w = d.width, h = d.height, c = d.channels;
    const float* px = d.pixels.data() + index * d.imageSize();
    auto byte = [](float x) { return static_cast<int>(std::clamp(x, 0.0f, 1.0f) * 255.0f + 0.5f); };
    if (c < 3) {
        QImage image(w, h, QImage::Format_Grayscale8);
        for (int y = 0; y < h; ++y) {
            uchar* line = image.scanLine(y);
            for (int x = 0; x < w; ++x) line[x] = static_cast<uchar>(byte(px[y * w + x]));
        }
        return image;
    }
    QImage image(w, h, QImage::Format_RGB32);
    const std::size_t plane = static_cast<std::size_t>(w) * h;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t at = static_cast<std::size_t>(y) * w + x;
            image.setPixel(x, y, qRgb(byte(px[at]), byte(px[plane + at]), byte(px[2 * plane + at])));
        }
    return image;
}

QString positiveLabels(const data::ImageDataset& d, std::size_t index) {
    QStringList names;
    const std::size_t l = d.numLabels();
    for (std::size_t j = 0; j < l; ++j) {
        const std::size_t at = index * l + j;
        if (!d.labelMask.empty() && !d.labelMask[at]) continue;
        if (d.labels[at] > 0.5f) names << QString::fromStdString(d.labelNames[j]);
    }
    return names.isEmpty() ? QStringLiteral("—") : names.join(QLatin1Char('|'));
}

QString snippetText(const std::string& text) {
    static const QRegularExpression whitespace(QStringLiteral("\\s+"));
    QString s = QString::fromStdString(text.substr(0, 4 * kSnippetChars)).simplified();
    s.replace(whitespace, QStringLiteral(" "));
    if (s.size() > kSnippetChars) s = s.left(kSnippetChars - 1) + QChar(0x2026);
    return s;
}

QImage greyImage(const data::DecodedImage& image) {
    data::ImageDataset one;
    one.height = image.height;
    one.width = image.width;
    one.pixels = image.pixels;
    return exampleImage(one, 0);
}

// The survey's lines: counts, then the tags found (names only, never values).
QStringList dicomOverviewLines(const data::DicomSurvey& s) {
    QStringList lines;
    lines << QObject::tr("%1 · %2 · %3 · %4 in %5")
                 .arg(countOf(s.patients, QObject::tr("patient"), QObject::tr("patients")),
                      countOf(s.studies, QObject::tr("study"), QObject::tr("studies")),
                      countOf(s.series, QObject::tr("series"), QObject::tr("series")),
                      countOf(s.images, QObject::tr("image"), QObject::tr("images")),
                      countOf(s.files, QObject::tr("DICOM file"), QObject::tr("DICOM files")));
    if (s.skippedFiles > 0)
        lines << QObject::tr("%1 other files skipped (not DICOM)").arg(groupedNumber(s.skippedFiles));
    if (s.withoutUser > 0) lines << QObject::tr("%1 without the user tag").arg(groupedNumber(s.withoutUser));
    QStringList tags;
    for (const auto& t : s.tags) tags << QString::fromStdString(t);
    lines << QObject::tr("Tags found (%1): %2").arg(tags.size()).arg(tags.join(QStringLiteral(", ")));
    return lines;
}

// A DICOM folder: the survey (always shown), then the load that gives the facts; a load that
// fails (no labels chosen yet, a bad file) leaves the survey shown and the source unregistrable.
Result<SourcePreview> dicomPreview(const data::SourceSpec& spec, const CancellationToken& cancel,
                                   const std::function<Result<SourcePreview>()>& load) {
    auto survey = data::surveyDicomSource(spec, kPreviewExamples, data::LoadControl{{}, cancel});
    if (!survey) return survey.error();
    auto loaded = load();
    SourcePreview out = loaded ? std::move(loaded).value() : SourcePreview{};
    out.dicomOverview = dicomOverviewLines(*survey);
    for (const auto& e : survey->errors)
        out.dicomErrors << QString::fromStdString(e.path) + QStringLiteral(": ") + QString::fromStdString(e.reason);
    if (loaded) return out;
    out.loadError = QString::fromStdString(loaded.error().message);
    out.facts.kind = data::SourceKind::Images;
    for (const auto& image : survey->preview) {
        out.thumbnails << greyImage(image);
        out.thumbnailLabels << QStringLiteral("—");
    }
    return out;
}

}  // namespace

Result<SourcePreview> EngineSourcePreviewer::preview(const data::SourceSpec& spec,
                                                     const CancellationToken& cancel) const {
    if (spec.loader == "dicom") return dicomPreview(spec, cancel, [&] { return loadPreview(spec, cancel); });
    return loadPreview(spec, cancel);
}

Result<SourcePreview> EngineSourcePreviewer::loadPreview(const data::SourceSpec& spec,
                                                         const CancellationToken& cancel) {
    const data::LoadControl control{{}, cancel};
    SourcePreview out;
    project::SourceFacts& facts = out.facts;
    // The facts are computed as data::summarizeSource computes them (the project file's record),
    // from the one load that also gives the preview examples.
    if (data::isImageLoader(spec.loader)) {
        auto images = data::loadImageSource(spec, control);
        if (!images) return images.error();
        facts.kind = data::SourceKind::Images;
        facts.examples = static_cast<long long>(images->size());
        facts.labelNames = images->labelNames;
        facts.users = distinctNonEmpty(images->users);
        if (const auto column = spec.options.find("user_column"); column != spec.options.end())
            out.userColumn = QString::fromStdString(column->second).trimmed();
        facts.channels = images->channels;
        facts.height = images->height;
        facts.width = images->width;
        throwIfCancelled(cancel);
        facts.contentHash = data::contentHash(*images);
        const std::size_t shown = std::min<std::size_t>(images->size(), kPreviewExamples);
        for (std::size_t i = 0; i < shown; ++i) {
            out.thumbnails << exampleImage(*images, i);
            out.thumbnailLabels << positiveLabels(*images, i);
        }
        return out;
    }
    auto corpus = data::loadTextSource(spec, control);
    if (!corpus) return corpus.error();
    facts.kind = data::SourceKind::Text;
    facts.examples = static_cast<long long>(corpus->documents.size());
    std::set<std::string> domains;
    std::vector<std::string> users;
    for (const auto& doc : corpus->documents) {
        domains.insert(doc.domain);
        users.push_back(doc.user);
    }
    facts.domains.assign(domains.begin(), domains.end());
    facts.users = distinctNonEmpty(users);
    throwIfCancelled(cancel);
    facts.contentHash = data::contentHash(*corpus);
    const std::size_t shown = std::min<std::size_t>(corpus->documents.size(), kPreviewExamples);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& doc = corpus->documents[i];
        out.snippets << TextSnippet{QString::fromStdString(doc.domain), QString::fromStdString(doc.user),
                                    snippetText(doc.text)};
    }
    return out;
}

}  // namespace dpmix::workbench
