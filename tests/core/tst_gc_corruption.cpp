// A property of GC over damaged packs (issue 22): for every corruption of
// `control`, the mapping or the suffix (a split moved with a valid checksum,
// records shifted, merged or stretched over the split, the suffix cut at a
// random point, a generation at 2^64-1), either GC refuses and changes no
// pack file, or every entry that restored byte-exact before the GC still
// does after it. A few seeds run in ctest; CACHESCOPE_GC_PROPERTY_SEEDS=N
// (or the argument --seeds N) runs N.
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include "core/gc/Gc.h"
#include "core/pack/MappingFile.h"
#include "core/pack/PackControl.h"
#include "core/store/Store.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>

#include <cstdlib>
#include <limits>
#include <map>
#include <random>
#include <set>

using namespace cs::store;

namespace {

int seedCount = 3;

bool copyTree(const QString& from, const QString& to)
{
    if (!QDir().mkpath(to))
        return false;
    QDirIterator it(from, QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString target = to + "/" + QDir(from).relativeFilePath(path);
        if (it.fileInfo().isDir() ? !QDir().mkpath(target) : !QFile::copy(path, target))
            return false;
    }
    return true;
}

// The entries of a store built once: generation 1 (after an eviction and a
// GC, so the mapping has several records) and entries in 1.suffix.
struct Template {
    QTemporaryDir tmp;
    QString dir = tmp.filePath("t");
    std::map<std::string, QByteArray> entries;
    Template()
    {
        auto store = Store::init(dir.toStdString());
        cs::Job job;
        job.start();
        auto put = [&](const std::string& key, const QByteArray& data) {
            store->merge(storetest::upload(*store, key, data, 32 << 10, 2).id, job);
            entries[key] = data;
        };
        for (int i = 0; i < 6; ++i)
            put("a" + std::to_string(i), testsupport::randomBytes(90000 + 3001 * i, uint64_t(200 + i)));
        EvictPolicy p;
        p.keys = {"a1", "a3"};
        store->evict(p, job);
        entries.erase("a1");
        entries.erase("a3");
        cs::Job g;
        cs::gc::collectStoreGarbage(dir.toStdString(), {}, g);
        for (int i = 0; i < 3; ++i)
            put("b" + std::to_string(i), testsupport::randomBytes(70000 + 1009 * i, uint64_t(300 + i)));
    }
};

// Which entries restore byte-exact now (a store that does not open: none).
std::set<std::string> restoring(const std::string& dir, const std::map<std::string, QByteArray>& entries)
{
    std::set<std::string> ok;
    try {
        auto store = Store::open(dir);
        for (const auto& [key, data] : entries) {
            try {
                const auto e = store->lookup(storetest::request(key));
                if (e && storetest::restore(*store, e->first.id) == data)
                    ok.insert(key);
            } catch (const cs::Error&) {
            }
        }
    } catch (const cs::Error&) {
    }
    return ok;
}

void writeRecords(const QString& path, const std::vector<cs::pack::MappingRecord>& records)
{
    QByteArray bytes;
    for (const auto& r : records) {
        uint8_t b[cs::pack::kMappingRecordSize];
        cs::pack::encodeMappingRecord(r, b);
        bytes.append(reinterpret_cast<const char*>(b), sizeof b);
    }
    QVERIFY(testsupport::writeFile(path, bytes));
}

const char* const kKinds[] = {"split moved", "record shifted", "prefix offset shifted", "records merged",
                              "record over the split", "record length changed", "suffix truncated",
                              "generation at the limit"};

// Applies corruption `kind` with randomness from rng; returns what it did.
std::string corrupt(const QString& dir, int kind, std::mt19937_64& rng)
{
    const std::string control = (dir + "/pack/control").toStdString();
    auto c = cs::pack::PackControl::read(control);
    const QString mappingPath = dir + "/pack/" + QString::fromStdString(cs::pack::mappingFileName(c.generation));
    auto records = cs::pack::MappingFile::open(mappingPath.toStdString(), c.mappingRecords).all();
    auto pick = [&](uint64_t n) { return n ? uint64_t(rng() % n) : 0; };
    auto delta = [&](uint64_t span) { return int64_t(pick(2 * span + 1)) - int64_t(span); };
    const size_t i = size_t(pick(records.size()));
    switch (kind) {
    case 0: {
        const int64_t d = delta(c.split);
        c.split = uint64_t(std::max<int64_t>(0, int64_t(c.split) + d));
        c.writeAtomic(control);
        return "split -> " + std::to_string(c.split);
    }
    case 1:
        records[i].offset = uint64_t(std::max<int64_t>(0, int64_t(records[i].offset) + delta(4096)));
        writeRecords(mappingPath, records);
        return "record " + std::to_string(i) + " offset -> " + std::to_string(records[i].offset);
    case 2:
        records[i].prefixOffset = uint64_t(std::max<int64_t>(0, int64_t(records[i].prefixOffset) + delta(4096)));
        writeRecords(mappingPath, records);
        return "record " + std::to_string(i) + " prefix offset -> " + std::to_string(records[i].prefixOffset);
    case 3:
        if (records.size() >= 2) {
            const size_t j = std::min(i, records.size() - 2);
            records[j].length = records[j + 1].offset + records[j + 1].length - records[j].offset;
            records.erase(records.begin() + long(j) + 1);
            writeRecords(mappingPath, records);
            c.mappingRecords = records.size();
            c.writeAtomic(control);   // the record count agrees: only the records are wrong
            return "records " + std::to_string(j) + " and " + std::to_string(j + 1) + " merged";
        }
        return "nothing to merge";
    case 4:
        records.back().length = c.split - records.back().offset + 1 + pick(300000);
        writeRecords(mappingPath, records);
        return "last record ends at " + std::to_string(records.back().offset + records.back().length);
    case 5:
        records[i].length = uint64_t(std::max<int64_t>(1, int64_t(records[i].length) + delta(4096)));
        writeRecords(mappingPath, records);
        return "record " + std::to_string(i) + " length -> " + std::to_string(records[i].length);
    case 6: {
        const QString suffix = dir + "/pack/" + QString::fromStdString(cs::pack::suffixFileName(c.generation));
        const qint64 size = QFileInfo(suffix).size();
        const qint64 keep = qint64(pick(uint64_t(size)));
        QFile::resize(suffix, keep);
        return "suffix cut to " + std::to_string(keep) + " of " + std::to_string(size);
    }
    default: {
        const uint64_t last = std::numeric_limits<uint64_t>::max();
        for (auto name : {cs::pack::suffixFileName, cs::pack::prefixFileName, cs::pack::mappingFileName})
            QFile::rename(dir + "/pack/" + QString::fromStdString(name(c.generation)),
                          dir + "/pack/" + QString::fromStdString(name(last)));
        c.generation = last;
        c.writeAtomic(control);
        return "generation -> " + std::to_string(last);
    }
    }
}

} // namespace

