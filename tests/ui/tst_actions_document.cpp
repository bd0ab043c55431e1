// The cache-server document in the main window, headless, on a data dir laid
// out as github-actions-cache-server v9.4.7 writes it (SQLite driver,
// filesystem storage): opened through openPath (folder, sqlite.db, a drop),
// its rows, states and sizes against the files the fixture wrote; the parts
// pane; verify findings; a whole open + browse + verify leaving every byte of
// the data dir as it was; a damaged database giving one sentence; and the
// confirmed writes (merge, evict, import) doing what they said.
#include "JobSpy.h"
#include "common/ActionsCacheFixture.h"
#include "common/TestSupport.h"
#include "common/TreeHash.h"
#include "core/actions-cache/EntryFilterText.h"
#include "core/jobs/Job.h"
#include "core/store/Catalog.h"
#include "core/store/Store.h"
#include "core/util/Units.h"
#include "ui/actions/ActionsBrowser.h"
#include "ui/actions/ActionsDocument.h"
#include "ui/actions/ActionsEntryModel.h"
#include "ui/actions/ActionsEvictDialog.h"
#include "ui/actions/ActionsFindingModel.h"
#include "ui/actions/ActionsPartsModel.h"
#include "ui/actions/ActionsUploadModel.h"
#include "ui/jobs/JobRunner.h"
#include "ui/shell/MainWindow.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QCheckBox>
#include <QTableWidget>
#include <QApplication>
#include <QDateTime>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTabWidget>

#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include <set>

using testsupport::ActionsCacheFixture;
using ui::ActionsDocument;
using ui::ActionsEntryModel;

namespace {

// A fixture data dir (tests/common/ActionsCacheFixture.h: every state) in a temp folder.
struct ServerData {
    QTemporaryDir tmp;
    QString dir;
    std::unique_ptr<ActionsCacheFixture> fixture;

    explicit ServerData(const QString& name = QStringLiteral(".data"),
                        ActionsCacheFixture::Layout layout = ActionsCacheFixture::Layout::ServerDefault)
    {
        dir = tmp.filePath(name);
        QDir().mkpath(dir);
        fixture = std::make_unique<ActionsCacheFixture>(dir, layout);
    }
    QString db() const { return fixture->dbPath(); }
    QString storage() const { return fixture->storageDir(); }
    const testsupport::FixtureEntry& entry(const QString& folder) const { return fixture->entry(folder); }
};

QMap<QString, QString> hashTree(const QString& root)
{
    return testsupport::hashTree(root);
}

QString sha(const QByteArray& b)
{
    return QString::fromStdString(cs::Sha256::hex(cs::Sha256::of(b.constData(), size_t(b.size()))));
}

ActionsDocument* openIn(ui::MainWindow& w, const QString& path)
{
    if (!w.openPath(path))
        return nullptr;
    auto* doc = qobject_cast<ActionsDocument*>(w.currentDocument());
    // The first read runs off the GUI thread, then the top entry's parts are listed.
    if (doc && !QTest::qWaitFor([doc] { return doc->isLoaded() && !doc->isReading() && !doc->browser()->isLoadingParts(); }, 20000))
        return nullptr;
    return doc;
}

int rowOfKey(const ActionsEntryModel* m, const QString& key)
{
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->index(r, ActionsEntryModel::Key).data().toString() == key)
            return r;
    return -1;
}

// Waits for the confirmation (after its read-only plan) and presses its button.
QMessageBox* waitForConfirmation(ActionsDocument* doc)
{
    QMessageBox* box = nullptr;
    if (!QTest::qWaitFor([&] { return (box = doc->findChild<QMessageBox*>(QStringLiteral("confirmWrite"))) != nullptr; }, 10000))
        return nullptr;
    return box;
}

bool confirm(ActionsDocument* doc)
{
    QMessageBox* box = waitForConfirmation(doc);
    auto* button = box ? box->findChild<QPushButton*>(QStringLiteral("confirmButton")) : nullptr;
    if (!button)
        return false;
    button->click();
    return true;
}

} // namespace

