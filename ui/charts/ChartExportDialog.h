// The chart export dialog: file (with Browse…), size in pixels, resolution
// in dpi and a title. The file gets the extension of the chosen format when
// it has none; the size starts at the chart's on-screen size.
#pragma once
#include "ui/charts/ChartExport.h"

#include <QDialog>

class QComboBox;
class QLineEdit;
class QSpinBox;

namespace ui {

class ChartExportDialog : public QDialog {
    Q_OBJECT
public:
    ChartExportDialog(QWidget* parent, const QString& suggestedName, QSize size);

    // The file to write, with its extension (the format's when it had none).
    QString path() const;
    ExportOptions options() const;

    QLineEdit* pathEdit() const { return path_; }
    QComboBox* formatBox() const { return format_; }
    QSpinBox* widthBox() const { return width_; }
    QSpinBox* heightBox() const { return height_; }
    QSpinBox* dpiBox() const { return dpi_; }
    QLineEdit* titleEdit() const { return title_; }

private:
    void browse();
    void syncFormatFromPath();

    QLineEdit* path_;
    QComboBox* format_;
    QSpinBox* width_;
    QSpinBox* height_;
    QSpinBox* dpi_;
    QLineEdit* title_;
};

} // namespace ui
