// Before GC deletes anything, the pack must explain every live entry
// (issue 22, core/pack/PackCheck.h): a control file whose split moved (with
// a valid checksum), a truncated suffix, a mapping record crossing the split
// and a generation at 2^64-1 make GC refuse, naming the entry, the file and
// the offset, with every file of the pack as it was; fsck reports the same
// findings. A refused catalog stops GC before it creates pack/gc.lock.
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include "core/gc/Gc.h"
#include "core/pack/MappingFile.h"
#include "core/pack/Pack.h"
#include "core/pack/PackControl.h"
#include "core/store/Store.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <limits>

using namespace cs::store;
using testsupport::errorOf;

namespace {

// Every file of the pack folder with its SHA-256 (locks aside).
bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

struct Fixture {
    QTemporaryDir tmp;
    QString dir = tmp.filePath("s");
    std::string sdir = dir.toStdString();
    std::vector<QByteArray> data;

    // Four merged entries; with gc, the second is evicted and a GC makes
    // generation 1 (two mapping records), then a fifth entry goes into 1.suffix.
    explicit Fixture(bool gc)
    {
        auto store = Store::init(sdir);
        cs::Job job;
        job.start();
        for (int i = 0; i < 4; ++i) {
            data.push_back(testsupport::randomBytes(200000 + 1000 * i, uint64_t(10 + i)));
            store->merge(storetest::upload(*store, "k" + std::to_string(i), data.back(), 64 << 10).id, job);
        }
        if (!gc)
            return;
        EvictPolicy p;
        p.keys = {"k1"};
        store->evict(p, job);
        data[1].clear();
        cs::Job g;
        cs::gc::collectStoreGarbage(sdir, {}, g);
        data.push_back(testsupport::randomBytes(150000, 20));
        store->merge(storetest::upload(*store, "k4", data.back(), 64 << 10).id, job);
    }
    std::string pack(const std::string& name) const { return sdir + "/pack/" + name; }
    cs::pack::PackControl control() const { return cs::pack::PackControl::read(pack("control")); }
    // Replaces generation 1's mapping file with records, encoded as GC writes them.
    bool writeMapping(const std::vector<cs::pack::MappingRecord>& records) const
    {
        QByteArray bytes;
        for (const auto& r : records) {
            uint8_t b[cs::pack::kMappingRecordSize];
            cs::pack::encodeMappingRecord(r, b);
            bytes.append(reinterpret_cast<const char*>(b), sizeof b);
        }
        return testsupport::writeFile(dir + "/pack/1.mapping", bytes);
    }

    // Every entry still there restores byte-exact.
    void checkEntries() const
    {
        auto store = Store::open(sdir);
        for (size_t i = 0; i < data.size(); ++i) {
            if (data[i].isEmpty())
                continue;
            const auto e = store->lookup(storetest::request("k" + std::to_string(i)));
            QVERIFY(e);
            QCOMPARE(storetest::restore(*store, e->first.id), data[i]);
        }
    }

    // GC (real and dry run) refuses with `what` in its error, changing no
    // file of the pack; fsck reports `what` too unless gcOnly (the entry's
    // name, which fsck gives in its own field).
    void checkRefused(const std::string& what, bool gcOnly = false) const
    {
        const auto before = storetest::packFiles(dir);
        for (bool dry : {false, true}) {
            cs::Job job;
            cs::gc::GcOptions o;
            o.dryRun = dry;
            const std::string e = errorOf([&] { cs::gc::collectStoreGarbage(sdir, o, job); });
            QVERIFY2(contains(e, what) && contains(e, "store fsck") && contains(e, "nothing was deleted"), e.c_str());
            QCOMPARE(storetest::packFiles(dir), before);
        }
        const auto r = testsupport::cli({"store", "gc", dir});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QByteArray::fromStdString(what)), r.err.constData());
        QCOMPARE(storetest::packFiles(dir), before);
        if (gcOnly)
            return;
        auto store = Store::open(sdir);
        cs::Job job;
        job.start();
        bool found = false;
        for (const auto& p : store->fsck(job))
            found = found || contains(p.message, what);
        QVERIFY2(found, what.c_str());
        const auto f = testsupport::cli({"store", "fsck", dir});
        QCOMPARE(f.exitCode, 1);
        QVERIFY2(f.out.contains(QByteArray::fromStdString(what)), f.out.constData());
        QCOMPARE(storetest::packFiles(dir), before);
    }
};

} // namespace

class GcExplainTest : public QObject {
    Q_OBJECT
private slots:
    void healthyStoresPassTheCheckAndCollect()
    {
        Fixture f(true);
        auto store = Store::open(f.sdir);
        cs::Job job;
        job.start();
        QVERIFY(store->fsck(job).empty());
        cs::Job g;
        const auto r = cs::gc::collectStoreGarbage(f.sdir, {}, g);
        QCOMPARE(r.stats.status, std::string("done"));
        QCOMPARE(r.stats.generation, uint64_t(2));
        f.checkEntries();
    }