class TestActionsDocument : public QObject {
    QTemporaryDir cacheHome_;
    Q_OBJECT
    // 445 more entries (no files: their folders are missing) after the
    // fixture's 5: 450 in all, more than two pages of 200.
    // Pages the model to its end, as scrolling to the bottom does (at most 20 s).
    static void fetchEveryPage(ActionsEntryModel* m)
    {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 20000 && (m->isFetching() || m->canFetchMore({}))) {
            if (m->canFetchMore({}))
                m->fetchMore({});
            QTest::qWait(5);
        }
    }

    static void addPagedEntries(ServerData& s)
    {
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(s.db().toUtf8().constData(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db,
                              "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 445) "
                              "INSERT INTO storage_locations (id, folderName, partCount) SELECT 'paged-loc-' || i, "
                              "CAST(3000000000 + i AS TEXT), 1 FROM n; "
                              "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 445) "
                              "INSERT INTO cache_entries (id, key, version, scope, repoId, updatedAt, locationId) "
                              "SELECT 'paged-' || i, 'paged-key-' || printf('%04d', i), 'v1', 'refs/heads/main', '1', "
                              "1700000000000 + i, 'paged-loc-' || i FROM n;",
                              nullptr, nullptr, nullptr),
                 SQLITE_OK);
        sqlite3_close(db);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("cachescope-test-actions-document"));
        // The size index (sorting by size, parts, state) goes to the cache folder: a temporary one.
        QVERIFY(cacheHome_.isValid());
        qputenv("XDG_CACHE_HOME", cacheHome_.path().toUtf8());
    }

    void showsRowsStatesAndSizes()
    {
        ServerData s;
        ui::MainWindow w;
        ActionsDocument* doc = openIn(w, s.dir);
        QVERIFY2(doc, qPrintable(w.lastError()));
        ActionsEntryModel* m = doc->browser()->model();
        QAbstractItemModelTester entryTester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(doc->browser()->proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester uploadTester(doc->uploadModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        // Every fixture entry; the location without an entry and the orphan folder are not rows.
        QCOMPARE(m->rowCount(), s.fixture->entries().size());
        for (const auto& e : s.fixture->entries()) {
            const int r = rowOfKey(m, e.key);
            QVERIFY2(r >= 0, qPrintable(e.key));
            QCOMPARE(m->index(r, ActionsEntryModel::State).data().toString(), e.state);
            QCOMPARE(m->index(r, ActionsEntryModel::Size).data(ActionsEntryModel::SortRole).toLongLong(), e.size);
            QCOMPARE(m->index(r, ActionsEntryModel::Size).data().toString(), QString::fromStdString(cs::formatSize(uint64_t(e.size))));
            QCOMPARE(m->index(r, ActionsEntryModel::Parts).data().toInt(), e.partCount);
            QCOMPARE(m->index(r, ActionsEntryModel::Version).data().toString(), e.version);
            QCOMPARE(m->index(r, ActionsEntryModel::Scope).data().toString(), QStringLiteral("refs/heads/main"));
            QCOMPARE(m->index(r, ActionsEntryModel::Repo).data().toString(), QStringLiteral("1"));
        }
        QCOMPARE(m->index(rowOfKey(m, "macos-never-downloaded"), ActionsEntryModel::LastDownload).data().toString(),
                 QStringLiteral("never"));
        QVERIFY(m->index(rowOfKey(m, "linux-cargo-merged"), ActionsEntryModel::LastDownload).data().toString() != "never");
        const QString summary = doc->summaryText();
        QVERIFY2(summary.contains(QStringLiteral("5 entries")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("1 parts deleted, 1 merged, 2 unmerged, 1 merge started")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("1 pending upload")), qPrintable(summary));

        // Pending uploads: the unfinished one, with the server's part counts, the parts on disk and its idle time.
        const auto* u = doc->uploadModel();
        QCOMPARE(u->rowCount(), 1);
        QCOMPARE(u->index(0, ui::ActionsUploadModel::Id).data().toLongLong(), ActionsCacheFixture::unfinishedUploadId());
        QCOMPARE(u->index(0, ui::ActionsUploadModel::Key).data().toString(), QStringLiteral("upload-never-finished"));
        QCOMPARE(u->index(0, ui::ActionsUploadModel::Started).data().toInt(), 3);
        QCOMPARE(u->index(0, ui::ActionsUploadModel::Finished).data().toInt(), 2);
        QCOMPARE(u->index(0, ui::ActionsUploadModel::PartsOnDisk).data().toInt(), 2);
        QCOMPARE(u->index(0, ui::ActionsUploadModel::Age).data().toString(), QStringLiteral("1 h 30 min"));

        // Sorting by size (the size index's order, read off the GUI thread)
        // and the key filter go through the proxy.
        auto* proxy = doc->browser()->proxy();
        doc->browser()->table()->sortByColumn(ActionsEntryModel::Size, Qt::DescendingOrder);
        qlonglong largest = 0;
        QString largestKey;
        for (const auto& e : s.fixture->entries())
            if (e.size > largest) {
                largest = e.size;
                largestKey = e.key;
            }
        QTRY_COMPARE_WITH_TIMEOUT(proxy->index(0, ActionsEntryModel::Key).data().toString(), largestKey, 20000);
        doc->browser()->filterEdit()->setText(QStringLiteral("LINUX"));
        QTRY_COMPARE(proxy->rowCount(), 2);
        doc->browser()->filterEdit()->clear();
        QTRY_COMPARE(proxy->rowCount(), 5);
    }

    // A query's first page is shown before its matching count is read (a
    // count goes over every entry), and the count label follows the count:
    // the filter's page, then "46 of 450"; the size order's page, then its
    // count.
    void theFirstPageComesBeforeItsCount()
    {
        ServerData s;
        addPagedEntries(s);
        ui::MainWindow w;
        ActionsDocument* doc = openIn(w, s.dir);
        QVERIFY2(doc, qPrintable(w.lastError()));
        ui::ActionsBrowser* b = doc->browser();
        ActionsEntryModel* m = b->model();
        std::vector<QString> events;
        connect(m, &ActionsEntryModel::pageFetched, this, [&](bool ok) {
            events.push_back(QStringLiteral("page") + (m->matchingEntries() ? QStringLiteral(" counted") : QString())
                             + (ok ? QString() : QStringLiteral(" failed")));
        });
        connect(m, &ActionsEntryModel::countFetched, this, [&] { events.push_back(QStringLiteral("count")); });
        b->filterEdit()->setText(QStringLiteral("paged-key-04"));   // debounced
        QTRY_VERIFY_WITH_TIMEOUT(m->query().keyContains == "paged-key-04" && m->matchingEntries().has_value()
                                     && !m->isFetching(),
                                 10000);
        QCOMPARE(events, (std::vector<QString>{"page", "count"}));
        QCOMPARE(*m->matchingEntries(), uint64_t(46));
        QVERIFY2(b->countText().contains(QStringLiteral("46 of 450")), qPrintable(b->countText()));
        b->filterEdit()->clear();
        QTRY_VERIFY_WITH_TIMEOUT(m->isDefaultQuery() && !m->isFetching(), 10000);
        events.clear();
        b->table()->sortByColumn(ActionsEntryModel::Size, Qt::DescendingOrder);
        QCOMPARE(m->query().order, cs::actions::EntryOrder::SizeLargest);
        QTRY_VERIFY_WITH_TIMEOUT(m->matchingEntries().has_value() && !m->isFetching(), 20000);
        QVERIFY(events.size() >= 2);
        QCOMPARE(events[0], QStringLiteral("page"));
        QCOMPARE(events[1], QStringLiteral("count"));
        QCOMPARE(*m->matchingEntries(), uint64_t(450));
    }

    void filterAndSortRunInTheCatalogOverEveryEntry()
    {
        // 450 entries; the first page (200 in key order) does not hold
        // paged-key-0400..0445, so finding them is the catalog's work.
        ServerData s;
        addPagedEntries(s);
        ui::MainWindow w;
        ActionsDocument* doc = openIn(w, s.dir);
        QVERIFY2(doc, qPrintable(w.lastError()));
        ui::ActionsBrowser* b = doc->browser();
        ActionsEntryModel* m = b->model();
        QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(b->proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(m->rowCount(), int(ui::kActionsPageSize));
        QCOMPARE(rowOfKey(m, "paged-key-0400"), -1);
        const auto loadAll = [m] { fetchEveryPage(m); };
        const auto queried = [m](const char* filter) {
            return m->query().keyContains == filter && m->matchingEntries().has_value() && !m->isFetching();
        };
        const auto shown = [b] {
            std::vector<QString> ids;
            for (int r = 0; r < b->proxy()->rowCount(); ++r)
                ids.push_back(b->proxy()->index(r, 0).data(ActionsEntryModel::EntryIdRole).toString());
            return ids;
        };
        // The filter box (debounced, A-Z and a-z alike): only the 46 keys
        // holding it, with their count, none of them loaded before.
        b->filterEdit()->setText(QStringLiteral("PAGED-key-04"));
        QTRY_VERIFY_WITH_TIMEOUT(queried("PAGED-key-04"), 10000);
        QCOMPARE(*m->matchingEntries(), uint64_t(46));
        std::vector<QString> wanted;
        for (int i = 400; i <= 445; ++i)
            wanted.push_back(QStringLiteral("paged-%1").arg(i));
        QCOMPARE(shown(), wanted);
        QVERIFY2(b->countText().contains(QStringLiteral("46 of 450")), qPrintable(b->countText()));
        b->filterEdit()->clear();
        QTRY_VERIFY_WITH_TIMEOUT(m->isDefaultQuery(), 10000);

        // Every row as the catalog holds it, to check the orders against.
        loadAll();
        QCOMPARE(m->rowCount(), 450);
        struct Row {
            QString key, id;
            qlonglong updated;
        };
        std::vector<Row> all;
        for (int r = 0; r < m->rowCount(); ++r)
            all.push_back({m->index(r, ActionsEntryModel::Key).data().toString(),
                           m->index(r, 0).data(ActionsEntryModel::EntryIdRole).toString(),
                           m->index(r, ActionsEntryModel::Updated).data(ActionsEntryModel::SortRole).toLongLong()});
        const auto expect = [&all](const QString& filter, bool newestFirst) {
            std::vector<Row> rows;
            for (const auto& r : all)
                if (r.key.contains(filter, Qt::CaseInsensitive))
                    rows.push_back(r);
            if (newestFirst)
                std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& x) {
                    return std::tie(a.updated, a.id) > std::tie(x.updated, x.id);
                });
            std::vector<QString> ids;
            for (const auto& r : rows)
                ids.push_back(r.id);
            return ids;
        };
        b->filterEdit()->setText(QStringLiteral("paged-key-04"));
        QTRY_VERIFY_WITH_TIMEOUT(queried("paged-key-04"), 10000);
        QCOMPARE(shown(), expect("paged-key-04", false));

        // Newest first by the Updated header: the catalog's order, and the
        // proxy keeps it (the source order).
        b->table()->sortByColumn(ActionsEntryModel::Updated, Qt::DescendingOrder);
        QCOMPARE(m->query().order, cs::actions::EntryOrder::UpdatedNewest);
        QTRY_VERIFY_WITH_TIMEOUT(!m->isFetching() && m->rowCount() == 46, 10000);
        QCOMPARE(shown(), expect("paged-key-04", true));

        // No filter, newest first over all 450, page after page.
        b->filterEdit()->clear();
        QTRY_VERIFY_WITH_TIMEOUT(queried(""), 10000);
        QCOMPARE(*m->matchingEntries(), uint64_t(450));
        loadAll();   // (the view and the model tester may have fetched some already)
        QCOMPARE(shown(), expect("", true));

        // Key descending: the largest key first, read from the catalog's end.
        b->table()->sortByColumn(ActionsEntryModel::Key, Qt::DescendingOrder);
        QTRY_VERIFY_WITH_TIMEOUT(!m->isFetching() && m->rowCount() > 0, 10000);
        QString largest;
        for (const auto& r : all)
            if (r.key.toStdString() > largest.toStdString())
                largest = r.key;
        QCOMPARE(b->proxy()->index(0, ActionsEntryModel::Key).data().toString(), largest);
        // Size comes from the files: the size index sorts every entry, also
        // the ones never loaded (the largest is a fixture entry, far from the
        // first page in key order), and the proxy keeps that order.
        b->table()->sortByColumn(ActionsEntryModel::Size, Qt::DescendingOrder);
        QCOMPARE(m->query().order, cs::actions::EntryOrder::SizeLargest);
        QTRY_VERIFY_WITH_TIMEOUT(!m->isFetching() && m->rowCount() > 0, 20000);
        qlonglong largestSize = 0;
        for (const auto& e : s.fixture->entries())
            largestSize = std::max(largestSize, e.size);
        QCOMPARE(b->proxy()->index(0, ActionsEntryModel::Size).data(ActionsEntryModel::SortRole).toLongLong(),
                 largestSize);
        loadAll();
        QCOMPARE(m->rowCount(), 450);
        for (int r = 1; r < b->proxy()->rowCount(); ++r)
            QVERIFY(b->proxy()->index(r - 1, ActionsEntryModel::Size).data(ActionsEntryModel::SortRole).toULongLong()
                    >= b->proxy()->index(r, ActionsEntryModel::Size).data(ActionsEntryModel::SortRole).toULongLong());
        // Fewest parts first, over every entry too.
        b->table()->sortByColumn(ActionsEntryModel::Parts, Qt::AscendingOrder);
        QCOMPARE(m->query().order, cs::actions::EntryOrder::PartsFewest);
        QTRY_VERIFY_WITH_TIMEOUT(!m->isFetching() && m->rowCount() > 0, 20000);
        loadAll();
        QCOMPARE(m->rowCount(), 450);
        QCOMPARE(b->proxy()->index(449, ActionsEntryModel::Key).data().toString(), QStringLiteral("buildkit-unmerged-12-parts"));
    }

    void filterFieldFiltersBySizePartsAndStateOverEveryEntry()
    {
        // 450 entries, 200 loaded; "size>0" and the like must find rows of
        // every page, through the size index, with the key text beside.
        ServerData s;
        addPagedEntries(s);
        ui::MainWindow w;
        ActionsDocument* doc = openIn(w, s.dir);
        QVERIFY2(doc, qPrintable(w.lastError()));
        ui::ActionsBrowser* b = doc->browser();
        ActionsEntryModel* m = b->model();
        QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(m->rowCount(), int(ui::kActionsPageSize));
        const auto loadAll = [m] { fetchEveryPage(m); };
        // What the files say of every entry: the fixture's sizes, 0 for the
        // 445 paged rows whose folders do not exist.
        std::map<QString, cs::actions::ActionsEntry> every;
        for (const auto& fe : s.fixture->entries()) {
            cs::actions::ActionsEntry e;
            e.key = fe.key.toStdString();
            e.size = uint64_t(fe.size);
            e.partCount = fe.partCount;
            e.state = *cs::actions::entryStateFromName(fe.state.toStdString());
            every[fe.key] = e;
        }
        const auto shownKeys = [b] {
            std::set<QString> keys;
            for (int r = 0; r < b->proxy()->rowCount(); ++r)
                keys.insert(b->proxy()->index(r, ActionsEntryModel::Key).data().toString());
            return keys;
        };
        const auto apply = [&](const QString& text) {
            b->filterEdit()->setText(text);
            // Past the field's debounce: the model holds the text's query.
            QTRY_VERIFY_WITH_TIMEOUT(m->query() == cs::actions::parseEntryFilterText(text.toStdString(), m->query()).query
                                         && m->matchingEntries().has_value() && !m->isFetching(), 20000);
            QVERIFY(!cs::actions::catalogServes(m->query()));
            loadAll();
        };
        const auto expected = [&](auto keep, int paged) {
            std::set<QString> keys;
            for (const auto& [key, e] : every)
                if (keep(e))
                    keys.insert(key);
            for (int i = 1; i <= paged; ++i)
                keys.insert(QStringLiteral("paged-key-%1").arg(i, 4, 10, QLatin1Char('0')));
            return keys;
        };
        qlonglong largest = 0;
        for (const auto& [key, e] : every)
            largest = std::max(largest, qlonglong(e.size));
        apply(QStringLiteral("size>0"));
        QCOMPARE(shownKeys(), expected([](const auto& e) { return e.size > 0; }, 0));
        QVERIFY2(b->countText().contains(QStringLiteral("of 450 entries match “size>0”")), qPrintable(b->countText()));
        apply(QStringLiteral("size>=%1").arg(largest));
        QCOMPARE(shownKeys(), expected([&](const auto& e) { return qlonglong(e.size) >= largest; }, 0));
        // The paged rows claim 1 part and have no bytes: 445 of them, most
        // never loaded before, with the fixture's that match.
        apply(QStringLiteral("parts<=1 size=0"));
        QCOMPARE(shownKeys(), expected([](const auto& e) { return e.partCount <= 1 && e.size == 0; }, 445));
        QCOMPARE(*m->matchingEntries(), uint64_t(shownKeys().size()));
        // Key text with the index filters, sorted by size over every entry.
        b->table()->sortByColumn(ActionsEntryModel::Size, Qt::DescendingOrder);
        apply(QStringLiteral("paged-key-04 parts=1"));
        std::set<QString> wanted;
        for (int i = 400; i <= 445; ++i)
            wanted.insert(QStringLiteral("paged-key-%1").arg(i, 4, 10, QLatin1Char('0')));
        QCOMPARE(shownKeys(), wanted);
        QCOMPARE(m->query().order, cs::actions::EntryOrder::SizeLargest);
        apply(QStringLiteral("state:merged,parts-deleted"));
        QCOMPARE(shownKeys(), expected([](const auto& e) {
                     return e.state == cs::actions::EntryState::Merged || e.state == cs::actions::EntryState::PartsDeleted;
                 }, 0));
        // A word that names a filter but cannot be read: the query stays,
        // and the count line says which word and why.
        const cs::actions::EntryQuery before = m->query();
        b->filterEdit()->setText(QStringLiteral("size>12Q"));
        QTRY_VERIFY_WITH_TIMEOUT(b->countText().contains(QStringLiteral("size>12Q")), 10000);
        QVERIFY2(b->countText().startsWith(QStringLiteral("Filter not applied")), qPrintable(b->countText()));
        QVERIFY(m->query() == before);
        b->filterEdit()->clear();
        QTRY_VERIFY_WITH_TIMEOUT(m->query().minSize == std::nullopt && m->query().stateMask == 0 && !m->isFetching(),
                                 10000);
        QVERIFY2(!b->countText().startsWith(QStringLiteral("Filter not applied")), qPrintable(b->countText()));
    }

    void entriesArriveAPageAtATimeAsTheTableScrolls()
    {
        ServerData s;
        addPagedEntries(s);
        ui::MainWindow w;
        ActionsDocument* doc = openIn(w, s.dir);
        QVERIFY2(doc, qPrintable(w.lastError()));
        ActionsEntryModel* m = doc->browser()->model();
        QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSortFilterProxyModel* proxy = doc->browser()->proxy();
        QCOMPARE(m->rowCount(), int(ui::kActionsPageSize));
        QCOMPARE(m->totalEntries(), uint64_t(450));
        QVERIFY2(doc->summaryText().contains(QStringLiteral("450 entries")), qPrintable(doc->summaryText()));
        // What the view does when scrolled to the end (the model tester
        // asks too): fetchMore through the proxy, one page in flight at a time.
        QSignalSpy inserted(m, &QAbstractItemModel::rowsInserted);
        QElapsedTimer t;
        t.start();
        while (m->rowCount() < 450 && t.elapsed() < 20000) {
            if (proxy->canFetchMore({}))
                proxy->fetchMore({});
            QVERIFY(!(m->isFetching() && m->canFetchMore({})));
            QTest::qWait(10);
        }
        QCOMPARE(m->rowCount(), 450);
        QCOMPARE(inserted.size(), 2);   // rows 200..399, then 400..449
        QCOMPARE(inserted.at(0).at(1).toInt(), 200);
        QCOMPARE(inserted.at(0).at(2).toInt(), 399);
        QCOMPARE(inserted.at(1).at(1).toInt(), 400);
        QCOMPARE(inserted.at(1).at(2).toInt(), 449);
        QVERIFY(QTest::qWaitFor([m] { return !m->isFetching(); }, 10000));
        QVERIFY(!proxy->canFetchMore({}));
        // Every entry once, in the catalog's order: key, then version, then id.
        std::set<QString> ids;
        QString previous;
        for (int r = 0; r < m->rowCount(); ++r) {
            ids.insert(m->index(r, 0).data(ActionsEntryModel::EntryIdRole).toString());
            const QString key = m->index(r, ActionsEntryModel::Key).data().toString();
            QVERIFY2(previous.isEmpty() || QString::compare(previous, key) <= 0, qPrintable(previous + " > " + key));
            previous = key;
        }
        QCOMPARE(int(ids.size()), 450);
        // A re-read (as after a write) keeps the rows loaded so far.
        QSignalSpy reloaded(doc, &ActionsDocument::reloaded);
        doc->reload();
        QVERIFY(reloaded.wait(10000));
        QCOMPARE(m->rowCount(), 450);
        QVERIFY(!proxy->canFetchMore({}));
    }

    void partsPaneListsPartsInIndexOrder()
    {
        ServerData s;
        QVERIFY(QFile::remove(s.storage() + "/1003/parts/5"));
        ui::MainWindow w;
        ActionsDocument* doc = openIn(w, s.dir);
        QVERIFY(doc);
        ui::ActionsBrowser* b = doc->browser();
        QAbstractItemModelTester partsTester(b->partsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        // Opening selects the top row (the first key in the catalog's key
        // order, in which pages arrive) and lists its parts.
        QCOMPARE(b->selectedEntries().size(), size_t(1));
        QCOMPARE(QString::fromStdString(b->selectedEntries()[0].key), QStringLiteral("buildkit-unmerged-12-parts"));
        const ui::ActionsPartsModel* p = b->partsModel();
        QSignalSpy loaded(b, &ui::ActionsBrowser::partsLoaded);
        // Another entry, then back: the pane follows the current row.
        b->selectSourceRow(rowOfKey(b->model(), QStringLiteral("windows-merge-stalled")));
        QVERIFY(loaded.wait(10000));
        QCOMPARE(p->rowCount(), 2);
        QVERIFY2(b->partsHeader()->text().contains(QStringLiteral("2 of 2 claimed parts present")), qPrintable(b->partsHeader()->text()));
        b->selectSourceRow(rowOfKey(b->model(), QStringLiteral("buildkit-unmerged-12-parts")));
        QVERIFY(loaded.wait(10000));
        QVERIFY(loaded.last().at(0).toBool());
        const auto& e = s.entry("1003");
        QCOMPARE(p->rowCount(), 12);   // 10 and 11 after 9, part 5 listed as missing
        for (int i = 0; i < 12; ++i) {
            QCOMPARE(p->index(i, ui::ActionsPartsModel::Part).data().toString(), QString::number(i));
            if (i == 5) {
                QCOMPARE(p->index(i, ui::ActionsPartsModel::Present).data().toString(), QStringLiteral("missing"));
                continue;
            }
            QCOMPARE(p->index(i, ui::ActionsPartsModel::Present).data().toString(), QStringLiteral("yes"));
            QCOMPARE(p->index(i, ui::ActionsPartsModel::Size).data(ui::ActionsPartsModel::SortRole).toLongLong(), e.parts[i].size());
        }
        QVERIFY2(b->partsHeader()->text().contains(QStringLiteral("11 of 12 claimed parts present")), qPrintable(b->partsHeader()->text()));
        QVERIFY2(b->partsHeader()->text().contains(QStringLiteral("no merged object")), qPrintable(b->partsHeader()->text()));
    }

    void openBrowseVerifyChangesNoByte()
    {
        ServerData s;
        const auto before = hashTree(s.dir);
        {
            ui::MainWindow w;
            ActionsDocument* doc = openIn(w, s.dir);
            QVERIFY2(doc, qPrintable(w.lastError()));
            ui::ActionsBrowser* b = doc->browser();
            for (int r = 0; r < b->model()->rowCount(); ++r) {
                b->selectSourceRow(r);
                const auto* e = b->model()->entryAt(r);
                QTRY_VERIFY_WITH_TIMEOUT(!b->isLoadingParts()
                                             && b->partsHeader()->text().contains(QString::fromStdString(e->key)),
                                         10000);
            }
            b->table()->selectAll();
            QVERIFY(doc->mergeSelectedAction()->isEnabled());

            QAbstractItemModelTester findingTester(doc->findingModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
            QSignalSpy done(doc, &ActionsDocument::actionFinished);
            doc->verifyAction()->trigger();
            QVERIFY(done.wait(20000));
            QVERIFY2(lastOutcome(done).ok(), qPrintable(lastOutcome(done).message));
            // Each finding names what it is about and the path; the fixture's damage is all there.
            const auto& findings = doc->findingModel()->findings();
            QSet<QString> kinds;
            for (const auto& f : findings) {
                QVERIFY2(!f.path.empty(), f.message.c_str());
                kinds << QString::fromLatin1(cs::actions::findingKindName(f.kind));
            }
            for (const char* k : {"orphan-folder", "location-without-entry", "unfinished-upload", "stalled-merge"})
                QVERIFY2(kinds.contains(QLatin1String(k)), k);
            QCOMPARE(doc->findingModel()->rowCount(), int(findings.size()));
            const int orphanRow = [&] {
                for (int r = 0; r < doc->findingModel()->rowCount(); ++r)
                    if (doc->findingModel()->index(r, ui::ActionsFindingModel::Kind).data().toString() == "orphan-folder")
                        return r;
                return -1;
            }();
            QVERIFY(doc->findingModel()->index(orphanRow, ui::ActionsFindingModel::Path).data().toString().endsWith("9999"));
            QCOMPARE(doc->views()->currentIndex(), 2);

            QSignalSpy reread(doc, &ActionsDocument::reloaded);
            doc->reload();
            QVERIFY(reread.wait(10000));
            w.closeCurrentTab();
        }
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        const auto after = hashTree(s.dir);
        QVERIFY(!QFileInfo::exists(s.db() + "-wal"));
        QVERIFY(!QFileInfo::exists(s.db() + "-shm"));
        QVERIFY(!QFileInfo::exists(s.db() + "-journal"));
        QVERIFY2(after == before, qPrintable(testsupport::treeDifferences(before, after).join(QLatin1Char(' '))));
        QCOMPARE(cs::store::Catalog::journalModeOnDisk(s.db().toStdString()), std::string("delete"));
    }

    void opensFromSqliteDbDropAndFlatLayout()
    {
        ServerData s;
        ui::MainWindow w;
        ActionsDocument* doc = openIn(w, s.db());   // the sqlite.db itself
        QVERIFY2(doc, qPrintable(w.lastError()));
        QCOMPARE(doc->dataDirPath(), QDir(s.dir).absolutePath());
        QCOMPARE(QDir(QString::fromStdString(doc->location().paths.storageDir)).absolutePath(), QDir(s.storage()).absolutePath());
        QVERIFY(w.openPath(s.dir));   // the same data: its tab is selected
        QCOMPARE(w.documentCount(), 1);
        QCOMPARE(w.tabs()->tabText(0), QStringLiteral("%1/.data (cache server)").arg(QFileInfo(s.tmp.path()).fileName()));

        // A drop of another data dir, laid out as <data>/storage/<folder>.
        ServerData flat(QStringLiteral("flat"), ActionsCacheFixture::Layout::Flat);
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(flat.dir)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &drop);
        QVERIFY2(w.documentCount() == 2, qPrintable(w.lastError()));
        auto* dropped = qobject_cast<ActionsDocument*>(w.currentDocument());
        QVERIFY(dropped);
        QCOMPARE(QDir(QString::fromStdString(dropped->location().paths.storageDir)).absolutePath(), QDir(flat.dir + "/storage").absolutePath());
        QTRY_VERIFY_WITH_TIMEOUT(dropped->isLoaded(), 10000);
        QCOMPARE(dropped->browser()->model()->rowCount(), 5);
    }

    void damagedDatabaseIsOneSentence()
    {
        ServerData s;
        QFile f(s.db());
        QVERIFY(f.open(QIODevice::ReadWrite));
        f.write(QByteArray(4096, 'x'));   // header and first page overwritten
        f.close();
        ui::MainWindow w;
        QVERIFY(!w.openPath(s.dir));
        QCOMPARE(w.documentCount(), 0);
        const QString error = w.lastError();
        QVERIFY2(error.contains(QStringLiteral("sqlite.db")), qPrintable(error));
        QVERIFY2(!error.contains(QLatin1Char('\n')), qPrintable(error));

        // A valid SQLite file that is not the server's: it says so.
        ServerData other;
        QFile::remove(other.db());
        sqlite3* h = nullptr;
        sqlite3_open(other.db().toUtf8().constData(), &h);
        sqlite3_exec(h, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
        sqlite3_close(h);
        QVERIFY(!w.openPath(other.dir));
        QVERIFY2(w.lastError().contains(QStringLiteral("sqlite.db")), qPrintable(w.lastError()));
        QVERIFY2(!w.lastError().contains(QLatin1Char('\n')), qPrintable(w.lastError()));

        // sqlite.db without its storage folder: the sentence names the folder.
        ServerData bare;
        QVERIFY(QDir(bare.dir + "/storage").removeRecursively());
        QVERIFY(!w.openPath(bare.dir));
        QVERIFY2(w.lastError().contains(QStringLiteral("storage")), qPrintable(w.lastError()));
        QCOMPARE(w.documentCount(), 0);
    }

    void mergeWritesOnlyAfterConfirmation()
    {
        ServerData s;
        ui::MainWindow w;
        ActionsDocument* doc = openIn(w, s.dir);
        QVERIFY(doc);
        ui::ActionsBrowser* b = doc->browser();
        b->selectSourceRow(rowOfKey(b->model(), QStringLiteral("buildkit-unmerged-12-parts")));
        const auto before = hashTree(s.dir);
        QVERIFY(doc->mergeSelectedAction()->isEnabled());
        doc->mergeSelectedAction()->trigger();
        // The plan is shown and asked about; nothing changed yet.
        QMessageBox* box = waitForConfirmation(doc);
        QVERIFY(box);
        QVERIFY2(box->text().contains(QStringLiteral("buildkit-unmerged-12-parts")), qPrintable(box->text()));
        QVERIFY2(!box->text().contains(QStringLiteral("looks active")), qPrintable(box->text()));
        QCOMPARE(hashTree(s.dir), before);
        QSignalSpy done(doc, &ActionsDocument::actionFinished);
        QSignalSpy reread(doc, &ActionsDocument::reloaded);
        QVERIFY(confirm(doc));
        QVERIFY(done.wait(20000));
        QVERIFY2(lastOutcome(done).ok(), qPrintable(lastOutcome(done).message));
        QVERIFY(reread.wait(10000));
        // The merged object is the parts in numeric index order (10 and 11 after 9).
        QCOMPARE(QString::fromStdString(testsupport::sha256OfFile(s.storage() + "/1003/merged")), sha(s.entry("1003").blob));
        // The parts stay for the grace (a download may still stream them).
        QCOMPARE(QDir(s.storage() + "/1003/parts").entryList(QDir::Files).size(), 12);
        const int r = rowOfKey(b->model(), QStringLiteral("buildkit-unmerged-12-parts"));
        QCOMPARE(b->model()->index(r, ActionsEntryModel::State).data().toString(), QStringLiteral("merged"));
        // The other unmerged entry was not touched.
        QVERIFY(!QFileInfo::exists(s.storage() + "/1005/merged"));
    }

    void activeServerNeedsAnExplicitAnyway()
    {
        ServerData s;
        // The server just received a part of its unfinished upload.
        s.fixture->exec(QStringLiteral("UPDATE uploads SET lastPartUploadedAt = %1").arg(QDateTime::currentMSecsSinceEpoch()));
        ui::MainWindow w;
        ActionsDocument* doc = openIn(w, s.dir);
        QVERIFY(doc);
        doc->browser()->selectSourceRow(rowOfKey(doc->browser()->model(), QStringLiteral("macos-never-downloaded")));
        doc->mergeSelectedAction()->trigger();
        QMessageBox* box = waitForConfirmation(doc);
        QVERIFY(box);
        QVERIFY2(box->text().contains(QStringLiteral("looks active")), qPrintable(box->text()));
        QVERIFY2(box->text().contains(QStringLiteral("upload-never-finished")), qPrintable(box->text()));
        auto* button = box->findChild<QPushButton*>(QStringLiteral("confirmButton"));
        QCOMPARE(button->text(), QStringLiteral("Merge anyway"));
        QSignalSpy done(doc, &ActionsDocument::actionFinished);
        button->click();
        QVERIFY(done.wait(20000));
        QVERIFY2(lastOutcome(done).ok(), qPrintable(lastOutcome(done).message));
        QCOMPARE(QString::fromStdString(testsupport::sha256OfFile(s.storage() + "/1005/merged")), sha(s.entry("1005").blob));
    }

    void cancelledMergeLeavesNothingBehind()
    {
        ServerData s;
        {
            // A 64 MiB entry: its merge is still copying when Cancel arrives.
            QByteArray part = testsupport::randomBytes(8 << 20, 77);
            QDir().mkpath(s.storage() + "/1008/parts");
            for (int i = 0; i < 8; ++i)
                QVERIFY(testsupport::writeFile(s.storage() + "/1008/parts/" + QString::number(i), part));
            const qint64 dayAgo = QDateTime::currentMSecsSinceEpoch() - 86400000;
            s.fixture->exec("INSERT INTO storage_locations VALUES ('loc-big', '1008', 8, NULL, NULL, NULL, NULL)");
            s.fixture->exec(QStringLiteral("INSERT INTO cache_entries (id, key, version, updatedAt, locationId, scope, repoId) "
                                           "VALUES ('e-big', 'docker-big', 'v', %1, 'loc-big', 'refs/heads/main', '1')").arg(dayAgo));
        }
        ui::MainWindow w;
        ActionsDocument* doc = openIn(w, s.dir);
        QVERIFY(doc);
        doc->browser()->selectSourceRow(rowOfKey(doc->browser()->model(), QStringLiteral("docker-big")));
        QSignalSpy done(doc, &ActionsDocument::actionFinished);
        doc->mergeSelectedAction()->trigger();
        QVERIFY(confirm(doc));
        QVERIFY(doc->jobRunner()->isRunning());
        doc->jobRunner()->cancel();
        QVERIFY(done.wait(20000));
        QVERIFY(lastOutcome(done).cancelled());
        QVERIFY(!QFileInfo::exists(s.storage() + "/1008/merged"));
        QCOMPARE(QDir(s.storage() + "/1008").entryList(QDir::Files | QDir::Hidden).size(), 0);   // no temp object left
        QCOMPARE(QDir(s.storage() + "/1008/parts").entryList(QDir::Files).size(), 8);
        // The location row is as it was (the merge marked it started, then cleared the mark, as the server does).
        sqlite3* h = nullptr;
        QCOMPARE(sqlite3_open_v2(s.db().toUtf8().constData(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(h, "SELECT mergeStartedAt IS NULL AND mergedAt IS NULL AND partsDeletedAt IS NULL "
                              "FROM storage_locations WHERE id = 'loc-big'", -1, &st, nullptr);
        QCOMPARE(sqlite3_step(st), SQLITE_ROW);
        QCOMPARE(sqlite3_column_int(st, 0), 1);
        sqlite3_finalize(st);
        sqlite3_close(h);
    }

    void evictPreviewsThenRemovesRowsAndFolders()
    {
        ServerData s;
        ui::MainWindow w;
        ActionsDocument* doc = openIn(w, s.dir);
        QVERIFY(doc);
        doc->evictAction()->trigger();
        auto* dialog = doc->findChild<ui::ActionsEvictDialog*>(QStringLiteral("evictDialog"));
        QVERIFY(dialog);
        dialog->selectedKeysBox()->setChecked(false);
        dialog->olderThanEdit()->setText(QStringLiteral("30d"));
        const auto before = hashTree(s.dir);
        QSignalSpy previewed(dialog, &ui::ActionsEvictDialog::previewFinished);
        dialog->previewButton()->click();
        QVERIFY(previewed.wait(10000));
        QVERIFY(previewed.last().at(0).toBool());
        QCOMPARE(dialog->previewEntries().size(), size_t(1));
        QCOMPARE(QString::fromStdString(dialog->previewEntries()[0].key), QStringLiteral("macos-never-downloaded"));
        QCOMPARE(dialog->previewTable()->rowCount(), 1);
        QCOMPARE(hashTree(s.dir), before);   // the preview read only
        QSignalSpy done(doc, &ActionsDocument::actionFinished);
        QSignalSpy reread(doc, &ActionsDocument::reloaded);
        QVERIFY(dialog->evictButton()->isEnabled());
        QCOMPARE(dialog->evictButton()->text(), QStringLiteral("Evict"));
        dialog->evictButton()->click();
        QVERIFY(done.wait(20000));
        QVERIFY2(lastOutcome(done).ok(), qPrintable(lastOutcome(done).message));
        QVERIFY(reread.wait(10000));
        QCOMPARE(doc->browser()->model()->rowCount(), 4);
        QCOMPARE(rowOfKey(doc->browser()->model(), QStringLiteral("macos-never-downloaded")), -1);
        QVERIFY(!QFileInfo::exists(s.storage() + "/1005"));
        QVERIFY(QFileInfo::exists(s.storage() + "/1003/parts/11"));
    }

    // The preview applies the write's skip rules: an entry downloaded a
    // minute ago (inside the 10 min parts grace) is not listed as going,
    // and the summary says it stays and why; the write then keeps it.
    void evictPreviewSaysWhatTheWriteWouldKeep()
    {
        ServerData s;
        {
            sqlite3* db = nullptr;
            QCOMPARE(sqlite3_open(s.db().toUtf8().constData(), &db), SQLITE_OK);
            const std::string sql = "UPDATE storage_locations SET lastDownloadedAt = "
                                    + std::to_string(QDateTime::currentMSecsSinceEpoch() - 60000)
                                    + " WHERE folderName = '1001'";
            QCOMPARE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
            sqlite3_close(db);
        }
        ui::MainWindow w;
        ActionsDocument* doc = openIn(w, s.dir);
        QVERIFY(doc);
        doc->evictAction()->trigger();
        auto* dialog = doc->findChild<ui::ActionsEvictDialog*>(QStringLiteral("evictDialog"));
        QVERIFY(dialog);
        dialog->selectedKeysBox()->setChecked(false);
        dialog->olderThanEdit()->setText(QStringLiteral("1s"));   // every entry by age
        QSignalSpy previewed(dialog, &ui::ActionsEvictDialog::previewFinished);
        dialog->previewButton()->click();
        QVERIFY(previewed.wait(10000));
        QVERIFY(previewed.last().at(0).toBool());
        QCOMPARE(dialog->previewEntries().size(), size_t(s.fixture->entries().size() - 1));
        for (const auto& e : dialog->previewEntries())
            QVERIFY(e.key != "linux-cargo-merged");
        const QString text = dialog->messageLabel()->text();
        QVERIFY2(text.contains(QStringLiteral("1 more would be kept")) && text.contains(QStringLiteral("linux-cargo-merged"))
                     && text.contains(QStringLiteral("--parts-grace")),
                 qPrintable(text));
    }

    void removeOrphansAfterConfirmation()
    {
        ServerData s;
        ui::MainWindow w;
        ActionsDocument* doc = openIn(w, s.dir);
        QVERIFY(doc);
        doc->removeOrphansAction()->trigger();
        QMessageBox* box = waitForConfirmation(doc);
        QVERIFY(box);
        QVERIFY2(box->text().contains(QStringLiteral("9999")), qPrintable(box->text()));
        QVERIFY(QFileInfo::exists(s.storage() + "/9999"));
        QSignalSpy done(doc, &ActionsDocument::actionFinished);
        QVERIFY(confirm(doc));
        QVERIFY(done.wait(20000));
        QVERIFY2(lastOutcome(done).ok(), qPrintable(lastOutcome(done).message));
        QVERIFY(!QFileInfo::exists(s.storage() + "/9999"));
        QVERIFY(QFileInfo::exists(s.storage() + "/7001"));   // the unfinished upload's folder is named by its row
        for (const auto& e : s.fixture->entries())
            QVERIFY2(QFileInfo::exists(s.storage() + "/" + e.folder), qPrintable(e.folder));
        // A second time there is nothing to do, and it says so without asking.
        doc->removeOrphansAction()->trigger();
        QTRY_VERIFY(doc->findChild<QMessageBox*>(QStringLiteral("nothingToDo")));
        QVERIFY(!doc->findChild<QMessageBox*>(QStringLiteral("confirmWrite")));
    }

    void importCopiesEveryEntryIntoANativeStore()
    {
        ServerData s;
        ui::MainWindow w;
        ActionsDocument* doc = openIn(w, s.dir);
        QVERIFY(doc);
        doc->browser()->table()->clearSelection();
        const QString storeDir = s.tmp.filePath(QStringLiteral("native"));
        const auto before = hashTree(s.dir);
        QSignalSpy done(doc, &ActionsDocument::actionFinished);
        doc->importInto(storeDir);
        QVERIFY(confirm(doc));
        QVERIFY(done.wait(30000));
        QVERIFY2(lastOutcome(done).ok(), qPrintable(lastOutcome(done).message));
        QCOMPARE(hashTree(s.dir), before);   // the server's data was only read
        auto store = cs::store::Store::open(storeDir.toStdString());
        const QString out = s.tmp.filePath(QStringLiteral("restored"));
        for (const auto& e : s.fixture->entries()) {
            // The import keeps the server's identity: its scope and repository
            // (the fixture writes every entry on refs/heads/main of repo 1).
            const auto row = store->findEntry(e.key.toStdString(), e.version.toStdString(), "refs/heads/main");
            QVERIFY2(row, qPrintable(e.key));
            QCOMPARE(row->repo, std::string("1"));
            QVERIFY2(row->origin.rfind("actions:" + e.id.toStdString() + "@", 0) == 0, row->origin.c_str());
            cs::Job job;
            store->restoreEntryToFile(row->id, out.toStdString(), job);
            QCOMPARE(QString::fromStdString(testsupport::sha256OfFile(out)), sha(e.blob));
        }
    }
};

CACHESCOPE_TEST_MAIN(TestActionsDocument)
#include "tst_actions_document.moc"
