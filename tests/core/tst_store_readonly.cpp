// issue 9: "a read-only store cannot even be listed". A store the user may
// read but not write (as root: the CLI runs as uid/gid 65534 through
// setpriv, the store owned by root with modes 0755/0644; as another user:
// the store made read-only with chmod) is listed, restored from (merged
// entries; unmerged ones from their parts, the merge skipped) and checked by
// fsck, and no byte, file or folder of it changes.
#include "common/TestSupport.h"
#include "common/TreeHash.h"
#include "StoreTestSupport.h"

#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <sys/stat.h>
#include <unistd.h>

namespace {

// Runs the CLI as a user who cannot write the store.
testsupport::ProcessResult cliAsReader(const QStringList& args)
{
    if (::geteuid() != 0)
        return testsupport::cli(args);
    const QString setpriv = QStandardPaths::findExecutable(QStringLiteral("setpriv"));
    if (setpriv.isEmpty())
        return {-1, {}, "setpriv (util-linux) is needed to run the CLI as another user than root"};
    return testsupport::run(setpriv, QStringList{"--reuid=65534", "--regid=65534", "--clear-groups",
                                                 QStringLiteral(CACHESCOPE_CLI)} + args);
}

void setModes(const QString& root, bool writable)
{
    const mode_t dirMode = writable ? 0755 : 0555, fileMode = writable ? 0644 : 0444;
    ::chmod(root.toLocal8Bit().constData(), dirMode);
    QDirIterator it(root, QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString p = it.next();
        ::chmod(p.toLocal8Bit().constData(), QFileInfo(p).isDir() ? dirMode : fileMode);
    }
}

// The ids of a store's entries by key (store ls --json, run as root).
QMap<QString, qint64> idsByKey(const QString& dir)
{
    QMap<QString, qint64> ids;
    const auto ls = testsupport::cli({"store", "ls", dir, "--json"});
    for (const auto& r : QJsonDocument::fromJson(ls.out).array())
        ids.insert(r.toObject().value("key").toString(), r.toObject().value("id").toInteger());
    return ids;
}

void flipByte(const QString& path, qsizetype at)
{
    QByteArray bytes = testsupport::readFile(path);
    QVERIFY(bytes.size() > at);
    bytes[at] = char(bytes[at] ^ 0x20);
    QVERIFY(testsupport::writeFile(path, bytes));
}

} // namespace

class TestStoreReadOnly : public QObject {
    Q_OBJECT
private slots:
    void readOnlyStoreIsListedRestoredAndCheckedUnchanged()
    {
        QTemporaryDir tmp;
        // The reader must reach the store: the temp folder is 0700.
        QVERIFY(::chmod(tmp.path().toLocal8Bit().constData(), 0755) == 0);
        const QString dir = tmp.filePath("s");
        const QString input = tmp.filePath("in");
        const QByteArray merged = testsupport::randomBytes(400000, 41);
        const QByteArray other = testsupport::textBytes(150000, 42);
        QVERIFY(testsupport::writeFile(input, merged));
        QCOMPARE(testsupport::cli({"store", "init", dir}).exitCode, 0);
        QCOMPARE(testsupport::cli({"store", "put", "--wait", dir, "m", input, "--part-size", "64KiB"}).exitCode, 0);
        QVERIFY(testsupport::writeFile(input, other));
        QCOMPARE(testsupport::cli({"store", "put", dir, "u", input, "--no-merge"}).exitCode, 0);
        setModes(dir, ::geteuid() == 0);   // root: owned by root, others may only read
        const testsupport::TreeHash before = testsupport::hashTree(dir);

        const auto ls = cliAsReader({"store", "ls", dir, "--json"});
        QVERIFY2(ls.exitCode == 0, ls.err.constData());
        const QJsonArray rows = QJsonDocument::fromJson(ls.out).array();
        QCOMPARE(rows.size(), 2);
        QStringList states;
        for (const auto& r : rows)
            states << r.toObject().value("key").toString() + "=" + r.toObject().value("state").toString();
        states.sort();
        QCOMPARE(states, QStringList({"m=merged", "u=unmerged"}));
        const auto human = cliAsReader({"store", "ls", dir});
        QVERIFY2(human.exitCode == 0 && human.out.contains("merged"), human.err.constData());

        const auto get = cliAsReader({"store", "get", "--wait", dir, "m", "-"});
        QVERIFY2(get.exitCode == 0, get.err.constData());
        QCOMPARE(storetest::sha256Hex(get.out), storetest::sha256Hex(merged));

        const auto fsck = cliAsReader({"store", "fsck", dir, "--json"});
        QVERIFY2(fsck.exitCode == 0, fsck.err.constData());
        const auto stats = cliAsReader({"store", "stats", dir});
        QVERIFY2(stats.exitCode == 0, stats.err.constData());

        QCOMPARE(testsupport::hashTree(dir), before);
        setModes(dir, true);   // so QTemporaryDir can remove it
    }

