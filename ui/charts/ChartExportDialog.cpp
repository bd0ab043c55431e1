#include "ui/charts/ChartExportDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

namespace ui {

namespace {
QSpinBox* spin(int min, int max, int value, const QString& suffix, QWidget* parent)
{
    auto* box = new QSpinBox(parent);
    box->setRange(min, max);
    box->setValue(qBound(min, value, max));
    box->setSuffix(suffix);
    return box;
}
} // namespace

ChartExportDialog::ChartExportDialog(QWidget* parent, const QString& suggestedName, QSize size)
    : QDialog(parent),
      path_(new QLineEdit(this)),
      format_(new QComboBox(this)),
      width_(spin(16, 20000, size.width(), tr(" px"), this)),
      height_(spin(16, 20000, size.height(), tr(" px"), this)),
      dpi_(spin(24, 1200, 96, tr(" dpi"), this)),
      title_(new QLineEdit(this))
{
    setWindowTitle(tr("Export Chart"));
    for (const QString& f : imageExportFilter().split(QStringLiteral(";;")))
        format_->addItem(f);
    path_->setText(QDir::current().absoluteFilePath(withExtension(suggestedName, format_->itemText(0))));
    path_->setMinimumWidth(path_->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 48);
    syncFormatFromPath();
    auto* browse = new QPushButton(tr("Browse…"), this);
    auto* fileRow = new QHBoxLayout;
    fileRow->addWidget(path_, 1);
    fileRow->addWidget(browse);
    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(width_);
    sizeRow->addWidget(new QLabel(QStringLiteral("×"), this));
    sizeRow->addWidget(height_);
    sizeRow->addStretch();
    dpi_->setToolTip(tr("Text and lines are drawn dpi / 96 times larger than on a standard screen; "
                        "192 dpi gives a sharp picture at half the pixel size on a page or a slide."));
    title_->setPlaceholderText(tr("none"));

    // Rows holding a layout get no buddy from QFormLayout: label them by hand
    // so their mnemonics work (and the '&' is not shown).
    auto label = [this](const QString& text, QWidget* buddy) {
        auto* l = new QLabel(text, this);
        l->setBuddy(buddy);
        return l;
    };
    auto* form = new QFormLayout;
    form->addRow(label(tr("&File:"), path_), fileRow);
    form->addRow(label(tr("F&ormat:"), format_), format_);
    form->addRow(label(tr("&Size:"), width_), sizeRow);
    form->addRow(label(tr("&Resolution:"), dpi_), dpi_);
    form->addRow(label(tr("&Title:"), title_), title_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);

    connect(browse, &QPushButton::clicked, this, &ChartExportDialog::browse);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(path_, &QLineEdit::textChanged, this, [this, buttons] {
        syncFormatFromPath();
        buttons->button(QDialogButtonBox::Save)->setEnabled(!path_->text().trimmed().isEmpty());
    });
    // Choosing another format renames the file's extension when it had one of ours.
    connect(format_, &QComboBox::currentIndexChanged, this, [this] {
        const QFileInfo info(path_->text());
        const QString ext = info.suffix().toLower();
        if (ext == QLatin1String("png") || ext == QLatin1String("pdf") || ext == QLatin1String("svg")) {
            const QString base = path_->text().left(path_->text().size() - ext.size() - 1);
            const QString renamed = withExtension(base, format_->currentText());
            if (renamed != path_->text()) {
                const QSignalBlocker block(path_);
                path_->setText(renamed);
            }
        }
    });
}

void ChartExportDialog::syncFormatFromPath()
{
    const QString ext = QFileInfo(path_->text()).suffix().toLower();
    for (int i = 0; i < format_->count(); ++i)
        if (format_->itemText(i).contains(QStringLiteral("*.") + ext + QLatin1Char(')'))) {
            const QSignalBlocker block(format_);
            format_->setCurrentIndex(i);
        }
}

void ChartExportDialog::browse()
{
    QString filter = format_->currentText();
    const QString chosen = QFileDialog::getSaveFileName(this, tr("Export chart"), path(), imageExportFilter(), &filter);
    if (chosen.isEmpty())
        return;
    format_->setCurrentText(filter);
    path_->setText(withExtension(chosen, filter));
}

QString ChartExportDialog::path() const
{
    return withExtension(path_->text().trimmed(), format_->currentText());
}

ExportOptions ChartExportDialog::options() const
{
    ExportOptions o;
    o.size = QSize(width_->value(), height_->value());
    o.dpi = dpi_->value();
    o.title = title_->text().trimmed();
    return o;
}

} // namespace ui
