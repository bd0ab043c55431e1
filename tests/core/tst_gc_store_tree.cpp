// Entries of more chunks than one node holds (pack::kMaxNodeChildren): merge
// writes a tree (root -> leaf nodes -> chunks). With tiny chunks (the store's
// chunker is configurable) such an entry is ~1.5 MB. The tree must restore
// byte-exact (SHA-256 against the input), be counted by `store stats`, stay
// whole through a GC after another entry sharing some of its chunks is
// evicted, and fsck clean; an unmerged entry of that size merges while it
// streams. (A tst_gc_* file: it links cs_gc, which brings cs_store.)
#include "common/TestSupport.h"
#include "core/StoreTestSupport.h"

#include "core/gc/Gc.h"
#include "core/pack/Pack.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <map>
#include <set>

using namespace cs;
using namespace storetest;

namespace {

store::StoreOptions tinyChunks()
{
    store::StoreOptions o;
    o.threads = 2;
    o.chunker.minSize = 64;
    o.chunker.avgSize = 128;
    o.chunker.maxSize = 256;
    return o;
}

// The tree under a root, read header by header (independent of the store's
// own walk): objects by offset (stored bytes), chunk offsets in entry order,
// node count per depth.
struct Tree {
    std::map<uint64_t, uint64_t> objects;
    std::vector<uint64_t> chunks;
    std::map<int, int> nodesAtDepth;
    int chunkDepth = -1;
    bool sane = true;
};

void walk(pack::Pack& pack, uint64_t offset, int depth, Tree& t)
{
    const pack::ObjectHeader h = pack.readHeader(offset);
    t.objects[offset] = h.totalBytes;
    if (h.kind == pack::ObjectKind::Chunk) {
        t.chunks.push_back(offset);
        if (t.chunkDepth >= 0 && t.chunkDepth != depth)
            t.sane = false;   // a balanced tree: every chunk at the same depth
        t.chunkDepth = depth;
        return;
    }
    t.nodesAtDepth[depth]++;
    if (h.children.size() > pack::kMaxNodeChildren)
        t.sane = false;
    for (const auto& c : h.children)
        walk(pack, c.offset, depth + 1, t);
}

uint64_t packDataBytes(store::Store& s)
{
    s.pack().reload();
    const auto z = s.pack().sizes();
    return z.prefixBytes + z.suffixBytes;
}

} // namespace

class TestGcStoreTree : public QObject {
    Q_OBJECT
private slots:
    void entryOfManyNodes()
    {
        QTemporaryDir dir;
        const QString storeDir = dir.filePath("store");
        auto s = store::Store::init(storeDir.toStdString(), tinyChunks());
        // Random bytes: chunks of at most 256 bytes, so > 5800 of them.
        const QByteArray big = testsupport::randomBytes(1500000, 21);
        // Another entry sharing a stretch of big's bytes (so shared chunks), the
        // one evicted before the GC.
        const QByteArray other = testsupport::randomBytes(100000, 22) + big.mid(400000, 300000)
                                 + testsupport::randomBytes(200000, 23);
        const auto bigRow = upload(*s, "big", big, 256 << 10, 3);
        const auto otherRow = upload(*s, "other", other, 256 << 10, 3);
        Job mj;
        mj.start();
        const auto m = s->merge(bigRow.id, mj);
        QVERIFY(m.merged);
        QVERIFY2(m.chunks > pack::kMaxNodeChildren, qPrintable(QString::number(m.chunks)));
        const auto m2 = s->merge(otherRow.id, mj);
        QVERIFY(m2.newChunks < m2.chunks);   // it reused some of big's chunks

        const uint64_t root = s->entry(bigRow.id)->rootOffset;
        Tree t;
        walk(s->pack(), root, 0, t);
        QVERIFY(t.sane);
        QCOMPARE(t.nodesAtDepth[0], 1);
        QVERIFY2(t.nodesAtDepth[1] >= 2, "the root must hold leaf nodes, not chunks");
        QCOMPARE(t.chunkDepth, 2);
        QCOMPARE(uint64_t(t.chunks.size()), m.chunks);

        // Restore: byte-exact, SHA-256 of the output against the input.
        QCOMPARE(sha256Hex(restore(*s, bigRow.id)), sha256Hex(big));
        const QString out = dir.filePath("big.out");
        Job rj;
        rj.start();
        s->restoreEntryToFile(bigRow.id, out.toStdString(), rj);
        QCOMPARE(testsupport::sha256OfFile(out), sha256Hex(big));

        Job fj;
        fj.start();
        QVERIFY(s->fsck(fj).empty());

        // Evict the other entry, GC: the whole tree stays, other's own chunks go.
        store::EvictPolicy p;
        p.keys = {"other"};
        Job ej;
        ej.start();
        QCOMPARE(s->evict(p, ej).evicted.size(), size_t(1));
        const uint64_t before = packDataBytes(*s);
        Job gj;
        gj.start();
        const auto g = gc::collectStoreGarbage(storeDir.toStdString(), {}, gj);
        QCOMPARE(g.stats.status, std::string("done"));
        QVERIFY(g.stats.reclaimedBytes > 0);
        uint64_t treeBytes = 0;
        for (const auto& [off, bytes] : t.objects)
            treeBytes += bytes;
        // The GC keeps exactly the tree: every node and chunk, nothing else.
        QCOMPARE(packDataBytes(*s), treeBytes);
        QVERIFY(before > treeBytes);
        const auto after = s->entry(bigRow.id);
        QVERIFY(after && after->state == store::EntryState::Merged);
        Tree t2;
        walk(s->pack(), after->rootOffset, 0, t2);
        QVERIFY(t2.sane);
        QCOMPARE(t2.chunks.size(), t.chunks.size());
        QCOMPARE(t2.nodesAtDepth, t.nodesAtDepth);
        QCOMPARE(sha256Hex(restore(*s, bigRow.id)), sha256Hex(big));
        Job fj2;
        fj2.start();
        const auto problems = s->fsck(fj2);
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().message.c_str());

