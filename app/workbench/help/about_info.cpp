#include "app/workbench/help/about_info.h"

#include <QObject>

namespace dpmix::workbench {

QString aboutHtml(const AboutInfo& info) {
    return QObject::tr(
               "<h3>dpmix workbench %1</h3>"
               "<p>Differentially private learning with public data: learn how to mix public sources "
               "with DP-MixMin, then fine-tune privately.</p>"
               "<table>"
               "<tr><td>Qt</td><td>%2</td></tr>"
               "<tr><td>LibTorch</td><td>%3</td></tr>"
               "<tr><td>Project file schema</td><td>%4</td></tr>"
               "</table>")
        .arg(info.appVersion.toHtmlEscaped(), info.qtVersion.toHtmlEscaped(), info.torchVersion.toHtmlEscaped(),
             info.schemaVersion.toHtmlEscaped());
}

}  // namespace dpmix::workbench