    // The first restore of an unmerged entry merges it; a store this user
    // may not write cannot be merged into. Before: every byte was written,
    // then exit 1 "merging it failed: .../append.lock: cannot create". Now
    // the bytes come from the parts (checked by their CRC-32C, or by the
    // entry's SHA-256 for parts older than the CRCs), stderr says in one
    // sentence that the merge was skipped, exit 0, and no byte changes;
    // damaged parts still fail the restore and deliver nothing.
    void unmergedEntryIsRestoredFromItsPartsAndLeftUnmerged()
    {
        QTemporaryDir tmp;
        QVERIFY(::chmod(tmp.path().toLocal8Bit().constData(), 0755) == 0);
        const QString dir = tmp.filePath("s");
        const QString outDir = tmp.filePath("out");   // where the reader may write
        QVERIFY(QDir().mkpath(outDir));
        QVERIFY(::chmod(outDir.toLocal8Bit().constData(), 0777) == 0);
        const QString input = tmp.filePath("in");
        QCOMPARE(testsupport::cli({"store", "init", dir}).exitCode, 0);
        QMap<QString, QByteArray> data;
        const QStringList keys{"crc", "old", "bad-crc", "bad-old"};
        for (int i = 0; i < keys.size(); ++i) {
            data[keys[i]] = testsupport::randomBytes(300000 + 1000 * i, 60 + i);
            QVERIFY(testsupport::writeFile(input, data[keys[i]]));
            const auto put = testsupport::cli({"store", "put", dir, keys[i], input, "--no-merge", "--part-size", "64KiB"});
            QVERIFY2(put.exitCode == 0, put.err.constData());
        }
        const auto ids = idsByKey(dir);
        QCOMPARE(ids.size(), 4);
        // Parts committed before schema 4 carry no CRC-32C.
        QVERIFY(storetest::sql((dir + "/catalog.db").toStdString(),
                               "UPDATE parts SET crc32c=NULL WHERE entry_id IN (" + QString::number(ids["old"]).toStdString()
                                   + "," + QString::number(ids["bad-old"]).toStdString() + ")"));
        flipByte(dir + "/parts/" + QString::number(ids["bad-crc"]) + "/2", 1000);
        flipByte(dir + "/parts/" + QString::number(ids["bad-old"]) + "/2", 1000);
        setModes(dir, ::geteuid() == 0);
        const testsupport::TreeHash before = testsupport::hashTree(dir);

        for (const QString key : {"crc", "old"}) {
            const auto toStdout = cliAsReader({"store", "get", "--wait", dir, key, "-"});
            QVERIFY2(toStdout.exitCode == 0, toStdout.err.constData());
            QCOMPARE(storetest::sha256Hex(toStdout.out), storetest::sha256Hex(data[key]));
            // One sentence saying why the entry stays unmerged, then the summary.
            const QList<QByteArray> lines = toStdout.err.trimmed().split('\n');
            QCOMPARE(lines.size(), 2);
            QVERIFY2(lines[0].contains("read-only") && lines[0].contains("left unmerged")
                         && lines[0].contains("'" + key.toUtf8() + "'"),
                     toStdout.err.constData());
            QVERIFY2(lines[1].startsWith("restored " + key.toUtf8()), toStdout.err.constData());

            const QString file = outDir + "/" + key;
            const auto toFile = cliAsReader({"store", "get", "--wait", dir, key, file});
            QVERIFY2(toFile.exitCode == 0, toFile.err.constData());
            QCOMPARE(storetest::sha256Hex(testsupport::readFile(file)), storetest::sha256Hex(data[key]));
            QVERIFY2(toFile.err.contains("left unmerged"), toFile.err.constData());
        }
        for (const QString key : {"bad-crc", "bad-old"}) {
            const QString file = outDir + "/" + key;
            const auto get = cliAsReader({"store", "get", "--wait", dir, key, file});
            QCOMPARE(get.exitCode, 1);
            QVERIFY2(get.err.contains(key == "bad-crc" ? "part 2 does not match the CRC-32C" : "do not match its SHA-256"),
                     get.err.constData());
            QVERIFY2(!QFileInfo::exists(file), "a damaged entry delivered a file");
        }

        const auto ls = cliAsReader({"store", "ls", dir, "--json"});
        for (const auto& r : QJsonDocument::fromJson(ls.out).array())
            QCOMPARE(r.toObject().value("state").toString(), QStringLiteral("unmerged"));
        QCOMPARE(testsupport::hashTree(dir), before);
        setModes(dir, true);
    }
};

QTEST_GUILESS_MAIN(TestStoreReadOnly)
#include "tst_store_readonly.moc"