    void controlSplitZeroWithAValidChecksumIsRefused()
    {
        Fixture f(true);
        auto c = f.control();
        QVERIFY(c.split > 0);
        c.split = 0;
        c.writeAtomic(f.pack("control"));
        // Every record of 1.mapping now lies past the split.
        f.checkRefused(f.pack("1.mapping") + " at offset 0: mapping record 0 ");
        f.checkRefused("past the split 0");
        QVERIFY(QFile::exists(f.dir + "/pack/1.prefix"));
    }

    void controlSplitMovedUpIsRefusedNamingTheEntry()
    {
        Fixture f(true);
        auto c = f.control();
        c.split += 1000;   // the records still lie below it; the suffix's objects moved
        c.writeAtomic(f.pack("control"));
        // k4 (entry 5) is the one entry whose root lies in 1.suffix.
        f.checkRefused("entry 5 (key \"k4\"): ", true);
        f.checkRefused(" at offset ");
        QVERIFY(QFile::exists(f.dir + "/pack/1.prefix"));
    }

    void truncatedSuffixIsRefused_data()
    {
        QTest::addColumn<int>("keepPercent");
        QTest::newRow("90 %") << 90;
        QTest::newRow("50 %") << 50;
        QTest::newRow("1 %") << 1;
    }
    void truncatedSuffixIsRefused()
    {
        QFETCH(int, keepPercent);
        Fixture f(false);
        const QString suffix = f.dir + "/pack/0.suffix";
        QVERIFY(QFile::resize(suffix, QFileInfo(suffix).size() * keepPercent / 100));
        f.checkRefused(f.pack("0.suffix") + " at offset ");
        f.checkRefused("(key \"k", true);   // names the first entry whose root was cut
    }

    void lastMappingRecordCrossingTheSplitIsRefused()
    {
        Fixture f(true);
        const auto c = f.control();
        auto records = cs::pack::MappingFile::open(f.pack("1.mapping"), c.mappingRecords).all();
        QVERIFY(records.size() >= 2);
        auto& last = records.back();
        last.length = c.split - last.offset + 4096;   // past the split, and over another record's prefix bytes
        last.prefixOffset = 0;
        QVERIFY(f.writeMapping(records));
        const std::string at = f.pack("1.mapping") + " at offset " + std::to_string((records.size() - 1) * 24)
                               + ": mapping record " + std::to_string(records.size() - 1);
        f.checkRefused(at);
        f.checkRefused("past the split " + std::to_string(c.split));
    }

    void mappingRecordsSharingPrefixBytesAreRefused()
    {
        Fixture f(true);
        const auto c = f.control();
        auto records = cs::pack::MappingFile::open(f.pack("1.mapping"), c.mappingRecords).all();
        QVERIFY(records.size() >= 2);
        records[1].prefixOffset = records[0].prefixOffset;   // still inside the prefix and below the split
        QVERIFY(f.writeMapping(records));
        f.checkRefused(f.pack("1.mapping") + " at offset ");   // the prefix bytes are shared (or run past the prefix)
    }

    void generationAtTheLimitIsRefused()
    {
        Fixture f(true);
        auto c = f.control();
        const uint64_t last = std::numeric_limits<uint64_t>::max();
        for (const char* ext : {".suffix", ".prefix", ".mapping"})
            QVERIFY(QFile::rename(f.dir + "/pack/1" + ext, f.dir + "/pack/" + QString::number(last) + ext));
        c.generation = last;
        c.writeAtomic(f.pack("control"));
        f.checkEntries();
        const auto before = storetest::packFiles(f.dir);
        cs::Job job;
        const std::string e = errorOf([&] { cs::gc::collectStoreGarbage(f.sdir, {}, job); });
        QVERIFY2(contains(e, "generation 18446744073709551615") && contains(e, "does not fit"), e.c_str());
        const auto r = testsupport::cli({"store", "gc", f.dir});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("does not fit"), r.err.constData());
        QCOMPARE(storetest::packFiles(f.dir), before);
        QCOMPARE(f.control().generation, last);
        f.checkEntries();
        // A dry run writes no generation: it still reports.
        cs::gc::GcOptions dry;
        dry.dryRun = true;
        cs::Job d;
        QCOMPARE(cs::gc::collectStoreGarbage(f.sdir, dry, d).stats.status, std::string("done"));
    }

    void refusedCatalogCreatesNoGcLock()
    {
        Fixture f(false);
        QFile::remove(f.dir + "/pack/gc.lock");
        QVERIFY(QFile::resize(f.dir + "/catalog.db", 0));
        QFile::remove(f.dir + "/catalog.db-wal");
        QFile::remove(f.dir + "/catalog.db-shm");
        const auto r = testsupport::cli({"store", "gc", f.dir});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("empty database"), r.err.constData());
        QVERIFY(!QFile::exists(f.dir + "/pack/gc.lock"));
        cs::Job job;
        QVERIFY(!errorOf([&] { cs::gc::collectStoreGarbage(f.sdir, {}, job); }).empty());
        QVERIFY(!QFile::exists(f.dir + "/pack/gc.lock"));
    }
};

CACHESCOPE_CORE_TEST_MAIN(GcExplainTest)
#include "tst_gc_store_explain.moc"
