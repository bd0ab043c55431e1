// The tab of a document named on the command line before it is read: it only
// holds the path. MainWindow replaces it with the real document (and reads
// it) the first time its tab is shown, so 3,000 files named at start cost
// 3,000 labels, not 3,000 scanned documents.
#pragma once
#include <QWidget>

namespace ui {

class PendingDocument : public QWidget {
    Q_OBJECT
public:
    explicit PendingDocument(const QString& path, QWidget* parent = nullptr);
    QString path() const { return path_; }
    // Shown in place of the document when it could not be opened.
    void showError(const QString& message);
    QString text() const { return text_; }

protected:
    // The sentence is painted, not a QLabel in a layout: each child widget
    // and layout posts events of its own, and the posted-event queue of
    // thousands of them made adding the tabs quadratic.
    void paintEvent(QPaintEvent* event) override;

private:
    QString path_;
    QString text_;
};

} // namespace ui
