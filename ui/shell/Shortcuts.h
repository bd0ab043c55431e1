// Keyboard shortcuts that are the same under every platform theme.
//
// QKeySequence::StandardKey resolves through the platform theme: under the
// generic X11 theme, qt6ct or KDE, Quit maps to nothing and Close to Ctrl+F4,
// so a user of one desktop finds keys missing that another one has. Every
// shell action therefore gets an explicit primary key (what the menus show),
// and the theme's own bindings, when different, stay as secondary keys.
#pragma once
#include <QKeySequence>
#include <QList>

class QAction;

namespace ui {

// primary first, then the theme's keys for standard (none when NoStandardKey)
// that are not primary; duplicates removed.
QList<QKeySequence> shortcutsFor(const QKeySequence& primary,
                                 QKeySequence::StandardKey standard = QKeySequence::UnknownKey);
void setShortcuts(QAction* action, const QKeySequence& primary,
                  QKeySequence::StandardKey standard = QKeySequence::UnknownKey);

} // namespace ui
