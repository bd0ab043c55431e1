// The pack layer: objects round-trip, the pack is a valid zstd stream for
// the stock tool, the control file detects damage, mappings resolve and
// collapse, and hostile headers are refused with the offset.
#include "common/TestSupport.h"

#include "core/pack/Pack.h"
#include "core/util/Error.h"

#include <filesystem>

using namespace cs;
using namespace cs::pack;

class TestPack : public QObject {
    Q_OBJECT
private slots:
    void chunksAndNodesRoundTrip();
    void packIsAValidZstdStream();
    void controlDetectsDamage();
    void mappingCollapsesAndFinds();
    void hostileHeadersAreRefused();
    void truncateTailDropsOnlyTheTail();
    void leftoversStayOnOpenAndGoWithRemoveLeftovers();
};

static std::string chunkObject(const QByteArray& raw)
{
    const std::string frame = compressChunkFrame(raw.constData(), size_t(raw.size()), 3);
    return encodeChunk(Sha256::of(raw.constData(), size_t(raw.size())), uint32_t(raw.size()), frame);
}

void TestPack::chunksAndNodesRoundTrip()
{
    QTemporaryDir dir;
    auto pack = Pack::open(dir.filePath("pack").toStdString(), true);
    const QByteArray a = testsupport::textBytes(300000, 1);
    const QByteArray b = testsupport::randomBytes(70000, 2);
    const auto offsets = pack->appendAll({chunkObject(a), chunkObject(b)});
    QCOMPARE(offsets.size(), size_t(2));
    QCOMPARE(offsets[0], uint64_t(0));
    const uint64_t root = pack->append(encodeNode({{offsets[0], uint64_t(a.size())}, {offsets[1], uint64_t(b.size())}}));
    pack->sync();
    QVERIFY(root > offsets[1]);

    auto reopened = Pack::open(dir.filePath("pack").toStdString(), false);
    const ObjectHeader node = reopened->readHeader(root);
    QCOMPARE(int(node.kind), int(ObjectKind::Node));
    QCOMPARE(node.children.size(), size_t(2));
    QCOMPARE(node.logicalSize, uint64_t(a.size() + b.size()));
    ObjectHeader h;
    const std::string ra = reopened->readChunk(node.children[0].offset, &h, true);
    QCOMPARE(QByteArray::fromStdString(ra), a);
    QCOMPARE(h.sha256, Sha256::of(a.constData(), size_t(a.size())));
    QCOMPARE(QByteArray::fromStdString(reopened->readChunk(node.children[1].offset, nullptr, true)), b);
    QCOMPARE(reopened->end(), root + node.totalBytes);
}

void TestPack::packIsAValidZstdStream()
{
    QTemporaryDir dir;
    auto pack = Pack::open(dir.filePath("pack").toStdString(), true);
    QByteArray all;
    std::vector<ChildRef> kids;
    for (int i = 0; i < 5; ++i) {
        const QByteArray raw = testsupport::textBytes(50000 + i * 1000, uint64_t(10 + i));
        kids.push_back({pack->append(chunkObject(raw)), uint64_t(raw.size())});
        all += raw;
    }
    pack->append(encodeNode(kids));
    pack->sync();
    const QString suffix = dir.filePath("pack/0.suffix");
    const auto t = testsupport::zstd({"-t", "-q", suffix});
    QVERIFY2(t.exitCode == 0, t.err.constData());
    // Skippable header frames are ignored by decoders: the stream decodes to the chunks in order.
    const auto d = testsupport::zstd({"-d", "-c", "-q", suffix});
    QCOMPARE(d.exitCode, 0);
    QCOMPARE(d.out, all);
}

void TestPack::controlDetectsDamage()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("control").toStdString();
    PackControl c{7, 1000, 600, 3};
    c.writeAtomic(path);
    QCOMPARE(PackControl::read(path), c);
    std::string text = readWholeFile(path, 4096);
    text[text.find("split 1000") + 6] = '2';
    testsupport::writeFile(QString::fromStdString(path), QByteArray::fromStdString(text));
    try {
        PackControl::read(path);
        QFAIL("a damaged control file was accepted");
    } catch (const Error& e) {
        QVERIFY(QString(e.what()).contains("checksum"));
        QVERIFY(QString(e.what()).contains(QString::fromStdString(path)));
    }
}

