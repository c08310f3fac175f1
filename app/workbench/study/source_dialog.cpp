#include "app/workbench/study/source_dialog.h"

#include "app/workbench/study/drop_source_guess.h"
#include "app/workbench/study/source_loader_catalog.h"
#include "app/workbench/study/source_preview_widget.h"
#include "app/workbench/study/task_editor.h"
#include "engine/data/image_fit.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <exception>

namespace dpmix::workbench {

namespace {
constexpr int kTypingPauseMs = 350;

bool sameData(const data::SourceSpec& a, const data::SourceSpec& b) {
    return a.loader == b.loader && a.path == b.path && a.options == b.options;  // the name is only a label
}

QStringList toQStringList(const std::vector<std::string>& names) {
    QStringList out;
    for (const auto& n : names) out << QString::fromStdString(n);
    return out;
}
}  // namespace

SourceDialog::SourceDialog(SourceRole role, const SourcePreviewer* previewer, QStringList takenNames, QWidget* parent)
    : QDialog(parent),
      role_(role),
      previewer_(previewer),
      takenNames_(std::move(takenNames)),
      note_(new QLabel),
      name_(new QLineEdit),
      loader_(new QComboBox),
      path_(new QLineEdit),
      browseFile_(new QPushButton(tr("File…"))),
      browseFolder_(new QPushButton(tr("Folder…"))),
      optionForm_(new QFormLayout),
      preview_(new SourcePreviewWidget),
      tasks_(new TaskEditor),
      problem_(new QLabel),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel)),
      debounce_(new QTimer(this)) {
    setObjectName("sourceDialog");
    setWindowTitle(role == SourceRole::Public ? tr("Add public source") : tr("Set sensitive data"));
    pool_.setMaxThreadCount(1);
    debounce_->setSingleShot(true);
    debounce_->setInterval(kTypingPauseMs);

    note_->setObjectName("sourceNote");
    note_->setWordWrap(true);
    note_->setVisible(false);
    name_->setObjectName("sourceName");
    name_->setPlaceholderText(tr("unique name in the study, e.g. fashion-mnist-t10k"));
    loader_->setObjectName("loaderBox");
    for (const LoaderInfo& info : loaderCatalog()) loader_->addItem(info.title, info.key);
    path_->setObjectName("sourcePath");
    path_->setPlaceholderText(tr("choose with File… or Folder…"));
    problem_->setObjectName("dialogProblem");
    problem_->setWordWrap(true);

    QFormLayout* form = buildSourceForm();
    layOutDialog(form);
    connectEdits();
    rebuildOptionForm();
    updateOk();
}

// Loader, path and name; at the sensitive data the user-level switch, at a public source the
// rules that fit it to the sensitive images.
QFormLayout* SourceDialog::buildSourceForm() {
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(path_, 1);
    pathRow->addWidget(browseFile_);
    pathRow->addWidget(browseFolder_);
    auto* form = new QFormLayout;
    form->addRow(tr("Loader"), loader_);
    form->addRow(tr("Path"), pathRow);
    form->addRow(tr("Name"), name_);
    if (role_ == SourceRole::Sensitive) {
        userLevel_ = new QCheckBox(tr("User-level privacy (the privacy unit is a user, not an example)"));
        userLevel_->setObjectName("userLevel");
        form->addRow(QString(), userLevel_);
    } else {
        addFitRules(form);
    }
    return form;
}

// One model reads every image: a public source of another size or colour than the sensitive
// images says how it is converted (nothing is converted silently).
void SourceDialog::addFitRules(QFormLayout* form) {
    resize_ = new QComboBox;
    resize_->setObjectName("resizeRule");
    resize_->addItem(tr("as they are (same size as the sensitive images)"), QString());
    resize_->addItem(tr("resize to the sensitive images' size (bilinear)"), QStringLiteral("bilinear"));
    colour_ = new QComboBox;
    colour_->setObjectName("colourRule");
    colour_->addItem(tr("as they are (same channels)"), QString());
    colour_->addItem(tr("grey to RGB (copy the channel)"), QStringLiteral("replicate"));
    colour_->addItem(tr("RGB to grey (luminance)"), QStringLiteral("luminance"));
    const QString fitHelp =
        tr("Several public sources may differ in shape from the sensitive images; the "
           "project refuses one of another shape unless a rule here fits it.");
    resize_->setToolTip(fitHelp);
    colour_->setToolTip(fitHelp);
    form->addRow(tr("Size"), resize_);
    form->addRow(tr("Colour"), colour_);
    fitNote_ = new QLabel;
    fitNote_->setObjectName("fitNote");
    fitNote_->setWordWrap(true);
    fitNote_->setVisible(false);
    form->addRow(QString(), fitNote_);
    connect(resize_, &QComboBox::currentIndexChanged, this, [this] { updateFitNote(); });
    connect(colour_, &QComboBox::currentIndexChanged, this, [this] { updateFitNote(); });
}

