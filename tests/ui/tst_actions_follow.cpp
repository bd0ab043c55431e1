// The cache-server document follows the server (issue 21): a save, a merge
// and a delete made by another process (the sqlite3 shell, as the server's
// better-sqlite3 would write them) show in the open document within 2 s,
// in place: the selected entry stays selected and the table stays where it
// was scrolled. The polls are read-only: with nobody else writing, every
// file of the data dir keeps its bytes and times.
#include "common/ActionsCacheFixture.h"
#include "common/TestSupport.h"
#include "common/TreeHash.h"
#include "ui/actions/ActionsBrowser.h"
#include "ui/actions/ActionsDocument.h"
#include "ui/actions/ActionsEntryModel.h"
#include "ui/actions/ActionsWatcher.h"
#include "ui/shell/MainWindow.h"

#include <QProcess>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>

#include <sqlite3.h>

using testsupport::ActionsCacheFixture;
using ui::ActionsDocument;
using ui::ActionsEntryModel;

namespace {

// Another process writing the database: the sqlite3 shell.
void otherProcessSql(const QString& db, const QString& sql)
{
    QProcess p;
    p.start("sqlite3", {db, sql});
    QVERIFY2(p.waitForFinished(20000) && p.exitCode() == 0, p.readAllStandardError().constData());
}

int rowOfKey(const ActionsEntryModel* m, const QString& key)
{
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->index(r, ActionsEntryModel::Key).data().toString() == key)
            return r;
    return -1;
}

QString selectedKey(ActionsDocument* doc)
{
    const auto sel = doc->browser()->selectedEntries();
    return sel.size() == 1 ? QString::fromStdString(sel[0].key) : QString();
}

} // namespace

class TestActionsFollow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QCoreApplication::setOrganizationName(QStringLiteral("cachescope-test-actions-follow")); }

    void anotherProcessesChangesShowInPlace()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(".data");
        QDir().mkpath(dir);
        ActionsCacheFixture f(dir);
        // 150 more entries, so the table scrolls.
        otherProcessSql(f.dbPath(),
                        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150) "
                        "INSERT INTO storage_locations (id, folderName, partCount) SELECT 'more-loc-' || i, "
                        "CAST(3000000000 + i AS TEXT), 1 FROM n; "
                        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150) "
                        "INSERT INTO cache_entries (id, key, version, scope, repoId, updatedAt, locationId) "
                        "SELECT 'more-' || i, 'more-key-' || printf('%04d', i), 'v1', 'refs/heads/main', '1', "
                        "1700000000000 + i, 'more-loc-' || i FROM n;");
        ui::MainWindow w;
        w.resize(1200, 700);
        w.show();
        QVERIFY(w.openPath(dir));
        auto* doc = qobject_cast<ActionsDocument*>(w.currentDocument());
        QVERIFY(doc);
        QVERIFY(QTest::qWaitFor([doc] { return doc->isLoaded() && !doc->isReading(); }, 20000));
        ActionsEntryModel* m = doc->browser()->model();
        QTableView* table = doc->browser()->table();
        QCOMPARE(m->rowCount(), 155);

        // Select an entry in the middle and scroll there.
        const int row = rowOfKey(m, "more-key-0100");
        QVERIFY(row >= 0);
        doc->browser()->selectSourceRow(row);
        table->scrollTo(doc->browser()->proxy()->mapFromSource(m->index(row, 0)), QAbstractItemView::PositionAtCenter);
        QTest::qWait(50);
        const int scrolled = table->verticalScrollBar()->value();
        QVERIFY(scrolled > 0);
        QCOMPARE(selectedKey(doc), QString("more-key-0100"));

        // A save: a new location and entry, as completeUpload writes them.
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        otherProcessSql(f.dbPath(), QString("INSERT INTO storage_locations (id, folderName, partCount) VALUES "
                                            "('new-loc', '4000000001', 1); INSERT INTO cache_entries (id, key, version, "
                                            "scope, repoId, updatedAt, locationId) VALUES ('new-entry', 'zzz-new-save', "
                                            "'v1', 'refs/heads/main', '1', %1, 'new-loc');")
                                        .arg(now));
        QTRY_VERIFY_WITH_TIMEOUT(rowOfKey(m, "zzz-new-save") >= 0, 2000);
        QCOMPARE(selectedKey(doc), QString("more-key-0100"));
        QCOMPARE(table->verticalScrollBar()->value(), scrolled);

        // A merge of 1003 by the server.
        const int merging = rowOfKey(m, f.entry("1003").key);
        QCOMPARE(m->index(merging, ActionsEntryModel::State).data().toString(), QString("unmerged"));
        otherProcessSql(f.dbPath(), QString("UPDATE storage_locations SET mergeStartedAt = %1, mergedAt = %1 WHERE "
                                            "folderName = '1003';")
                                        .arg(now));
        QTRY_COMPARE_WITH_TIMEOUT(m->index(rowOfKey(m, f.entry("1003").key), ActionsEntryModel::State).data().toString(),
                                  QString("merged"), 2000);
        QCOMPARE(selectedKey(doc), QString("more-key-0100"));
        QCOMPARE(table->verticalScrollBar()->value(), scrolled);

        // The server's cleanup deleting the new entry.
        otherProcessSql(f.dbPath(), "DELETE FROM cache_entries WHERE id = 'new-entry'; DELETE FROM storage_locations "
                                    "WHERE id = 'new-loc';");
        QTRY_VERIFY_WITH_TIMEOUT(rowOfKey(m, "zzz-new-save") < 0, 2000);
        QCOMPARE(m->rowCount(), 155);
        QCOMPARE(selectedKey(doc), QString("more-key-0100"));
        QCOMPARE(table->verticalScrollBar()->value(), scrolled);

        // Quiet: polls go on and change no byte or time of the data dir.
        const auto before = testsupport::hashTree(dir);
        QSignalSpy polled(doc->watcher(), &ui::ActionsWatcher::polled);
        QSignalSpy reloaded(doc, &ActionsDocument::reloaded);
        QTRY_VERIFY_WITH_TIMEOUT(polled.size() >= 3, 10000);
        QCOMPARE(reloaded.size(), 0);
        QCOMPARE(testsupport::hashTree(dir), before);
    }
};

CACHESCOPE_TEST_MAIN(TestActionsFollow)
#include "tst_actions_follow.moc"
