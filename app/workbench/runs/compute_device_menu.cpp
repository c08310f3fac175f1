#include "app/workbench/runs/compute_device_menu.h"

#include "app/workbench/runs/run_controller.h"

#include <QActionGroup>
#include <QSettings>

namespace dpmix::workbench {
namespace {

const char* const kSettingsKey = "run/device";

}  // namespace

ComputeDeviceMenu::ComputeDeviceMenu(RunController* runs, bool cudaAvailable, QWidget* parent)
    : QMenu(tr("Compute &device"), parent), runs_(runs), group_(new QActionGroup(this)) {
    setObjectName("computeDeviceMenu");
    setToolTipsVisible(true);
    struct Choice {
        QString device, label, tip;
    };
    const QList<Choice> choices{
        {"auto", tr("&Automatic"), tr("CUDA when this build sees a GPU, otherwise the CPU")},
        {"cpu", tr("&CPU"), tr("Train every model on the CPU")},
        {"cuda", tr("C&UDA GPU"),
         cudaAvailable ? tr("Train every model on the first CUDA GPU")
                       : tr("No CUDA GPU is available to this build (docs/GPU.md: building against a CUDA LibTorch)")}};
    for (const Choice& c : choices) {
        QAction* action = addAction(c.label);
        action->setObjectName("device_" + c.device);
        action->setData(c.device);
        action->setToolTip(c.tip);
        action->setStatusTip(c.tip);
        action->setCheckable(true);
        action->setEnabled(c.device != "cuda" || cudaAvailable);
        group_->addAction(action);
    }
    QString stored = QSettings().value(kSettingsKey, "auto").toString();
    if (stored == "cuda" && !cudaAvailable) stored = "auto";  // a GPU that is gone: back to the default
    setDevice(stored);
    connect(group_, &QActionGroup::triggered, this, [this](QAction* action) {
        const QString device = action->data().toString();
        QSettings().setValue(kSettingsKey, device);
        if (runs_) runs_->setComputeDevice(device);
        Q_EMIT deviceChanged(device);
    });
}

QString ComputeDeviceMenu::device() const {
    const QAction* checked = group_->checkedAction();
    return checked ? checked->data().toString() : QStringLiteral("auto");
}

void ComputeDeviceMenu::setDevice(const QString& device) {
    for (QAction* action : group_->actions())
        if (action->data().toString() == device && action->isEnabled()) action->setChecked(true);
    if (runs_) runs_->setComputeDevice(this->device());
}

}  // namespace dpmix::workbench
