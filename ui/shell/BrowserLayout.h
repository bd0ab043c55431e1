// The parts the two entry browsers (the native store's and the cache
// server's) share: a filter bar over a table of rows, a details pane under
// the table, and the table's context menu.
#pragma once
#include <QList>

class QAction;
class QLabel;
class QLineEdit;
class QTableView;
class QTimer;
class QVBoxLayout;
class QWidget;

namespace ui {

// Row selection, alternating colours, no word wrap, no row numbers, fixed
// row heights (the view never asks for every row's size, so only the visible
// pages are fetched), interactive columns with the last one stretched,
// sorting by header click.
void setUpRowTable(QTableView* table);

// A line "[filter……………] count" on top of layout; the filter edit gets the
// object name "keyFilter" (tests and the screenshot tour find it by that).
// Typing restarts timer (single shot, delayMs): connect its timeout to what
// applies the filter.
void addFilterBar(QVBoxLayout* layout, QLineEdit* filter, QLabel* count, QTimer* timer, const QString& placeholder,
                  int delayMs);

// table above pane in a vertical splitter (3 : 2) that fills the rest of layout.
void addTableOverPane(QVBoxLayout* layout, QTableView* table, QWidget* pane);

// A right click on the table pops up *actions (read at the time of the
// click; nothing when empty).
void showContextMenuOf(QTableView* table, const QList<QAction*>* actions);

} // namespace ui
