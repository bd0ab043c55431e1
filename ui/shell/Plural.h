// "1 range", "0 ranges", "12,345 ranges": a count in the locale's digits
// followed by the noun in the number English needs. The texts have no
// translation catalogue, so tr("%n range(s)") would show "1 range(s)".
#pragma once
#include <QLocale>
#include <QString>

namespace ui {

inline QString counted(qint64 n, const char* one, const char* many)
{
    return QLocale().toString(n) + QLatin1Char(' ') + QString::fromUtf8(n == 1 ? one : many);
}

} // namespace ui
