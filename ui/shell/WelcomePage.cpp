#include "ui/shell/WelcomePage.h"

#include "ui/shell/RecentFiles.h"

#include <QDir>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace ui {

WelcomePage::WelcomePage(RecentFiles* recent, QWidget* parent) : QWidget(parent), recent_(recent), recentLabel_(new QLabel(this))
{
    auto* title = new QLabel(tr("<h2>cachescope</h2>"
                                "<p>Open a zstd file to see its frame layout, or a store folder to browse its entries.<br>"
                                "You can also drop files and folders on this window.</p>"),
                             this);
    title->setAlignment(Qt::AlignCenter);
    auto* openFile = new QPushButton(tr("Open File…"), this);
    auto* openStore = new QPushButton(tr("Open Store Folder…"), this);
    connect(openFile, &QPushButton::clicked, this, &WelcomePage::openFileRequested);
    connect(openStore, &QPushButton::clicked, this, &WelcomePage::openStoreRequested);
    recentLabel_->setAlignment(Qt::AlignCenter);
    recentLabel_->setTextFormat(Qt::RichText);
    connect(recentLabel_, &QLabel::linkActivated, this, &WelcomePage::openPathRequested);

    auto* buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(openFile);
    buttons->addWidget(openStore);
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->addStretch(2);
    layout->addWidget(title);
    layout->addLayout(buttons);
    layout->addSpacing(16);
    layout->addWidget(recentLabel_);
    layout->addStretch(3);
}

void WelcomePage::showEvent(QShowEvent* event)
{
    refresh();
    QWidget::showEvent(event);
}

void WelcomePage::refresh()
{
    const QStringList paths = recent_->paths();
    if (paths.isEmpty()) {
        recentLabel_->clear();
        return;
    }
    QString html = tr("<b>Recent</b><br>");
    for (const QString& p : paths)
        html += QStringLiteral("<a href=\"%1\">%2</a><br>").arg(p.toHtmlEscaped(), QDir::toNativeSeparators(p).toHtmlEscaped());
    recentLabel_->setText(html);
}

} // namespace ui