// The form, the loader's options and the tasks on the left, the preview on the right.
void SourceDialog::layOutDialog(QFormLayout* form) {
    auto* optionsBox = new QGroupBox(tr("Loader options"));
    optionsBox->setLayout(optionForm_);
    auto* previewBox = new QGroupBox(tr("Preview"));
    auto* previewLayout = new QVBoxLayout(previewBox);
    previewLayout->addWidget(preview_);
    auto* tasksBox = new QGroupBox(role_ == SourceRole::Public ? tr("Public label tasks (mixture components)")
                                                               : tr("Sensitive label tasks (what the model predicts)"));
    auto* tasksLayout = new QVBoxLayout(tasksBox);
    tasksLayout->addWidget(tasks_);

    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(note_);
    leftLayout->addLayout(form);
    leftLayout->addWidget(optionsBox);
    leftLayout->addWidget(tasksBox, 1);
    auto* split = new QSplitter;
    split->addWidget(left);
    split->addWidget(previewBox);
    split->setStretchFactor(1, 1);
    split->setSizes({460, 640});  // the preview gets the room: thumbnails and the 64-digit hash

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(split, 1);
    layout->addWidget(problem_);
    layout->addWidget(buttons_);
    resize(1100, 680);
}

void SourceDialog::connectEdits() {
    connect(buttons_, &QDialogButtonBox::accepted, this, [this] {
        if (canAccept()) accept();
    });
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(loader_, &QComboBox::currentIndexChanged, this, &SourceDialog::onLoaderChanged);
    connect(path_, &QLineEdit::textEdited, this, &SourceDialog::onEdited);
    connect(name_, &QLineEdit::textEdited, this, [this] {
        nameEdited_ = true;
        updateOk();
    });
    connect(browseFile_, &QPushButton::clicked, this, [this] { browsePath(false); });
    connect(browseFolder_, &QPushButton::clicked, this, [this] { browsePath(true); });
    connect(tasks_, &TaskEditor::tasksChanged, this, &SourceDialog::updateOk);
    connect(debounce_, &QTimer::timeout, this, &SourceDialog::refreshPreview);
    connect(&watcher_, &QFutureWatcher<PreviewOutcome>::finished, this, &SourceDialog::onPreviewDone);
}

SourceDialog::~SourceDialog() {
    // A preview still loading uses the previewer and this dialog's pool: stop it and wait
    // (loaders poll the token between files).
    cancel_.cancel();
    pool_.clear();
    pool_.waitForDone();
}

QPushButton* SourceDialog::okButton() const { return buttons_->button(QDialogButtonBox::Ok); }

void SourceDialog::setNote(const QString& note) {
    note_->setText(note);
    note_->setVisible(!note.isEmpty());
}

void SourceDialog::setSource(const data::SourceSpec& source, bool userLevel) {
    const int index = loader_->findData(QString::fromStdString(source.loader));
    {
        const QSignalBlocker block(loader_);
        loader_->setCurrentIndex(index >= 0 ? index : 0);
    }
    extraOptions_.clear();
    const LoaderInfo* info = findLoader(loader_->currentData().toString());
    for (const auto& [key, value] : source.options) {
        const bool listed = info && std::any_of(info->options.begin(), info->options.end(),
                                                [&](const LoaderOption& o) { return o.key.toStdString() == key; });
        if (!listed) extraOptions_[key] = value;
    }
    rebuildOptionForm();
    for (const auto& [key, value] : source.options)
        if (QLineEdit* field = options_.value(QString::fromStdString(key)))
            field->setText(QString::fromStdString(value));
    path_->setText(QString::fromStdString(source.path));
    name_->setText(QString::fromStdString(source.name));
    nameEdited_ = !source.name.empty();
    if (userLevel_) userLevel_->setChecked(userLevel);
    refreshPreview();
}

