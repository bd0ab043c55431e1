#include "ui/shell/Shortcuts.h"

#include <QAction>

namespace ui {

QList<QKeySequence> shortcutsFor(const QKeySequence& primary, QKeySequence::StandardKey standard)
{
    QList<QKeySequence> keys{primary};
    if (standard != QKeySequence::UnknownKey)
        for (const QKeySequence& k : QKeySequence::keyBindings(standard))
            if (!k.isEmpty() && !keys.contains(k))
                keys << k;
    return keys;
}

void setShortcuts(QAction* action, const QKeySequence& primary, QKeySequence::StandardKey standard)
{
    action->setShortcuts(shortcutsFor(primary, standard));
}

} // namespace ui
