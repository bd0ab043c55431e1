#include "ui/frames/FrameSummaryPanel.h"
#include "ui/shell/Plural.h"

#include "ui/frames/FrameCategory.h"

#include <QGridLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

namespace ui {

FrameSummaryPanel::FrameSummaryPanel(QWidget* parent) : QWidget(parent), verdict_(new QLabel(this))
{
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    verdict_->setWordWrap(true);
    verdict_->setTextFormat(Qt::PlainText);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    verdict_->setMargin(6);
    verdict_->setAutoFillBackground(true);
    QFont bold = verdict_->font();
    bold.setBold(true);
    verdict_->setFont(bold);
    outer->addWidget(verdict_);

    auto* grid = new QGridLayout;
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(2);
    frames_ = addFigure(grid, 0, 0, tr("Frames"));
    sized_ = addFigure(grid, 1, 0, tr("Sized / unsized"));
    largest_ = addFigure(grid, 2, 0, tr("Largest frame"));
    compressed_ = addFigure(grid, 0, 2, tr("Compressed"));
    content_ = addFigure(grid, 1, 2, tr("Content"));
    ratio_ = addFigure(grid, 2, 2, tr("Ratio"));
    seekTable_ = addFigure(grid, 0, 4, tr("Seek table"));
    checksums_ = addFigure(grid, 1, 4, tr("Checksums"));
    grid->setColumnStretch(5, 1);
    outer->addLayout(grid);
    clear();
}

QLabel* FrameSummaryPanel::addFigure(QGridLayout* grid, int row, int column, const QString& name)
{
    auto* label = new QLabel(name + QLatin1Char(':'), this);
    label->setForegroundRole(QPalette::PlaceholderText);
    auto* value = new QLabel(this);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    grid->addWidget(label, row, column);
    grid->addWidget(value, row, column + 1);
    return value;
}

void FrameSummaryPanel::clear()
{
    verdict_->setText(tr("Scanning…"));
    verdict_->setPalette(palette());
    for (QLabel* l : {frames_, sized_, compressed_, content_, ratio_, largest_, seekTable_, checksums_})
        l->setText(QStringLiteral("–"));
}

void FrameSummaryPanel::showError(const QString& message)
{
    verdict_->setText(message);
    QPalette p = palette();
    p.setColor(QPalette::Window, QColor(0xe15759).lighter(150));
    p.setColor(QPalette::WindowText, Qt::black);
    verdict_->setPalette(p);
}

QString FrameSummaryPanel::verdictText() const
{
    return verdict_->text();
}

void FrameSummaryPanel::setLayoutSummary(const cs::FrameLayout& layout)
{
    const cs::FrameSummary& s = layout.summary;
    const QString reason = QString::fromStdString(s.parallel.reason);
    // "pieces" only means something to a parallel decoder when it can split the stream.
    if (s.parallel.splittable) {
        const QString pieces = s.parallel.pieces == 1 ? tr("1 independent piece") : counted(s.parallel.pieces, "independent piece", "independent pieces");
        verdict_->setText(tr("Splittable: yes · %1 — %2").arg(pieces, reason));
    } else {
        verdict_->setText(tr("Splittable: no — %1").arg(reason));
    }
    // A seek table that contradicts the frames misleads any seekable reader:
    // the verdict says so, naming the first entry that differs.
    const bool tableContradicts = layout.seekTable && !layout.seekTable->consistent;
    if (tableContradicts)
        verdict_->setText(verdict_->text() + QLatin1Char(' ')
                          + tr("The seek table does not match the frames: %1.")
                                .arg(QString::fromStdString(layout.seekTable->problem)));
    QPalette p = palette();
    p.setColor(QPalette::Window, s.parallel.splittable ? QColor(0x59a14f).lighter(165) : QColor(0xf28e2b).lighter(160));
    p.setColor(QPalette::WindowText, Qt::black);
    verdict_->setPalette(p);

    // Counts in the locale's grouping: "10,000,000 skippable", not "10000000".
    const QLocale locale;
    const auto n = [&locale](uint64_t v) { return locale.toString(qulonglong(v)); };
    frames_->setText(tr("%1 zstd, %2 skippable").arg(n(s.zstdFrames), n(s.skippableFrames)));
    sized_->setText(tr("%1 / %2").arg(n(s.sizedFrames), n(s.unsizedFrames)));
    compressed_->setText(tr("%1 (%2 B)").arg(sizeText(s.compressedSize)).arg(s.compressedSize));
    content_->setText(s.contentSize ? tr("%1 (%2 B)").arg(sizeText(*s.contentSize)).arg(*s.contentSize)
                                    : tr("unknown (a frame does not declare its size)"));
    ratio_->setText(s.ratio > 0 ? QString::number(s.ratio, 'f', 2) : tr("unknown"));
    largest_->setText(s.zstdFrames + s.skippableFrames
                          ? tr("#%1, %2").arg(n(s.largestFrameIndex), sizeText(s.largestFrameSize))
                          : QStringLiteral("–"));
    if (layout.seekTable)
        seekTable_->setText(tr("%1%2%3")
                                .arg(counted(layout.seekTable->frames, "entry", "entries"))
                                .arg(layout.seekTable->checksums ? tr(", with checksums") : QString())
                                .arg(tableContradicts ? tr(", does not match the frames") : QString()));
    else
        seekTable_->setText(tr("none"));
    checksums_->setText(s.zstdFrames == 0 ? QStringLiteral("–") : (s.allChecksummed ? tr("every frame") : tr("not on every frame")));
}

} // namespace ui