void SourceDialog::setTasks(const std::vector<project::LabelTask>& tasks) {
    tasks_->setTasks(tasks);
    updateOk();
}

void SourceDialog::rebuildOptionForm() {
    while (optionForm_->rowCount() > 0) optionForm_->removeRow(0);
    options_.clear();
    const LoaderInfo* info = findLoader(loader_->currentData().toString());
    if (!info) return;
    browseFile_->setVisible(info->pathKind != PathKind::Folder);
    browseFolder_->setVisible(info->pathKind != PathKind::File);
    auto addRow = [this](const QString& key, const QString& label, const QString& hint, bool isPath) {
        auto* field = new QLineEdit;
        field->setObjectName(QStringLiteral("option_") + key);
        field->setPlaceholderText(hint);
        field->setToolTip(QStringLiteral("%1 (option \"%2\")").arg(hint, key));
        connect(field, &QLineEdit::textEdited, this, &SourceDialog::onEdited);
        options_.insert(key, field);
        if (!isPath) {
            optionForm_->addRow(label, field);
            return;
        }
        auto* row = new QWidget;
        auto* h = new QHBoxLayout(row);
        h->setContentsMargins(0, 0, 0, 0);
        h->addWidget(field, 1);
        auto* pick = new QPushButton(QStringLiteral("…"));
        pick->setToolTip(tr("Choose %1").arg(label.toLower()));
        connect(pick, &QPushButton::clicked, this, [this, key] { browseOption(key); });
        h->addWidget(pick);
        optionForm_->addRow(label, row);
    };
    for (const LoaderOption& o : info->options) addRow(o.key, o.label, o.hint, o.isPath);
    for (const auto& [key, value] : extraOptions_) {
        const QString k = QString::fromStdString(key);
        addRow(k, k, tr("option \"%1\"").arg(k), false);
        options_.value(k)->setText(QString::fromStdString(value));
    }
    if (QWidget* box = tasks_->parentWidget()) box->setVisible(info->images);  // tasks are unions of classes
}

void SourceDialog::onLoaderChanged() {
    extraOptions_.clear();
    rebuildOptionForm();
    // A DICOM folder names each image's patient: user level is proposed (docs/DATA.md, "DICOM studies").
    if (userLevel_ && loader_->currentData().toString() == QLatin1String("dicom")) userLevel_->setChecked(true);
    onEdited();
}

void SourceDialog::onEdited() {
    if (!nameEdited_ && !path_->text().trimmed().isEmpty()) {
        // The name a drop of this path would get ("fashion-mnist-t10k"), until the user types one.
        // A generic stem ("manifest") gives way to the folder's name, and a name the study
        // already has gets a "-2" suffix, so OK is not blocked by a clash the user did not make.
        const SourceGuess guess = guessSource(path_->text().trimmed());
        const QString proposed = !guess.source.name.empty() ? QString::fromStdString(guess.source.name)
                                                            : fileSourceName(path_->text().trimmed());
        name_->setText(uniqueSourceName(proposed, takenNames_));
    }
    updateOk();
    debounce_->start();
}

void SourceDialog::browsePath(bool folder) {
    const LoaderInfo* info = findLoader(loader_->currentData().toString());
    const QString start = path_->text().trimmed();
    // Every file shows first: a loader's own filter would hide the file the user came for (a
    // manifest labels.csv under the default IDX loader); choosePath then picks the loader for it.
    const QString filter = tr("All files (*)") + (info && !info->fileFilter.isEmpty() ? ";;" + info->fileFilter : "");
    const QString chosen = folder ? QFileDialog::getExistingDirectory(this, tr("Choose the data folder"), start)
                                  : QFileDialog::getOpenFileName(this, tr("Choose the data file"), start, filter);
    if (!chosen.isEmpty()) choosePath(chosen);
}

