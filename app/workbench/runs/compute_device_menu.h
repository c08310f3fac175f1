#pragma once
// Run ▸ Compute device: where the workbench's runs train their models — Automatic (CUDA when
// this LibTorch build sees a GPU, else the CPU), CPU, or CUDA (disabled without a GPU). An
// application preference, kept in QSettings, not a project edit; each run records the device it
// used in its config (docs/GPU.md).
#include <QMenu>

class QActionGroup;

namespace dpmix::workbench {

class RunController;

class ComputeDeviceMenu : public QMenu {
    Q_OBJECT

public:
    /// `runs` (not owned) gets the stored choice now and every later one.
    ComputeDeviceMenu(RunController* runs, bool cudaAvailable, QWidget* parent = nullptr);

    /// "auto", "cpu" or "cuda".
    QString device() const;
    void setDevice(const QString& device);

Q_SIGNALS:
    void deviceChanged(const QString& device);

private:
    RunController* runs_;
    QActionGroup* group_;
};

}  // namespace dpmix::workbench
