#include "ui/actions/ActionsDocument.h"
#include "ui/actions/ActionsReportView.h"

#include "core/jobs/Job.h"
#include "core/util/Units.h"
#include "ui/actions/ActionsBrowser.h"
#include "ui/actions/ActionsEntryModel.h"
#include "ui/actions/ActionsFindingModel.h"
#include "ui/actions/ActionsUploadModel.h"
#include "ui/actions/ActionsWatcher.h"
#include "ui/actions/CacheServerDialog.h"
#include "ui/jobs/JobProgressWidget.h"
#include "ui/jobs/DocumentActions.h"
#include "ui/jobs/JobRunner.h"

#include <algorithm>

#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

#include <utility>

namespace ui {

namespace {

QTableView* makeListTable(QAbstractItemModel* model, int sortRole, QWidget* parent)
{
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(sortRole);
    auto* t = new QTableView(parent);
    t->setModel(proxy);
    t->setSortingEnabled(true);
    t->sortByColumn(-1, Qt::AscendingOrder);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setAlternatingRowColors(true);
    t->setWordWrap(false);
    t->verticalHeader()->hide();
    t->horizontalHeader()->setStretchLastSection(true);
    return t;
}

} // namespace

ActionsDocument* ActionsDocument::open(const QString& path, QString* error, QWidget* parent)
{
    if (!looksLikeActionsData(path)) {
        if (error)
            *error = tr("%1 is not the data of a github-actions-cache-server: it wants a folder holding sqlite.db and "
                        "storage/ (or storage/filesystem/), or that sqlite.db.")
                         .arg(QDir::toNativeSeparators(path));
        return nullptr;
    }
    try {
        ActionsDataLocation where = resolveActionsData(path);
        // Only a check that this is the server's database: opened read-only
        // and closed at once; the rows are read off the GUI thread.
        openActionsForReading(where.paths);
        return new ActionsDocument(std::move(where), parent);
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return nullptr;
    }
}

ActionsDocument* ActionsDocument::openServer(ActionsDataLocation where, QWidget* parent)
{
    return new ActionsDocument(std::move(where), parent);
}

ActionsDocument* ActionsDocument::openServerWithDialog(QWidget* parent)
{
    CacheServerDialog dialog(parent);
    if (dialog.exec() != QDialog::Accepted)
        return nullptr;
    return openServer(dialog.location());
}

ActionsDocument::ActionsDocument(ActionsDataLocation where, QWidget* parent)
    : QWidget(parent),
      where_(std::move(where)),
      readRunner_(new JobRunner(this)),
      actions_(new DocumentActions(this, tr("Cache server action failed"),
                                   [this](const JobOutcome& outcome) { afterAction(outcome); })),
      progress_(new JobProgressWidget(this)),
      summary_(new QLabel(this)),
      toolbar_(new QToolBar(this)),
      views_(new QTabWidget(this)),
      browser_(new ActionsBrowser(where_, this)),
      uploadModel_(new ActionsUploadModel(this)),
      uploadTable_(makeListTable(uploadModel_, ActionsUploadModel::SortRole, this)),
      findingModel_(new ActionsFindingModel(this)),
      findingTable_(makeListTable(findingModel_, Qt::DisplayRole, this)),
      findingHeader_(new QLabel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    auto* path = new QLabel(this);
    path->setText((where_.dataDir.isEmpty()
                       ? tr("github-actions-cache-server deployment · catalog %1 · storage %2 · read-only until you "
                            "confirm a write")
                       : tr("github-actions-cache-server data · %1 · storage %2 · read-only until you confirm a write"))
                      .arg(actionsDatabaseName(where_), actionsStorageName(where_)));
    path->setTextInteractionFlags(Qt::TextSelectableByMouse);
    path->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(path);
    summary_->setObjectName(QStringLiteral("actionsSummary"));
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setWordWrap(true);
    summary_->setText(tr("Reading the server's data…"));
    layout->addWidget(summary_);
    toolbar_->setToolButtonStyle(Qt::ToolButtonTextOnly);
    layout->addWidget(toolbar_);
    layout->addWidget(progress_);

    views_->addTab(browser_, tr("Entries"));
    views_->addTab(uploadTable_, tr("Pending uploads"));
    auto* findings = new QWidget(this);
    auto* findingsLayout = new QVBoxLayout(findings);
    findingsLayout->setContentsMargins(0, 4, 0, 0);
    findingHeader_->setObjectName(QStringLiteral("findingsHeader"));
    findingHeader_->setWordWrap(true);
    findingHeader_->setText(tr("Not verified yet: Verify checks every entry's files against the database (read-only)."));
    findingsLayout->addWidget(findingHeader_);
    findingsLayout->addWidget(findingTable_, 1);
    views_->addTab(findings, tr("Verify findings"));
    reportView_ = new ActionsReportView(where_, this);
    views_->addTab(reportView_, tr("Report"));
    layout->addWidget(views_, 1);
    const int digit = fontMetrics().horizontalAdvance(QLatin1Char('0'));
    uploadTable_->horizontalHeader()->resizeSection(ActionsUploadModel::Key, 40 * digit);
    uploadTable_->horizontalHeader()->resizeSection(ActionsUploadModel::Version, 14 * digit);
    findingTable_->horizontalHeader()->resizeSection(ActionsFindingModel::Kind, 22 * digit);
    findingTable_->horizontalHeader()->resizeSection(ActionsFindingModel::Entry, 30 * digit);
    findingTable_->horizontalHeader()->resizeSection(ActionsFindingModel::Path, 50 * digit);

    progress_->attach(actions_->runner());
    connect(readRunner_, &JobRunner::finished, this, &ActionsDocument::onReadFinished);
    createActions();
    reload();
    // Follows the server: another process's save, merge or delete re-reads
    // in place (the browser keeps selection and scroll), as the native
    // store's document does with StoreWatcher.
    watcher_ = new ActionsWatcher(where_.paths, this);
    connect(watcher_, &ActionsWatcher::changed, this, [this] {
        if (readRunner_->isRunning() || actions_->isRunning())
            changedWhileBusy_ = true;   // read again once that ends
        else
            reload();
    });
}

ActionsDocument::~ActionsDocument() = default;

QString ActionsDocument::title() const
{
    if (dataDirPath().isEmpty()) {
        // "postgres@db:5432/cache · s3://ci-cache" (mysql:// alike): the URL's scheme and
        // query (a socket folder, options) say little in a tab.
        QString db = actionsDatabaseName(where_);
        db.remove(QRegularExpression(QStringLiteral("^(postgres(ql)?|mysql|mariadb)://")));
        db.remove(QRegularExpression(QStringLiteral("\\?.*$")));
        return tr("%1 · %2 (cache server)").arg(db, actionsStorageName(where_));
    }
    const QFileInfo info(dataDirPath());
    QString name = info.fileName();
    if (name.startsWith(QLatin1Char('.')) || name == QLatin1String("data"))
        name = info.dir().dirName() + QLatin1Char('/') + name;
    return tr("%1 (cache server)").arg(name);
}

QString ActionsDocument::summaryText() const
{
    return summary_->text();
}

bool ActionsDocument::isReading() const
{
    return readRunner_->isRunning();
}

void ActionsDocument::reload()
{
    // As many rows as are loaded now (up to a bound), so a re-read after a
    // write keeps the rows the user scrolled to and their selection.
    const size_t limit = std::clamp<size_t>(size_t(browser_->model()->rowCount()), kActionsPageSize, 20 * kActionsPageSize);
    readRunner_->start(tr("Reading the cache server's data"), [paths = where_.paths, limit](cs::Job& job) {
        return ActionsSnapshotPtr(std::make_shared<const ActionsSnapshot>(readActionsSnapshot(paths, job, limit)));
    }, [this](ActionsSnapshotPtr snapshot) { showSnapshot(std::move(snapshot)); });
}

void ActionsDocument::onReadFinished(const JobOutcome& outcome)
{
    if (outcome.cancelled())
        return;
    if (outcome.failed())
        summary_->setText(tr("Reading the data failed: %1").arg(outcome.message.toHtmlEscaped()));
    Q_EMIT reloaded(outcome.ok());
    // The server changed while this read ran: read again, unless a write
    // is running (afterAction reads then).
    if (std::exchange(changedWhileBusy_, false) && !actions_->isRunning())
        reload();
}

void ActionsDocument::showSnapshot(ActionsSnapshotPtr snapshot)
{
    snapshot_ = std::move(snapshot);
    loaded_ = true;
    browser_->setSnapshot(snapshot_);
    uploadModel_->setSnapshot(snapshot_);
    uint64_t bytes = 0;
    using cs::actions::EntryState;
    int count[4] = {0, 0, 0, 0};
    for (const auto& e : snapshot_->entries) {
        bytes += e.size;
        ++count[int(e.state)];
    }
    QString text = tr("<b>%1 entries</b>").arg(QLocale().toString(qulonglong(std::max<uint64_t>(snapshot_->totalEntries, snapshot_->entries.size()))));
    if (!snapshot_->complete())
        text += tr(" · the first %1 in key order read, more as you scroll").arg(QLocale().toString(qulonglong(snapshot_->entries.size())));
    QStringList states;
    for (EntryState s : {EntryState::PartsDeleted, EntryState::Merged, EntryState::Unmerged, EntryState::MergeStarted})
        if (count[int(s)])
            states << QStringLiteral("%1 %2").arg(count[int(s)]).arg(actionsEntryStateName(s));
    if (!states.isEmpty())
        text += QStringLiteral(" (%1)").arg(states.join(QStringLiteral(", ")));
    text += (snapshot_->complete() ? tr(" · %1 on disk · ") : tr(" · %1 on disk in those · "))
                .arg(QString::fromStdString(cs::formatSize(bytes)));
    const size_t uploads = snapshot_->uploads.size();
    text += uploads == 1 ? tr("1 pending upload") : tr("%1 pending uploads").arg(uploads);
    text += tr(" · read %1").arg(formatEpochMs(snapshot_->readAtMs));
    summary_->setText(text);
    views_->setTabText(1, tr("Pending uploads (%1)").arg(snapshot_->uploads.size()));
    updateActionState();
}

} // namespace ui
