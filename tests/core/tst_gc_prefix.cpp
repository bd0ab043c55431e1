// PrefixWriter: objects handed over in decreasing offset order come out as
// one contiguous piece of the prefix per live range, whatever the block size
// (ranges shorter and longer than a block, bytes given or copied from the old
// pack with copyRange), and the mapping records say where each piece went.
// No old byte is copied twice: an object not in memory is copied once, one
// in memory is not copied at all unless its range outgrew the block.
#include "common/TestSupport.h"
#include "core/gc/Gc.h"
#include "core/gc/MappingBuilder.h"
#include "core/gc/PrefixWriter.h"
#include "core/pack/MappingFile.h"
#include "core/util/CopyRange.h"
#include "core/util/Error.h"

#include <algorithm>
#include <random>

using namespace cs;
using namespace cs::gc;

namespace {

struct Object {
    uint64_t offset, size;
};

// A fake old pack: random bytes; objects of random sizes, some gaps (dead).
struct Source {
    std::string bytes;
    std::vector<Object> live; // increasing
    std::vector<PackRange> ranges; // collapsed live ranges, increasing
};

Source makeSource(uint64_t seed, int objects, uint64_t maxObject, int deadOneIn)
{
    std::mt19937_64 rng(seed);
    Source s;
    uint64_t at = 0;
    for (int i = 0; i < objects; ++i) {
        const uint64_t size = 1 + rng() % maxObject;
        if (rng() % uint64_t(deadOneIn) != 0) {
            s.live.push_back({at, size});
            if (!s.ranges.empty() && s.ranges.back().end() == at)
                s.ranges.back().length += size;
            else
                s.ranges.push_back({at, size});
        }
        at += size;
    }
    s.bytes.resize(at);
    for (auto& c : s.bytes)
        c = char(rng());
    return s;
}

} // namespace

