// The frame-layout document: one zstd file scanned off the GUI thread
// (cs::scanFramesStreaming through a JobRunner, with progress and cancel)
// into packed frames (32 B a frame, shared by the table and the band) and a
// digest (legend counts, histogram, band bins; FrameDigest.h), shown as
// the verdict and summary, the band of frames to scale, the frame table and
// the histogram of frame sizes. Exports the band and histogram as
// PNG/PDF/SVG and the table as CSV.
#pragma once
#include "core/frames/FrameLayout.h"
#include "core/frames/PackedFrames.h"
#include "ui/frames/FrameDigest.h"
#include "ui/jobs/JobOutcome.h"
#include "ui/shell/Document.h"

#include <QWidget>

#include <memory>
#include <vector>

class QAction;
class QLabel;
class QTableView;
class QToolButton;

namespace ui {
class FrameBandWidget;
class FrameHistogram;
class FramePageBar;
class FrameSummaryPanel;
class FrameTableModel;
class JobProgressWidget;
class JobRunner;
struct ScannedFile;   // what a scan hands back (FrameLayoutDocument.cpp)

class FrameLayoutDocument : public QWidget, public Document {
    Q_OBJECT
public:
    explicit FrameLayoutDocument(const QString& path, QWidget* parent = nullptr);

    QString path() const { return path_; }
    // Starts (again) a scan, once ScanQueue gives it a slot (at most
    // ScanQueue::kMaxScansAtOnce documents read at once); withBlocks walks
    // every block to count them.
    void rescan(bool withBlocks);
    bool isScanning() const;
    // Empty until a scan succeeded; its frames are empty: they live in frames().
    const cs::FrameLayout* frameLayout() const { return layout_.get(); }
    std::shared_ptr<const cs::PackedFrames> frames() const { return frames_; }

    bool exportBand(const QString& path, QString* error) const;
    bool exportHistogram(const QString& path, QString* error) const;
    bool exportTable(const QString& path, QString* error) const;

    QList<QAction*> exportActions() const override { return exportActions_; }
    JobRunner* jobRunner() const override { return runner_; }
    void refresh() override { rescan(false); }

    FrameTableModel* model() const { return model_; }
    QTableView* table() const { return table_; }
    FrameBandWidget* band() const { return band_; }
    FrameHistogram* histogram() const { return histogram_; }
    FrameSummaryPanel* summary() const { return summary_; }
    FramePageBar* pageBar() const { return pageBar_; }

Q_SIGNALS:
    // After every scan: done, or failed / cancelled with the sentence shown in the view.
    void scanFinished(const ui::JobOutcome& outcome);

private:
    void startScan(bool withBlocks);
    void showScanned(std::shared_ptr<ScannedFile> scanned);
    void onScanFinished(const JobOutcome& outcome);
    void selectFrame(int frameIndex);
    void createExportActions();
    QString exportBaseName() const;
    std::unique_ptr<FrameTableModel> wholeTable() const;

    QString path_;
    JobRunner* runner_;
    JobProgressWidget* progress_;
    FrameSummaryPanel* summary_;
    FrameBandWidget* band_;
    FrameTableModel* model_;
    QTableView* table_;
    FramePageBar* pageBar_;
    FrameHistogram* histogram_;
    QToolButton* blocksButton_;
    QList<QAction*> exportActions_;
    bool scanAsked_ = false;   // from rescan() until its scan finished (it may wait for a slot)
    std::unique_ptr<cs::FrameLayout> layout_;   // summary and seek table; no frames
    std::shared_ptr<const cs::PackedFrames> frames_;
    std::shared_ptr<const FrameDigest> digest_;
};

} // namespace ui