void SourceDialog::choosePath(const QString& chosen) {
    const SourceGuess guess = guessSource(chosen);
    const QString guessed = QString::fromStdString(guess.source.loader);
    if (!guessed.isEmpty() && guessed != loader_->currentData().toString()) {
        if (const int index = loader_->findData(guessed); index >= 0) {
            const QString before = loader_->currentText();
            loader_->setCurrentIndex(index);
            setNote(tr("%1 is not read by “%2”: the loader is now “%3” (%4).")
                        .arg(QFileInfo(chosen).fileName(), before, loader_->currentText(), guess.reason));
        } else {
            setNote(tr("%1 looks like data for another kind of source (%2); this source's loaders cannot read it.")
                        .arg(QFileInfo(chosen).fileName(), guess.reason));
        }
    }
    path_->setText(chosen);
    // Options the guess knows for this loader (the IDX label file next to the images) fill
    // fields the user left empty.
    if (guess.source.loader == loader_->currentData().toString().toStdString())
        for (const auto& [key, value] : guess.source.options)
            if (QLineEdit* field = options_.value(QString::fromStdString(key));
                field && field->text().trimmed().isEmpty())
                field->setText(QString::fromStdString(value));
    onEdited();
}

void SourceDialog::browseOption(const QString& key) {
    QLineEdit* field = options_.value(key);
    if (!field) return;
    const QString dir = QFileInfo(path_->text().trimmed()).absolutePath();
    const QString chosen = key == QStringLiteral("image_root")
                               ? QFileDialog::getExistingDirectory(this, tr("Choose the image folder"), dir)
                               : QFileDialog::getOpenFileName(this, tr("Choose the file"), dir);
    if (chosen.isEmpty()) return;
    // Next to the main file, write the bare name (as specs do); elsewhere the absolute path.
    const QFileInfo picked(chosen);
    field->setText(picked.absolutePath() == dir ? picked.fileName() : picked.absoluteFilePath());
    onEdited();
}

data::SourceSpec SourceDialog::currentSpec() const {
    data::SourceSpec spec;
    spec.name = name_->text().trimmed().toStdString();
    spec.loader = loader_->currentData().toString().toStdString();
    const QString path = path_->text().trimmed();
    if (!path.isEmpty()) spec.path = QFileInfo(path).absoluteFilePath().toStdString();
    for (auto it = options_.cbegin(); it != options_.cend(); ++it) {
        const QString value = it.value()->text().trimmed();
        if (!value.isEmpty()) spec.options[it.key().toStdString()] = value.toStdString();
    }
    return spec;
}

void SourceDialog::refreshPreview() {
    debounce_->stop();
    cancel_.cancel();  // a load of the previous values is no longer wanted
    cancel_ = CancellationToken{};
    shown_.reset();
    previewedSpec_.reset();
    data::SourceSpec spec = currentSpec();
    if (spec.path.empty()) {
        loading_ = false;
        preview_->clear(tr("Choose a path to see a preview."));
        updateOk();
        return;
    }
    if (spec.name.empty()) spec.name = "(unnamed)";
    const quint64 generation = ++generation_;
    loading_ = true;
    preview_->showLoading(QString::fromStdString(spec.path));
    updateOk();
    const SourcePreviewer* previewer = previewer_;
    const CancellationToken token = cancel_;
    watcher_.setFuture(QtConcurrent::run(&pool_, [previewer, spec, token, generation] {
        PreviewOutcome out;
        out.generation = generation;
        if (token.isCancelled()) {
            out.cancelled = true;
            return out;
        }
        try {
            auto result = previewer->preview(spec, token);
            if (result)
                out.preview = std::move(result).value();
            else
                out.error = QString::fromStdString(result.error().message);
        } catch (const Cancelled&) {
            out.cancelled = true;
        } catch (const std::exception& e) {
            out.error = QString::fromStdString(e.what());
        }
        return out;
    }));
    previewedSpec_ = spec;
}

