#include "widgets/log_slider_spin_box.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSlider>

#include <algorithm>
#include <cmath>

namespace dpmix::widgets {

LogSliderSpinBox::LogSliderSpinBox(double minimum, double maximum, int decimals, QWidget* parent)
    : QWidget(parent),
      logMin_(std::log10(minimum)),
      logMax_(std::log10(maximum)),
      slider_(new QSlider(Qt::Horizontal, this)),
      spin_(new QDoubleSpinBox(this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(slider_, 1);
    layout->addWidget(spin_);
    slider_->setRange(0, kSteps);
    slider_->setMinimumWidth(90);
    spin_->setRange(minimum, maximum);
    spin_->setDecimals(decimals);
    spin_->setKeyboardTracking(true);  // every keystroke counts: the calculator updates as you type
    spin_->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
    spin_->setMinimumWidth(80);
    setFocusProxy(spin_);

    connect(spin_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        if (syncing_) return;
        syncing_ = true;
        slider_->setValue(positionFor(v));
        syncing_ = false;
        Q_EMIT valueEdited(v);
    });
    connect(slider_, &QSlider::valueChanged, this, [this](int position) {
        if (syncing_) return;
        syncing_ = true;
        spin_->setValue(valueAt(position));
        syncing_ = false;
        Q_EMIT valueEdited(spin_->value());
    });
}

double LogSliderSpinBox::value() const { return spin_->value(); }

void LogSliderSpinBox::setValue(double value) {
    syncing_ = true;
    spin_->setValue(value);
    slider_->setValue(positionFor(spin_->value()));
    syncing_ = false;
}

int LogSliderSpinBox::positionFor(double value) const {
    if (!(value > 0.0)) return 0;
    const double t = (std::log10(value) - logMin_) / (logMax_ - logMin_);
    return static_cast<int>(std::lround(std::clamp(t, 0.0, 1.0) * kSteps));
}

double LogSliderSpinBox::valueAt(int position) const {
    const double t = static_cast<double>(std::clamp(position, 0, kSteps)) / kSteps;
    return std::pow(10.0, logMin_ + t * (logMax_ - logMin_));
}

}  // namespace dpmix::widgets