class GcCorruptionTest : public QObject {
    Q_OBJECT
private slots:
    void gcRefusesOrKeepsEveryRestorableEntry()
    {
        Template t;
        QCOMPARE(restoring(t.dir.toStdString(), t.entries).size(), t.entries.size());
        int refused = 0, collected = 0;
        for (int seed = 1; seed <= seedCount; ++seed) {
            for (int kind = 0; kind < int(std::size(kKinds)); ++kind) {
                QTemporaryDir work;
                const QString dir = work.filePath("s");
                QVERIFY(copyTree(t.dir, dir));
                std::mt19937_64 rng(uint64_t(seed) * 1000 + uint64_t(kind));
                const std::string what = std::string(kKinds[kind]) + ", seed " + std::to_string(seed) + ": "
                                         + corrupt(dir, kind, rng);
                const auto before = restoring(dir.toStdString(), t.entries);
                const auto files = storetest::packFiles(dir);
                cs::Job job;
                std::string error;
                try {
                    cs::gc::collectStoreGarbage(dir.toStdString(), {}, job);
                } catch (const cs::Error& e) {
                    error = e.what();
                }
                if (!error.empty()) {
                    ++refused;
                    QVERIFY2(storetest::packFiles(dir) == files, (what + ": GC failed and changed the pack: " + error).c_str());
                    continue;
                }
                ++collected;
                const auto after = restoring(dir.toStdString(), t.entries);
                for (const auto& key : before)
                    QVERIFY2(after.count(key), (what + ": GC ran and entry " + key + " no longer restores").c_str());
                // The generation at the limit is always refused.
                QVERIFY2(kind != 7, (what + ": GC ran").c_str());
            }
        }
        qInfo("%d corruptions: GC refused %d, ran %d (every entry that restored before still restores)",
              refused + collected, refused, collected);
    }
};

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsSet("CACHESCOPE_GC_PROPERTY_SEEDS"))
        seedCount = qEnvironmentVariableIntValue("CACHESCOPE_GC_PROPERTY_SEEDS");
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i) {
        if (std::string(argv[i]) == "--seeds" && i + 1 < argc) {
            seedCount = std::atoi(argv[++i]);
            continue;
        }
        args.push_back(argv[i]);
    }
    int n = int(args.size());
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QCoreApplication app(n, args.data());
    GcCorruptionTest tc;
    return QTest::qExec(&tc, n, args.data());
}

#include "tst_gc_corruption.moc"