void SourceDialog::onPreviewDone() {
    const PreviewOutcome out = watcher_.future().result();
    if (out.generation != generation_ || out.cancelled) return;  // superseded
    loading_ = false;
    if (out.preview) {
        shown_ = out.preview;
        preview_->showPreview(*out.preview);
        tasks_->setClassNames(toQStringList(out.preview->facts.labelNames));
        updateFitNote();
    } else {
        previewedSpec_.reset();
        preview_->showError(out.error);
        tasks_->setClassNames({});
    }
    updateOk();
    Q_EMIT previewFinished();
}

bool SourceDialog::previewPending() const { return loading_ || debounce_->isActive(); }

bool SourceDialog::canAccept() const {
    if (!shown_ || !previewedSpec_ || previewPending() || !shown_->loadError.isEmpty()) return false;
    const data::SourceSpec spec = currentSpec();
    return !spec.name.empty() && !takenNames_.contains(QString::fromStdString(spec.name)) &&
           sameData(spec, *previewedSpec_);
}

void SourceDialog::updateOk() {
    QString problem;
    const QString name = name_->text().trimmed();
    if (name.isEmpty())
        problem = tr("Give the source a name.");
    else if (takenNames_.contains(name))
        problem = tr("The study already has a source named \"%1\": choose another name.").arg(name);
    else if (previewPending())
        problem = tr("OK is enabled once the preview has loaded.");
    else if (!shown_)
        problem = tr("OK is enabled once the source loads without an error.");
    problem_->setText(problem);
    okButton()->setEnabled(canAccept());
}

void SourceDialog::setStudyShape(int channels, int height, int width) {
    studyChannels_ = channels;
    studyHeight_ = height;
    studyWidth_ = width;
    updateFitNote();
}

QString SourceDialog::fitAdvice() const {
    if (!resize_ || !shown_ || studyHeight_ <= 0 || shown_->facts.kind != data::SourceKind::Images) return {};
    const auto& f = shown_->facts;
    auto shape = [](int c, int h, int w) { return QStringLiteral("%1×%2×%3").arg(c).arg(h).arg(w); };
    // The data layer's rule (the one the loader and `dpmix new` apply), in the dialog's words.
    const data::FitNeeds fit =
        data::fitNeeds({f.channels, f.height, f.width}, {studyChannels_, studyHeight_, studyWidth_});
    const auto chosenColour = data::parseColourRule(colour_->currentData().toString().toStdString());
    QStringList needs;
    if (fit.resize && resize_->currentData().toString().isEmpty()) needs << tr("Size: resize");
    if (!fit.convertible)
        needs << tr("a source with %1 channels (no colour rule converts it)").arg(f.channels);
    else if (fit.colour != data::ColourRule::None && (!chosenColour || *chosenColour != fit.colour))
        needs << (fit.colour == data::ColourRule::Replicate ? tr("Colour: grey to RGB") : tr("Colour: RGB to grey"));
    if (needs.isEmpty()) return {};
    return tr("These images are %1, the sensitive images %2: choose %3, or the study cannot be saved.")
        .arg(shape(f.channels, f.height, f.width), shape(studyChannels_, studyHeight_, studyWidth_),
             needs.join(tr(" and ")));
}

void SourceDialog::updateFitNote() {
    if (!fitNote_) return;
    const QString advice = fitAdvice();
    fitNote_->setText(advice);
    fitNote_->setStyleSheet(QStringLiteral("color: #a05a00;"));
    fitNote_->setVisible(!advice.isEmpty());
}

void SourceDialog::setFit(const std::string& resize, const std::string& colour) {
    if (resize_) resize_->setCurrentIndex(std::max(0, resize_->findData(QString::fromStdString(resize))));
    if (colour_) colour_->setCurrentIndex(std::max(0, colour_->findData(QString::fromStdString(colour))));
}

SourceRegistration SourceDialog::registration() const {
    SourceRegistration r;
    r.source = currentSpec();
    r.userLevel = userLevel_ && userLevel_->isChecked();
    if (resize_) r.resize = resize_->currentData().toString().toStdString();
    if (colour_) r.colour = colour_->currentData().toString().toStdString();
    if (shown_) r.facts = shown_->facts;
    return r;
}

std::vector<project::LabelTask> SourceDialog::tasks() const { return tasks_->tasks(); }

}  // namespace dpmix::workbench
