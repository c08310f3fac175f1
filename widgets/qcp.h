#pragma once
// The only place that includes qcustomplot.h. The project builds with QT_NO_KEYWORDS (Qt's
// `signals`/`slots` macros clash with LibTorch), but QCustomPlot's header uses `signals:` and
// `foreach`; map them to the Q_ forms for the duration of the include (docs/DEVELOPING.md,
// "Qt keywords and LibTorch").
#include <QtCore/qglobal.h>
#if defined(QT_NO_KEYWORDS) || defined(QT_NO_SIGNALS_SLOTS_KEYWORDS)
#define signals Q_SIGNALS
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef foreach
#else
#include <qcustomplot.h>
#endif