class TestGcPrefix : public QObject {
    Q_OBJECT
private slots:
    void rangesStayWhole_data()
    {
        QTest::addColumn<qulonglong>("seed");
        QTest::addColumn<int>("block");
        QTest::addColumn<qulonglong>("maxObject");
        QTest::addColumn<int>("deadOneIn");
        QTest::addColumn<int>("given"); // objects given in memory: 0 none, 1 half (at random), 2 all
        QTest::newRow("small objects, big block") << 1ull << (1 << 20) << 200ull << 2 << 1;
        QTest::newRow("small objects, small block") << 2ull << 4096 << 200ull << 2 << 1;
        QTest::newRow("objects near the block size") << 3ull << 4096 << 5000ull << 3 << 1;
        QTest::newRow("long live runs") << 4ull << 8192 << 700ull << 50 << 1;
        QTest::newRow("everything live") << 5ull << 8192 << 300ull << 1 << 1;
        QTest::newRow("tiny block: every range on its own") << 6ull << 64 << 300ull << 2 << 1;
        QTest::newRow("nothing in memory: every byte copied once") << 7ull << 4096 << 3000ull << 3 << 0;
        QTest::newRow("nothing in memory, long live runs") << 8ull << 8192 << 700ull << 50 << 0;
        QTest::newRow("everything in memory, short ranges: nothing copied") << 9ull << (1 << 20) << 200ull << 2 << 2;
        QTest::newRow("everything in memory, long live runs") << 10ull << 8192 << 700ull << 50 << 2;
    }
    void rangesStayWhole()
    {
        QFETCH(qulonglong, seed);
        QFETCH(int, block);
        QFETCH(qulonglong, maxObject);
        QFETCH(int, deadOneIn);
        QFETCH(int, given);
        const Source src = makeSource(seed, 3000, maxObject, deadOneIn == 1 ? 1 << 30 : deadOneIn);
        QTemporaryDir dir;
        QVERIFY(testsupport::writeFile(dir.filePath("0.suffix"), QByteArray::fromStdString(src.bytes)));
        const File old = File::openRead(dir.filePath("0.suffix").toStdString());
        const std::string mappingPath = dir.filePath("1.mapping").toStdString();
        File out = File::create(dir.filePath("1.prefix").toStdString());
        MappingBuilder mapping(mappingPath);
        uint64_t copies = 0, copied = 0, lastWritten = 0, callbacks = 0;
        std::vector<bool> copiedOnce(src.bytes.size(), false);
        PrefixWriter w(
            out, mapping, size_t(block),
            [&](uint64_t offset, uint64_t n, File& to, uint64_t at) {
                QVERIFY(offset + n <= src.bytes.size());
                for (uint64_t i = offset; i < offset + n; ++i) {
                    QVERIFY2(!copiedOnce[i], qPrintable(QString("old byte %1 copied twice").arg(i)));
                    copiedOnce[i] = true;
                }
                copyRange(old, offset, to, at, n);
                ++copies;
                copied += n;
            },
            [&](uint64_t written) {
                QVERIFY(written > lastWritten);
                lastWritten = written;
                ++callbacks;
            });
        std::mt19937_64 rng(seed * 7);
        for (auto it = src.live.rbegin(); it != src.live.rend(); ++it) {
            const bool inMemory = given == 2 || (given == 1 && rng() % 2);
            w.add(it->offset, it->size, inMemory ? reinterpret_cast<const uint8_t*>(src.bytes.data() + it->offset) : nullptr);
        }
        uint64_t liveBytes = 0;
        for (const auto& r : src.ranges)
            liveBytes += r.length;
        QCOMPARE(w.finish(), liveBytes);
        QCOMPARE(w.ranges(), uint64_t(src.ranges.size()));
        QCOMPARE(lastWritten, liveBytes);
        QVERIFY(callbacks >= liveBytes / uint64_t(block));
        if (given == 0)
            QCOMPARE(copied, liveBytes);
        else if (given == 2 && deadOneIn == 2)
            QCOMPARE(copies, uint64_t(0));
        else
            QVERIFY(copies > 0 && copied < liveBytes);
        QCOMPARE(mapping.finish(), uint64_t(src.ranges.size()));
        out.sync();

        // One record per live range, and its piece of the prefix holds exactly that range's bytes.
        const std::string prefix = readWholeFile(out.path(), size_t(1) << 30);
        QCOMPARE(uint64_t(prefix.size()), liveBytes);
        auto recs = pack::MappingFile::open(mappingPath).all();
        QCOMPARE(recs.size(), src.ranges.size());
        for (size_t i = 0; i < recs.size(); ++i) {
            QCOMPARE(recs[i].offset, src.ranges[i].offset);
            QCOMPARE(recs[i].length, src.ranges[i].length);
            QVERIFY(recs[i].prefixOffset + recs[i].length <= prefix.size());
            QVERIFY2(prefix.compare(recs[i].prefixOffset, recs[i].length, src.bytes, recs[i].offset, recs[i].length) == 0,
                     qPrintable(QString("range at %1 was not copied whole").arg(recs[i].offset)));
        }
        // The pieces tile the prefix: no overlap, no gap.
        std::sort(recs.begin(), recs.end(), [](const auto& a, const auto& b) { return a.prefixOffset < b.prefixOffset; });
        uint64_t at = 0;
        for (const auto& r : recs) {
            QCOMPARE(r.prefixOffset, at);
            at += r.length;
        }
    }

    void refusesObjectsOutOfOrder()
    {
        QTemporaryDir dir;
        File out = File::create(dir.filePath("1.prefix").toStdString());
        MappingBuilder mapping(dir.filePath("1.mapping").toStdString());
        const std::string bytes(100, 'x');
        PrefixWriter w(out, mapping, 4096, {}, {});
        w.add(50, 10, reinterpret_cast<const uint8_t*>(bytes.data()));
        QVERIFY_THROWS_EXCEPTION(cs::Error, w.add(60, 10, reinterpret_cast<const uint8_t*>(bytes.data())));
        QVERIFY_THROWS_EXCEPTION(cs::Error, w.add(10, 0, reinterpret_cast<const uint8_t*>(bytes.data())));
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestGcPrefix)
#include "tst_gc_prefix.moc"
