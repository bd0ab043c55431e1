// Deduplication: two 64 MiB entries sharing 90 % of their bytes (the new
// 10 % inserted in the middle, shifting what follows) take under 1.2x the
// stored bytes of one; a chunker cuts the same wherever the bytes start.
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include "core/store/Chunker.h"

using namespace cs::store;

namespace {

std::vector<size_t> cuts(const QByteArray& data, size_t slice)
{
    Chunker c;
    std::vector<size_t> out;
    size_t pos = 0, chunkStart = 0;
    while (pos < size_t(data.size())) {
        size_t n = std::min(slice, size_t(data.size()) - pos);
        size_t used = 0;
        while (used < n) {
            bool cut = false;
            used += c.feed(reinterpret_cast<const uint8_t*>(data.constData()) + pos + used, n - used, cut);
            if (cut) {
                out.push_back(pos + used - chunkStart);
                chunkStart = pos + used;
            }
        }
        pos += n;
    }
    return out;
}

} // namespace

class StoreDedupTest : public QObject {
    Q_OBJECT

private slots:
    void chunkerIsIndependentOfSlicing()
    {
        const QByteArray data = testsupport::randomBytes(24 << 20, 3);
        const auto whole = cuts(data, data.size());
        QCOMPARE(cuts(data, 4096), whole);
        QCOMPARE(cuts(data, 1000003), whole);
        QVERIFY(whole.size() >= 8);
        size_t total = 0;
        for (size_t i = 0; i < whole.size(); ++i) {
            QVERIFY(whole[i] <= (4u << 20));
            QVERIFY(whole[i] >= (256u << 10));
            total += whole[i];
        }
        // Average near 1 MiB (wide bounds: a property of the random data).
        const double avg = double(total) / double(whole.size());
        QVERIFY2(avg > 600e3 && avg < 2.2e6, qPrintable(QString::number(avg)));
    }

    void chunksResynchronizeAfterAShift()
    {
        const QByteArray data = testsupport::randomBytes(16 << 20, 4);
        const QByteArray shifted = QByteArray("inserted bytes") + data;
        const auto a = cuts(data, data.size());
        const auto b = cuts(shifted, shifted.size());
        // Same chunk sizes after the first couple of cuts.
        QVERIFY(a.size() >= 6);
        int same = 0;
        for (size_t i = 2; i + 1 < a.size(); ++i)
            same += std::find(b.begin(), b.end(), a[i]) != b.end() ? 1 : 0;
        QVERIFY(same >= int(a.size()) - 4);
    }

    void ninetyPercentSharedTakesUnder1_2x()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const QByteArray a = testsupport::randomBytes(64 << 20, 100);
        const qsizetype fresh = (64 << 20) / 10;
        const qsizetype at = 28 << 20;
        // b: 90 % of a (two runs) with 10 % new bytes inserted between them.
        QByteArray b = a.left(at);
        b += testsupport::randomBytes(fresh, 101);
        b += a.mid(at, (64 << 20) - at - fresh);
        QCOMPARE(b.size(), a.size());

        cs::Job job;
        job.start();
        const EntryRow ea = storetest::upload(*store, "deps-a", a, 1 << 20, 4);
        store->merge(ea.id, job);
        const uint64_t one = store->stats(job).storedBytes;
        const EntryRow eb = storetest::upload(*store, "deps-b", b, 1 << 20, 4);
        const MergeResult mb = store->merge(eb.id, job);
        const StoreStats st = store->stats(job);
        qInfo("one entry: %llu bytes stored; both: %llu (%.3fx); second merge appended %llu in %llu of %llu chunks",
              (unsigned long long)one, (unsigned long long)st.storedBytes, double(st.storedBytes) / double(one),
              (unsigned long long)mb.appendedBytes, (unsigned long long)mb.newChunks, (unsigned long long)mb.chunks);
        QVERIFY(double(st.storedBytes) < 1.2 * double(one));
        QVERIFY(st.dedupRatio > 1.6);
        QCOMPARE(storetest::restore(*store, ea.id), a);
        QCOMPARE(storetest::restore(*store, eb.id), b);
        // entryDetails sees the sharing.
        const EntryDetails det = store->entryDetails(eb.id);
        uint64_t sharedChunks = 0, chunks = 0;
        for (const auto& o : det.objects)
            if (o.kind == ObjectInfo::Chunk) {
                ++chunks;
                sharedChunks += o.sharedWith > 0 ? 1 : 0;
            }
        QCOMPARE(chunks, mb.chunks);
        QCOMPARE(chunks - sharedChunks, mb.newChunks);
    }

    void identicalChunksWithinOneEntryAreStoredOnce()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const QByteArray zeros(40 << 20, '\0');   // ten maximal chunks of zeros
        const EntryRow e = storetest::upload(*store, "zeros", zeros, 1 << 20, 4);
        cs::Job job;
        job.start();
        const MergeResult m = store->merge(e.id, job);
        QCOMPARE(m.chunks, uint64_t(10));
        QCOMPARE(m.newChunks, uint64_t(1));
        QCOMPARE(storetest::restore(*store, e.id), zeros);
    }
};

CACHESCOPE_CORE_TEST_MAIN(StoreDedupTest)
#include "tst_store_dedup.moc"