void TestPack::mappingCollapsesAndFinds()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("1.mapping").toStdString();
    MappingWriter w(path);
    w.add(100, 0, 50);     // [100,150) -> 0
    w.add(150, 50, 30);    // continues both: collapses
    w.add(300, 80, 20);    // gap in offsets: new record
    w.add(320, 200, 10);   // contiguous offset, not prefix: new record
    QCOMPARE(w.finish(), uint64_t(3));
    const MappingFile m = MappingFile::open(path, 3);
    QCOMPARE(m.at(0), (MappingRecord{100, 0, 80}));
    QCOMPARE(m.at(1), (MappingRecord{300, 80, 20}));
    QCOMPARE(m.at(2), (MappingRecord{320, 200, 10}));
    QVERIFY(!m.find(99));
    QCOMPARE(m.find(100)->offset, uint64_t(100));
    QCOMPARE(m.find(179)->offset, uint64_t(100));
    QVERIFY(!m.find(180));
    QCOMPARE(m.find(319)->offset, uint64_t(300));
    QCOMPARE(m.find(325)->prefixOffset, uint64_t(200));
    QVERIFY(!m.find(330));
    QVERIFY_THROWS_EXCEPTION(Error, MappingFile::open(path, 4));
    // A file whose size is not a multiple of 24 names the offset.
    testsupport::writeFile(QString::fromStdString(path), QByteArray(30, 'x'));
    try {
        MappingFile::open(path);
        QFAIL("a torn mapping was accepted");
    } catch (const Error& e) {
        QVERIFY(QString(e.what()).contains("offset 24"));
    }
}

void TestPack::hostileHeadersAreRefused()
{
    QTemporaryDir dir;
    auto pack = Pack::open(dir.filePath("pack").toStdString(), true);
    const uint64_t good = pack->append(chunkObject(QByteArray(1000, 'a')));
    // A node pointing forward, then a chunk header declaring 1 TiB-ish sizes.
    std::string forward = encodeNode({{good, 1000}});
    const uint64_t nodeAt = pack->append(forward);
    {
        // Patch the child offset to point past the node itself.
        File f = File::openReadWrite(dir.filePath("pack/0.suffix").toStdString());
        const uint64_t bad = nodeAt + 100;
        uint8_t le[8];
        for (int i = 0; i < 8; ++i)
            le[i] = uint8_t(bad >> (8 * i));
        f.writeAt(le, 8, nodeAt + 8 + 4 + 12);
    }
    try {
        pack->readHeader(nodeAt);
        QFAIL("a forward edge was accepted");
    } catch (const Error& e) {
        QVERIFY2(QString(e.what()).contains("points forward"), e.what());
    }
    std::string huge = chunkObject(QByteArray(10, 'b'));
    huge[12] = char(0xff), huge[13] = char(0xff), huge[14] = char(0xff), huge[15] = char(0x7f);
    const uint64_t hugeAt = pack->append(huge);
    try {
        pack->readChunk(hugeAt);
        QFAIL("an absurd raw size was accepted");
    } catch (const Error& e) {
        QVERIFY2(QString(e.what()).contains("at offset " + QString::number(hugeAt)), e.what());
    }
    QVERIFY_THROWS_EXCEPTION(Error, pack->readHeader(pack->end() + 10));
}

void TestPack::truncateTailDropsOnlyTheTail()
{
    QTemporaryDir dir;
    auto pack = Pack::open(dir.filePath("pack").toStdString(), true);
    const uint64_t a = pack->append(chunkObject(QByteArray(5000, 'a')));
    const uint64_t end = pack->end();
    pack->append(chunkObject(QByteArray(5000, 'b')));
    pack->truncateTail(end);
    QCOMPARE(pack->end(), end);
    QCOMPARE(QByteArray::fromStdString(pack->readChunk(a)), QByteArray(5000, 'a'));
    const uint64_t c = pack->append(chunkObject(QByteArray(10, 'c')));
    QCOMPARE(c, end);
}

void TestPack::leftoversStayOnOpenAndGoWithRemoveLeftovers()
{
    // Opening (what read-only commands do) never deletes; removeLeftovers
    // (GC, fsck --repair) does, after control and the current generation check out.
    QTemporaryDir dir;
    const QString p = dir.filePath("pack");
    Pack::open(p.toStdString(), true);
    testsupport::writeFile(p + "/1.prefix", "x");
    testsupport::writeFile(p + "/1.mapping", "");
    testsupport::writeFile(p + "/control.tmp", "y");
    auto pack = Pack::open(p.toStdString(), false);
    QVERIFY(QFile::exists(p + "/1.prefix"));
    QCOMPARE(pack->leftovers(), (std::vector<std::string>{"1.mapping", "1.prefix", "control.tmp"}));
    pack->removeLeftovers();
    QVERIFY(!QFile::exists(p + "/1.prefix"));
    QVERIFY(!QFile::exists(p + "/1.mapping"));
    QVERIFY(!QFile::exists(p + "/control.tmp"));
    QVERIFY(QFile::exists(p + "/0.suffix"));
}

CACHESCOPE_CORE_TEST_MAIN(TestPack)
#include "tst_pack.moc"
