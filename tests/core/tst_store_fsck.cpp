// fsck finds a flipped byte in the pack, a deleted part, a truncated pack
// suffix, a wrong dedup row; it changes nothing; `store fsck` exits 0 when
// clean and 1 otherwise.
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include "core/pack/Pack.h"

#include <QFile>

using namespace cs::store;

namespace {

struct Fixture {
    QTemporaryDir tmp;
    std::unique_ptr<Store> store;
    EntryRow merged, unmerged;
    QByteArray mergedData, unmergedData;

    Fixture()
    {
        store = Store::init(tmp.filePath("s").toStdString());
        mergedData = testsupport::textBytes(6 << 20, 1);
        unmergedData = testsupport::randomBytes(3 << 20, 2);
        merged = storetest::upload(*store, "merged-key", mergedData, 1 << 20, 2);
        cs::Job job;
        job.start();
        store->merge(merged.id, job);
        merged = *store->entry(merged.id);
        unmerged = storetest::upload(*store, "unmerged-key", unmergedData, 1 << 20, 2);
    }
    QString suffix() const { return QString::fromStdString(store->dir() + "/pack/0.suffix"); }
    std::vector<FsckProblem> fsck()
    {
        cs::Job job;
        job.start();
        return store->fsck(job);
    }
    QByteArray catalogRows()
    {
        QByteArray all;
        for (const auto& e : store->listEntries({}, SortColumn::Id, false, 0, 1000))
            all += QByteArray::fromStdString(e.key + e.sha256 + entryStateName(e.state) + std::to_string(e.lastAccess));
        return all;
    }
};

QString describe(const std::vector<FsckProblem>& ps)
{
    QString s;
    for (const auto& p : ps)
        s += QString::fromStdString(p.key + " @" + (p.offset ? std::to_string(*p.offset) : "-") + ": " + p.message) + "\n";
    return s;
}

} // namespace

class StoreFsckTest : public QObject {
    Q_OBJECT

private slots:
    void cleanStore()
    {
        Fixture f;
        QVERIFY2(f.fsck().empty(), qPrintable(describe(f.fsck())));
        const auto r = testsupport::cli({"store", "fsck", QString::fromStdString(f.store->dir())});
        QCOMPARE(r.exitCode, 0);
    }

