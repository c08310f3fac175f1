#include "engine/core/malloc_tuning.h"

#include <QApplication>
#include <QMainWindow>

int main(int argc, char** argv) {
    dpmix::tuneMallocForTraining();
    QApplication app(argc, argv);
    QMainWindow window;
    window.setWindowTitle("dpmix workbench");
    window.show();
    return app.exec();
}
