#include "ui/gc/GcFormat.h"

#include "core/util/Units.h"

#include <QLocale>

namespace ui::gcfmt {

QString size(uint64_t bytes)
{
    return QString::fromStdString(cs::formatSize(bytes));
}

QString count(uint64_t n)
{
    return QLocale(QLocale::English).toString(qulonglong(n));
}

QString offset(uint64_t o)
{
    return QStringLiteral("0x%1 (%2)").arg(o, 0, 16).arg(count(o));
}

QString seconds(double s)
{
    if (s < 1.0)
        return QStringLiteral("%1 ms").arg(s * 1000.0, 0, 'f', s < 0.01 ? 2 : 1);
    return QStringLiteral("%1 s").arg(s, 0, 'f', 2);
}

QString percent(double p)
{
    if (p < 0)
        return QStringLiteral("n/a");
    return QStringLiteral("%1 %").arg(p, 0, 'f', 1);
}

} // namespace ui::gcfmt