        // The CLI walks the tree for its statistics and checks it.
        auto stats = testsupport::cli({"store", "stats", storeDir, "--json"});
        QCOMPARE(stats.exitCode, 0);
        const QJsonObject st = QJsonDocument::fromJson(stats.out).object();
        QCOMPARE(st["merged_entries"].toInt(), 1);
        QCOMPARE(uint64_t(st["stored_bytes"].toDouble()), treeBytes);
        QCOMPARE(uint64_t(st["merged_logical_bytes"].toDouble()), uint64_t(big.size()));
        QCOMPARE(testsupport::cli({"store", "fsck", storeDir}).exitCode, 0);
        auto get = testsupport::cli({"store", "get", "--wait", storeDir, "big", dir.filePath("cli.out")});
        QCOMPARE(get.exitCode, 0);
        QCOMPARE(testsupport::sha256OfFile(dir.filePath("cli.out")), sha256Hex(big));
    }

    void nodeBoundaries_data()
    {
        QTest::addColumn<int>("chunks");
        QTest::addColumn<int>("leaves");   // 0: the root holds the chunks itself
        QTest::newRow("empty") << 0 << 0;
        QTest::newRow("1") << 1 << 0;
        QTest::newRow("4096") << 4096 << 0;
        QTest::newRow("4097") << 4097 << 2;
        QTest::newRow("8192") << 8192 << 2;
        QTest::newRow("8193") << 8193 << 3;
    }
    void nodeBoundaries()
    {
        // Fixed 64-byte chunks (minimum = maximum): exactly `chunks` of them.
        QFETCH(int, chunks);
        QFETCH(int, leaves);
        QTemporaryDir dir;
        store::StoreOptions o = tinyChunks();
        o.chunker = {64, 64, 64};
        auto s = store::Store::init(dir.filePath("store").toStdString(), o);
        const QByteArray data = testsupport::randomBytes(qsizetype(chunks) * 64, 70 + uint64_t(chunks));
        const auto row = upload(*s, "e", data, 100000, 2);
        Job mj;
        mj.start();
        QCOMPARE(s->merge(row.id, mj).chunks, uint64_t(chunks));
        Tree t;
        walk(s->pack(), s->entry(row.id)->rootOffset, 0, t);
        QVERIFY(t.sane);
        QCOMPARE(int(t.chunks.size()), chunks);
        QCOMPARE(t.nodesAtDepth[0], 1);
        QCOMPARE(t.nodesAtDepth[1], leaves);
        if (chunks > 0)
            QCOMPARE(t.chunkDepth, leaves ? 2 : 1);
        QCOMPARE(sha256Hex(restore(*s, row.id)), sha256Hex(data));
        Job fj;
        fj.start();
        QVERIFY(s->fsck(fj).empty());
    }

    void unmergedEntryOfManyNodesMergesWhileStreaming()
    {
        QTemporaryDir dir;
        auto s = store::Store::init(dir.filePath("store").toStdString(), tinyChunks());
        const QByteArray data = testsupport::randomBytes(1200000, 24);
        const auto row = upload(*s, "streamed", data, 100000, 3);
        store::RestoreResult r;
        QCOMPARE(sha256Hex(restore(*s, row.id, &r)), sha256Hex(data));
        QVERIFY(r.mergedNow);
        const auto merged = s->entry(row.id);
        QVERIFY(merged && merged->state == store::EntryState::Merged);
        Tree t;
        walk(s->pack(), merged->rootOffset, 0, t);
        QVERIFY(t.sane);
        QVERIFY(t.chunks.size() > pack::kMaxNodeChildren);
        QVERIFY(t.nodesAtDepth[1] >= 2);
        QCOMPARE(sha256Hex(restore(*s, row.id)), sha256Hex(data));
        Job fj;
        fj.start();
        QVERIFY(s->fsck(fj).empty());
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestGcStoreTree)
#include "tst_gc_store_tree.moc"
