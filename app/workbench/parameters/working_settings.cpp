#include "app/workbench/parameters/working_settings.h"

#include <QJsonValue>

#include <cmath>

namespace dpmix::workbench {

using widgets::ParameterField;

namespace {

// Every field but n, in panel order.
QList<ParameterField> storedFields() {
    QList<ParameterField> fields;
    for (int f = static_cast<int>(ParameterField::Epsilon); f <= static_cast<int>(widgets::kLastParameterField); ++f)
        if (static_cast<ParameterField>(f) != ParameterField::SensitiveCount) fields << static_cast<ParameterField>(f);
    return fields;
}

// The JSON value in the field's own type, or an invalid QVariant when it has another type.
QVariant typedValue(const QJsonValue& json, const QVariant& current) {
    switch (current.typeId()) {
        case QMetaType::Bool: return json.isBool() ? QVariant(json.toBool()) : QVariant();
        case QMetaType::QString: return json.isString() ? QVariant(json.toString()) : QVariant();
        case QMetaType::Double: return json.isDouble() ? QVariant(json.toDouble()) : QVariant();
        case QMetaType::Int: {
            const double v = json.toDouble();
            const bool whole = json.isDouble() && std::fabs(v) < 2e9 && v == std::floor(v);
            return whole ? QVariant(static_cast<int>(v)) : QVariant();
        }
        default: return {};
    }
}

}  // namespace

QJsonObject workingSettingsJson(const widgets::RunParameters& parameters) {
    QJsonObject json;
    for (ParameterField f : storedFields())
        json.insert(widgets::fieldKey(f), QJsonValue::fromVariant(widgets::fieldValue(parameters, f)));
    return json;
}

widgets::RunParameters withWorkingSettings(widgets::RunParameters base, const QJsonObject& settings,
                                           QStringList* ignored) {
    QStringList known;
    for (ParameterField f : storedFields()) {
        const QString key = widgets::fieldKey(f);
        known << key;
        if (!settings.contains(key)) continue;
        const QVariant value = typedValue(settings.value(key), widgets::fieldValue(base, f));
        if (!value.isValid() || !widgets::setFieldValue(base, f, value))
            if (ignored) *ignored << key;
    }
    if (ignored)
        for (const QString& key : settings.keys())
            if (!known.contains(key)) *ignored << key;
    return base;
}

}  // namespace dpmix::workbench
