// Reachability and mapping of a store's pack: a GC dry run (off the GUI
// thread, with progress and cancel) drawn as a strip of live and dead ranges
// (PackStripWidget); hovering a range looks up the object there and the live
// entries that reach it (core/gc/EntriesReaching.h) off the GUI thread; the
// current generation's mapping records in a table; the pack's file sizes now
// and what this GC would leave.
//
// Every refresh opens the pack afresh, so after a GC swap (storeChanged())
// the view reads the new generation; until then it keeps the generation it
// shows open (its files stay readable after the swap removed them). A
// refresh asked for while hidden waits until the view is shown.
#pragma once
#include "core/gc/EntriesReaching.h"
#include "core/gc/Gc.h"
#include "core/pack/Pack.h"
#include "ui/gc/PackStripWidget.h"

#include <QString>
#include <QWidget>

#include <map>
#include <memory>

class QLabel;
class QPushButton;
class QTableView;
class QTableWidget;
class QTimer;

namespace ui {
struct JobOutcome;
class JobProgressWidget;
class JobRunner;
class MappingTableModel;

class ReachabilityView : public QWidget {
    Q_OBJECT
public:
    explicit ReachabilityView(const QString& storeDir, QWidget* parent = nullptr);
    ~ReachabilityView() override;

    const QString& storeDir() const { return storeDir_; }
    PackStripWidget* strip() const { return strip_; }
    MappingTableModel* mappingModel() const { return mappingModel_; }
    QTableWidget* sizesTable() const { return sizes_; }
    JobRunner* jobRunner() const { return runner_; }
    // The last dry run shown (nullptr before the first one finished); its
    // ranges moved into strip()->data().
    const cs::gc::GcResult* lastDryRun() const { return result_.get(); }
    const cs::pack::PackSizes& packSizes() const { return packSizes_; }
    // What the pack's files would be after this GC (from the dry run).
    cs::gc::FileSizes projectedSizes() const;

public Q_SLOTS:
    void refresh();
    // The store changed (GC, merge, evict): refresh now if shown, else when shown.
    void storeChanged();
    // Looks up the object under a hover and the entries that reach it (off the GUI thread).
    void lookUp(const ui::PackStripWidget::Hover& hover);
    void exportStrip();
    void exportMapping();

Q_SIGNALS:
    void refreshed();
    void refreshFailed(const QString& error);
    void hoverDetailsReady(const ui::PackStripWidget::Hover& hover, const QString& html);

protected:
    void showEvent(QShowEvent* event) override;

private:
    struct DryRun;
    struct Lookup;
    void dryRunFinished(const JobOutcome& outcome);
    void showDryRun(DryRun& run);
    void lookupFinished(const JobOutcome& outcome);
    void showLookup(const Lookup& lookup);
    void showHoverDetails(const QString& html);
    void fillSizes();
    QString lookupHtml(const PackStripWidget::Hover& hover, const Lookup& lookup) const;
    QString rangeHtml(const PackStripWidget::Hover& hover) const;

    QString storeDir_;
    JobRunner* runner_;
    JobRunner* lookupRunner_;
    JobProgressWidget* progress_;
    QPushButton* refresh_;
    QLabel* summary_;
    PackStripWidget* strip_;
    QTableWidget* sizes_;
    QLabel* sizesLabel_ = nullptr;
    QLabel* mappingLabel_;
    QTableView* mappingView_;
    MappingTableModel* mappingModel_;
    QTimer* hoverDelay_;

    std::unique_ptr<cs::gc::GcResult> result_;
    cs::pack::PackSizes packSizes_;
    bool stale_ = true;
    PackStripWidget::Hover pendingHover_;
    PackStripWidget::Hover lookupHover_;
    // Object start -> (object end, html of the lookup); cleared by a refresh.
    std::map<uint64_t, std::pair<uint64_t, QString>> lookups_;
};

} // namespace ui
