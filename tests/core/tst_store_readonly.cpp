// issue 9: "a read-only store cannot even be listed". A store the user may
// read but not write (as root: the CLI runs as uid/gid 65534 through
// setpriv, the store owned by root with modes 0755/0644; as another user:
// the store made read-only with chmod) is listed, restored from (merged
// entries) and checked by fsck, and no byte, file or folder of it changes.
#include "common/TestSupport.h"
#include "common/TreeHash.h"
#include "StoreTestSupport.h"

#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
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
        QCOMPARE(testsupport::cli({"store", "put", dir, "m", input, "--part-size", "64KiB"}).exitCode, 0);
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

        const auto get = cliAsReader({"store", "get", dir, "m", "-"});
        QVERIFY2(get.exitCode == 0, get.err.constData());
        QCOMPARE(storetest::sha256Hex(get.out), storetest::sha256Hex(merged));

        const auto fsck = cliAsReader({"store", "fsck", dir, "--json"});
        QVERIFY2(fsck.exitCode == 0, fsck.err.constData());
        const auto stats = cliAsReader({"store", "stats", dir});
        QVERIFY2(stats.exitCode == 0, stats.err.constData());

        QCOMPARE(testsupport::hashTree(dir), before);
        setModes(dir, true);   // so QTemporaryDir can remove it
    }
};

QTEST_GUILESS_MAIN(TestStoreReadOnly)
#include "tst_store_readonly.moc"
