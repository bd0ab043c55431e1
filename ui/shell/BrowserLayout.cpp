#include "ui/shell/BrowserLayout.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace ui {

void setUpRowTable(QTableView* table)
{
    table->setSortingEnabled(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    table->verticalHeader()->hide();
    table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    table->horizontalHeader()->setStretchLastSection(true);
}

void addFilterBar(QVBoxLayout* layout, QLineEdit* filter, QLabel* count, QTimer* timer, const QString& placeholder,
                  int delayMs)
{
    auto* top = new QHBoxLayout;
    filter->setPlaceholderText(placeholder);
    filter->setClearButtonEnabled(true);
    filter->setObjectName(QStringLiteral("keyFilter"));
    top->addWidget(filter, 1);
    top->addWidget(count);
    layout->addLayout(top);
    timer->setSingleShot(true);
    timer->setInterval(delayMs);
    QObject::connect(filter, &QLineEdit::textChanged, timer, qOverload<>(&QTimer::start));
}

void addTableOverPane(QVBoxLayout* layout, QTableView* table, QWidget* pane)
{
    auto* splitter = new QSplitter(Qt::Vertical, layout->parentWidget());
    splitter->addWidget(table);
    splitter->addWidget(pane);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setChildrenCollapsible(false);
    layout->addWidget(splitter, 1);
}

void showContextMenuOf(QTableView* table, const QList<QAction*>* actions)
{
    table->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(table, &QTableView::customContextMenuRequested, table, [table, actions](const QPoint& pos) {
        if (actions->isEmpty())
            return;
        QMenu* menu = new QMenu(table);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->addActions(*actions);
        menu->popup(table->viewport()->mapToGlobal(pos));
    });
}

} // namespace ui
