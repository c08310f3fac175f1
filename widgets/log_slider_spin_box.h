#pragma once
// A positive value on a log scale: a slider (equal travel per decade, for values like ε that
// span 0.1 … 100) beside a spin box for exact typing. Both stay in step.
#include <QWidget>

class QSlider;
class QDoubleSpinBox;

namespace dpmix::widgets {

class LogSliderSpinBox : public QWidget {
    Q_OBJECT

public:
    LogSliderSpinBox(double minimum, double maximum, int decimals, QWidget* parent = nullptr);

    double value() const;
    /// Programmatic set: moves both controls without emitting valueEdited.
    void setValue(double value);

    QSlider* slider() const { return slider_; }
    QDoubleSpinBox* spinBox() const { return spin_; }

    /// Slider position (0 … kSteps) for a value, and back; exposed for tests.
    int positionFor(double value) const;
    double valueAt(int position) const;
    static constexpr int kSteps = 1000;

Q_SIGNALS:
    /// The user changed the value (typing, arrows, or dragging the slider).
    void valueEdited(double value);

private:
    double logMin_, logMax_;
    QSlider* slider_;
    QDoubleSpinBox* spin_;
    bool syncing_ = false;
};

}  // namespace dpmix::widgets
