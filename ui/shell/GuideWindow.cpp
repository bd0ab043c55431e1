#include "ui/shell/GuideWindow.h"

#include <QDialogButtonBox>
#include <QGuiApplication>
#include <QImage>
#include <QPushButton>
#include <QScreen>
#include <QTextBrowser>
#include <QVBoxLayout>

// The guide lives in the static cachescope_ui library: register it by hand
// (outside any namespace).
static void initGuideResource()
{
    Q_INIT_RESOURCE(guide);
}

namespace ui {

namespace {
// Screenshots are taken at window size; shown scaled down to the page width
// so the guide never scrolls sideways.
class GuideBrowser : public QTextBrowser {
public:
    using QTextBrowser::QTextBrowser;
    int maxImageWidth = 900;
    QVariant loadResource(int type, const QUrl& name) override
    {
        QVariant v = QTextBrowser::loadResource(type, name);
        if (type != QTextDocument::ImageResource)
            return v;
        QImage image = v.value<QImage>();
        if (image.isNull())
            image.loadFromData(v.toByteArray());
        const int width = qMax(320, maxImageWidth);
        if (!image.isNull() && image.width() > width)
            return image.scaledToWidth(width, Qt::SmoothTransformation);
        return image.isNull() ? v : QVariant(image);
    }
};
} // namespace

GuideWindow::GuideWindow(QWidget* parent) : QDialog(parent)
{
    initGuideResource();
    // Large enough to read a screenshot, never larger than the screen.
    QSize size(980, 760);
    if (const QScreen* screen = parent ? parent->screen() : QGuiApplication::primaryScreen())
        size = size.boundedTo(screen->availableGeometry().size() * 0.9);
    resize(size);
    auto* browser = new GuideBrowser(this);
    browser->maxImageWidth = size.width() - 80;
    browser_ = browser;

    setWindowTitle(tr("cachescope User Guide"));
    setWindowFlag(Qt::WindowMaximizeButtonHint);
    setSizeGripEnabled(true);
    browser_->setObjectName(QStringLiteral("guideBrowser"));
    browser_->setOpenExternalLinks(true);
    // setSource with a .md URL parses the file as Markdown and resolves the
    // screenshots (screenshots/x.png) relative to it, inside the resource.
    browser_->setSource(QUrl(QString::fromLatin1(kGuideUrl)), QTextDocument::MarkdownResource);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* back = buttons->addButton(tr("Back"), QDialogButtonBox::ActionRole);
    back->setEnabled(false);
    connect(browser_, &QTextBrowser::backwardAvailable, back, &QPushButton::setEnabled);
    connect(back, &QPushButton::clicked, browser_, &QTextBrowser::backward);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(browser_, 1);
    layout->addWidget(buttons);
}

} // namespace ui