    void flippedByteInThePack()
    {
        Fixture f;
        const auto det = f.store->entryDetails(f.merged.id);
        const ObjectInfo& chunk = det.objects[2];   // the second chunk
        QCOMPARE(chunk.kind, ObjectInfo::Chunk);
        {
            QFile file(f.suffix());
            QVERIFY(file.open(QIODevice::ReadWrite));
            const qint64 at = qint64(chunk.offset + chunk.storedBytes / 2);
            file.seek(at);
            char c = 0;
            file.getChar(&c);
            file.seek(at);
            file.putChar(char(c ^ 0x10));
        }
        const QByteArray before = f.catalogRows();
        const qint64 packSize = QFileInfo(f.suffix()).size();
        const auto problems = f.fsck();
        QVERIFY(!problems.empty());
        QCOMPARE(problems.front().key, std::string("merged-key"));
        QVERIFY2(describe(problems).contains(QString::number(chunk.offset)), qPrintable(describe(problems)));
        // fsck changed nothing.
        QCOMPARE(f.catalogRows(), before);
        QCOMPARE(QFileInfo(f.suffix()).size(), packSize);
        // A restore refuses the damaged entry with a clear error.
        STORE_VERIFY_THROWS(cs::Error, storetest::restore(*f.store, f.merged.id));
        const auto r = testsupport::cli({"store", "fsck", QString::fromStdString(f.store->dir())});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.contains("merged-key"));
    }

    // A chunk header whose SHA-256 no longer matches its (intact, decodable,
    // checksummed) frame: the default restore checks what `zstd -d` checks
    // and delivers the right bytes; `store get --verify` and fsck refuse it.
    void chunkHashOnlyCaughtByVerifyAndFsck()
    {
        Fixture f;
        const auto det = f.store->entryDetails(f.merged.id);
        const ObjectInfo& chunk = det.objects[2];
        QCOMPARE(chunk.kind, ObjectInfo::Chunk);
        {
            QFile file(f.suffix());
            QVERIFY(file.open(QIODevice::ReadWrite));
            const qint64 at = qint64(chunk.offset) + cs::pack::kChunkHeaderBytes - 1;   // last byte of the SHA-256
            file.seek(at);
            char c = 0;
            file.getChar(&c);
            file.seek(at);
            file.putChar(char(c ^ 0x01));
        }
        QCOMPARE(storetest::restore(*f.store, f.merged.id), f.mergedData);
        const QString dir = QString::fromStdString(f.store->dir());
        const QString out = f.tmp.filePath("out.bin");
        auto plain = testsupport::cli({"store", "get", "--wait", dir, "merged-key", out});
        QCOMPARE(plain.exitCode, 0);
        QFile restored(out);
        QVERIFY(restored.open(QIODevice::ReadOnly));
        QCOMPARE(restored.readAll(), f.mergedData);
        restored.close();
        QVERIFY(QFile::remove(out));
        auto verified = testsupport::cli({"store", "get", "--wait", dir, "merged-key", out, "--verify"});
        QCOMPARE(verified.exitCode, 1);
        QVERIFY2(verified.err.contains(QByteArray::number(qulonglong(chunk.offset))) && verified.err.contains("SHA-256"),
                 verified.err.constData());
        QVERIFY(!QFile::exists(out));
        const auto problems = f.fsck();
        QVERIFY2(describe(problems).contains(QString::number(chunk.offset)), qPrintable(describe(problems)));
    }

    void deletedPart()
    {
        Fixture f;
        QVERIFY(QFile::remove(QString::fromStdString(f.store->dir() + "/parts/" + std::to_string(f.unmerged.id) + "/1")));
        const auto problems = f.fsck();
        QCOMPARE(problems.size(), size_t(1));
        QCOMPARE(problems[0].key, std::string("unmerged-key"));
        QCOMPARE(problems[0].offset, std::optional<uint64_t>(1));
        QVERIFY(QString::fromStdString(problems[0].message).contains(QStringLiteral("part 1 is missing")));
        STORE_VERIFY_THROWS(cs::Error, storetest::restore(*f.store, f.unmerged.id));
        QCOMPARE(f.store->entry(f.unmerged.id)->state, EntryState::Unmerged);
    }

    void shortenedPart()
    {
        Fixture f;
        QFile part(QString::fromStdString(f.store->dir() + "/parts/" + std::to_string(f.unmerged.id) + "/0"));
        QVERIFY(part.resize(1000));
        const auto problems = f.fsck();
        QCOMPARE(problems.size(), size_t(1));
        QVERIFY(QString::fromStdString(problems[0].message).contains(QStringLiteral("has 1000 bytes")));
    }

    void truncatedSuffix()
    {
        Fixture f;
        QFile file(f.suffix());
        QVERIFY(file.resize(file.size() / 2));
        const auto problems = f.fsck();
        QVERIFY(!problems.empty());
        bool aboutEntry = false;
        for (const auto& p : problems)
            aboutEntry |= p.key == "merged-key";
        QVERIFY2(aboutEntry, qPrintable(describe(problems)));
        QCOMPARE(testsupport::cli({"store", "fsck", QString::fromStdString(f.store->dir())}).exitCode, 1);
    }

    void wrongDedupRow()
    {
        Fixture f;
        QVERIFY(storetest::sql(f.store->catalogPath(), "UPDATE chunks SET raw_size = raw_size + 1 WHERE rowid = (SELECT min(rowid) FROM chunks)"));
        const auto problems = f.fsck();
        QCOMPARE(problems.size(), size_t(1));
        QVERIFY(QString::fromStdString(problems[0].message).contains(QStringLiteral("dedup index")));
    }
};

CACHESCOPE_CORE_TEST_MAIN(StoreFsckTest)
#include "tst_store_fsck.moc"
