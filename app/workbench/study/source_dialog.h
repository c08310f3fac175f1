#pragma once
// "Add public source…" / "Set sensitive data…": choose a loader, pick the path with a file
// dialog, set the loader's options, and see a preview loaded off the GUI thread (thumbnails or
// text snippets, the example count, label names, the content hash). The loader's error is shown
// in place, and OK stays disabled until the source as written has loaded. Label tasks for the
// role are edited in the same dialog.
#include "app/workbench/study/source_preview.h"
#include "app/workbench/study/study_builder.h"

#include <QDialog>
#include <QFuture>
#include <QFutureWatcher>
#include <QMap>
#include <QThreadPool>

#include <optional>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QTimer;

namespace dpmix::workbench {

class SourcePreviewWidget;
class TaskEditor;

/// What one preview run produced (default-constructible, for QFuture).
struct PreviewOutcome {
    quint64 generation = 0;
    std::optional<SourcePreview> preview;
    QString error;
    bool cancelled = false;
};

class SourceDialog : public QDialog {
    Q_OBJECT

public:
    /// `previewer` must outlive the dialog. `takenNames`: names of the study's other sources.
    SourceDialog(SourceRole role, const SourcePreviewer* previewer, QStringList takenNames, QWidget* parent = nullptr);
    ~SourceDialog() override;

    SourceRole role() const { return role_; }
    /// Prefills the form (a drop, or editing a registered source); starts a preview.
    void setSource(const data::SourceSpec& source, bool userLevel = false);
    void setTasks(const std::vector<project::LabelTask>& tasks);
    /// Shown above the form (e.g. why a dropped file got this loader).
    void setNote(const QString& note);
    /// A data file or folder the user picked (File… / Folder…): fills the path, and when the file is
    /// of another kind than the chosen loader reads (a CSV manifest under "IDX images"), switches to
    /// the loader that reads it and says so in the note.
    void choosePath(const QString& path);
    /// Public sources: how their images are fitted to the study's shape ("" = as they are;
    /// "bilinear"; "replicate" / "luminance"), docs/METHODS.md "Several public sources".
    void setFit(const std::string& resize, const std::string& colour);
    /// Public sources: the sensitive images' shape (channels, height, width), so the dialog can say
    /// when this source's images differ from it and which rule fits them (empty: not known yet).
    void setStudyShape(int channels, int height, int width);
    /// The line under Size/Colour: empty, or what differs and the rule that fits it.
    QString fitAdvice() const;

    /// The source as the form says now (path made absolute).
    data::SourceSpec currentSpec() const;
    /// Valid once accepted (or whenever OK is enabled).
    SourceRegistration registration() const;
    std::vector<project::LabelTask> tasks() const;

    /// Starts the preview now instead of after the typing pause.
    void refreshPreview();
    /// True while a preview is loading or waiting for the typing pause (tests wait on this).
    bool previewPending() const;
    bool canAccept() const;

    // Parts, for tests and screenshots.
    QComboBox* loaderBox() const { return loader_; }
    QComboBox* resizeBox() const { return resize_; }
    QComboBox* colourBox() const { return colour_; }
    QLineEdit* nameField() const { return name_; }
    QLineEdit* pathField() const { return path_; }
    QLineEdit* optionField(const QString& key) const { return options_.value(key, nullptr); }
    QPushButton* okButton() const;
    SourcePreviewWidget* previewWidget() const { return preview_; }
    TaskEditor* taskEditor() const { return tasks_; }

Q_SIGNALS:
    /// A preview finished and was shown (successfully or with an error).
    void previewFinished();

private:
    QFormLayout* buildSourceForm();
    void addFitRules(QFormLayout* form);
    void layOutDialog(QFormLayout* form);
    void connectEdits();
    void rebuildOptionForm();
    void onLoaderChanged();
    void onEdited();
    void onPreviewDone();
    void browsePath(bool folder);
    void browseOption(const QString& key);
    void updateOk();

    SourceRole role_;
    const SourcePreviewer* previewer_;
    QStringList takenNames_;
    QLabel* note_;
    QLineEdit* name_;
    QComboBox* loader_;
    QLineEdit* path_;
    QPushButton* browseFile_;
    QPushButton* browseFolder_;
    QCheckBox* userLevel_ = nullptr;
    QComboBox* resize_ = nullptr;                               // public only
    QComboBox* colour_ = nullptr;                               // public only
    QLabel* fitNote_ = nullptr;                                 // public only
    int studyChannels_ = 0, studyHeight_ = 0, studyWidth_ = 0;  // 0: unknown
    void updateFitNote();
    QFormLayout* optionForm_;
    QMap<QString, QLineEdit*> options_;
    std::map<std::string, std::string> extraOptions_;  // prefilled options the catalog does not list
    SourcePreviewWidget* preview_;
    TaskEditor* tasks_;
    QLabel* problem_;
    QDialogButtonBox* buttons_;
    QTimer* debounce_;

    QThreadPool pool_;  // one thread: previews run one at a time
    QFutureWatcher<PreviewOutcome> watcher_;
    CancellationToken cancel_;
    quint64 generation_ = 0;
    bool loading_ = false;
    std::optional<SourcePreview> shown_;  // the preview of previewedSpec_
    std::optional<data::SourceSpec> previewedSpec_;
    bool nameEdited_ = false;
};

}  // namespace dpmix::workbench
