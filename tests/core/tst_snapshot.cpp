// Snapshots: write with the core, check against independent truth (SHA-256 of
// the input, stock `zstd -d` and `zstd -t`, libzstd's own frame functions, an
// XXH64 written here from the spec), restore with 1..4 threads, sparse files,
// damaged input and cancellation.
#include "common/TestSupport.h"

#include "core/jobs/Job.h"
#include "core/snapshot/Snapshot.h"
#include "core/util/Error.h"
#include "core/util/OutputFile.h"

#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace testsupport;

namespace {

// XXH64 from its specification, seed 0: the checksum zstd frames carry
// (low 32 bits) and the seek table repeats.
uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
uint64_t xxh64(const char* p, size_t len)
{
    constexpr uint64_t P1 = 0x9E3779B185EBCA87ULL, P2 = 0xC2B2AE3D27D4EB4FULL, P3 = 0x165667B19E3779F9ULL,
                       P4 = 0x85EBCA77C2B2AE63ULL, P5 = 0x27D4EB2F165667C5ULL;
    auto rd64 = [](const char* q) { uint64_t v; memcpy(&v, q, 8); return v; };
    auto rd32 = [](const char* q) { uint32_t v; memcpy(&v, q, 4); return v; };
    auto round = [&](uint64_t acc, uint64_t in) { return rotl(acc + in * P2, 31) * P1; };
    auto merge = [&](uint64_t acc, uint64_t v) { return (acc ^ round(0, v)) * P1 + P4; };
    const char* end = p + len;
    uint64_t h;
    if (len >= 32) {
        uint64_t v1 = P1 + P2, v2 = P2, v3 = 0, v4 = 0 - P1;
        for (; p + 32 <= end; p += 32) {
            v1 = round(v1, rd64(p));
            v2 = round(v2, rd64(p + 8));
            v3 = round(v3, rd64(p + 16));
            v4 = round(v4, rd64(p + 24));
        }
        h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
        h = merge(merge(merge(merge(h, v1), v2), v3), v4);
    } else {
        h = P5;
    }
    h += len;
    for (; p + 8 <= end; p += 8)
        h = rotl(h ^ round(0, rd64(p)), 27) * P1 + P4;
    if (p + 4 <= end) {
        h = rotl(h ^ (uint64_t(rd32(p)) * P1), 23) * P2 + P3;
        p += 4;
    }
    for (; p < end; ++p)
        h = rotl(h ^ (uint64_t(uint8_t(*p)) * P5), 11) * P1;
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

uint32_t le32(const char* p)
{
    const auto* b = reinterpret_cast<const uint8_t*>(p);
    return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
}

struct ParsedFrame {
    qsizetype offset;
    qsizetype size;
    bool skippable;
    uint32_t magic;
    unsigned long long contentSize;
    bool checksum;
};

// Splits a file of frames with libzstd's own functions (independent of ours).
QVector<ParsedFrame> parseFrames(const QByteArray& file)
{
    QVector<ParsedFrame> frames;
    qsizetype pos = 0;
    while (pos < file.size()) {
        const char* p = file.constData() + pos;
        const size_t left = size_t(file.size() - pos);
        const size_t size = ZSTD_findFrameCompressedSize(p, left);
        if (ZSTD_isError(size))
            return {};
        ParsedFrame f {pos, qsizetype(size), bool(ZSTD_isSkippableFrame(p, left)), le32(p), 0, false};
        if (!f.skippable) {
            ZSTD_frameHeader h {};
            if (ZSTD_getFrameHeader(&h, p, left) != 0)
                return {};
            f.contentSize = h.frameContentSize;
            f.checksum = h.checksumFlag;
        }
        frames.push_back(f);
        pos += qsizetype(size);
    }
    return frames;
}

QByteArray mixedBytes(qsizetype size, uint64_t seed)
{
    QByteArray b = textBytes(size, seed);
    const QByteArray r = randomBytes(size / 3 + 4096, seed + 1); // runs are read from r at i / 3
    for (qsizetype i = 0; i + 4096 <= size; i += 3 * 4096)
        memcpy(b.data() + i, r.constData() + (i / 3), 4096);
    return b;
}

cs::SnapshotWriteResult write(const QString& src, const QString& out, uint64_t chunk, int threads, bool seek = false)
{
    cs::SnapshotWriteOptions o;
    o.chunk = chunk;
    o.threads = threads;
    o.seekTable = seek;
    cs::Job job;
    return cs::writeSnapshot(src.toStdString(), out.toStdString(), o, job);
}

cs::SnapshotRestoreResult restore(const QString& snap, const QString& out, int threads)
{
    cs::SnapshotRestoreOptions o;
    o.threads = threads;
    cs::Job job;
    return cs::restoreSnapshot(snap.toStdString(), out.toStdString(), o, job);
}

QStringList leftovers(const QString& dir)
{
    // The old predictable names, and OutputFile's named temps (when the file
    // system has no O_TMPFILE; the O_TMPFILE ones have no name at all).
    return QDir(dir).entryList({QStringLiteral("*.tmp-*"), QStringLiteral(".*.cachescope-*")}, QDir::Files | QDir::Hidden);
}

// The error fn throws ("cancelled" for cs::Cancelled), as a QString.
QString messageOf(const std::function<void()>& fn)
{
    return QString::fromStdString(testsupport::errorOf(fn));
}

} // namespace

class TestSnapshot : public QObject {
    Q_OBJECT
private slots:
    void xxh64MatchesReferenceVectors();
    void roundTrip_data();
    void roundTrip();
    void seekTableReadBackFromFooter();
    void sparseInputKeepsHoles();
    void decodesStockAndUnsizedStreams();
    void flippedByteNamesFrameOffset();
    void flippedBytePastTheReadWindowNamesFrameOffset();
    void truncatedSnapshotFails();
    void absurdDeclaredSizeIsRefused();
    void cancelDuringWriteLeavesNothing();
    void cancelDuringRestoreLeavesNothing();
    void cliCreateRestoreAndExitCodes();
    void demoDatasetIsIdempotent();

private:
    QTemporaryDir tmp_;
    QString path(const QString& name) const { return tmp_.filePath(name); }
    // data snapshotted (name.in -> name.zst, chunks of `chunk` bytes, one
    // worker), then saved as name-bad.zst with the byte `into` bytes past
    // the start of frame `frame` flipped. Returns that path ("" when the
    // snapshot has fewer frames); *target is the damaged frame.
    QString flippedSnapshot(const QByteArray& data, const QString& name, uint64_t chunk, int frame,
                            qsizetype into, ParsedFrame* target)
    {
        const QString src = path(name + QStringLiteral(".in")), snap = path(name + QStringLiteral(".zst"));
        if (!writeFile(src, data))
            return {};
        write(src, snap, chunk, 1);
        QByteArray bytes = readFile(snap);
        const auto frames = parseFrames(bytes);
        if (frames.size() <= frame)
            return {};
        *target = frames[frame];
        const qsizetype at = target->offset + (into < 0 ? target->size / 2 : into);
        bytes[at] = char(bytes[at] ^ 0x5A);
        const QString bad = path(name + QStringLiteral("-bad.zst"));
        return writeFile(bad, bytes) ? bad : QString();
    }
};

void TestSnapshot::xxh64MatchesReferenceVectors()
{
    QCOMPARE(xxh64("", 0), 0xEF46DB3751D8E999ULL);
    // Cross-check with zstd itself: a frame's checksum trailer is the low 32 bits of XXH64.
    const QByteArray data = textBytes(100000, 7);
    QByteArray frame(qsizetype(ZSTD_compressBound(size_t(data.size()))), '\0');
    ZSTD_CCtx* c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    const size_t n = ZSTD_compress2(c, frame.data(), size_t(frame.size()), data.constData(), size_t(data.size()));
    ZSTD_freeCCtx(c);
    QVERIFY(!ZSTD_isError(n));
    QCOMPARE(le32(frame.constData() + n - 4), uint32_t(xxh64(data.constData(), size_t(data.size()))));
}

void TestSnapshot::roundTrip_data()
{
    QTest::addColumn<qsizetype>("size");
    QTest::addColumn<qint64>("chunk");
    QTest::addColumn<QString>("kind");
    QTest::newRow("empty") << qsizetype(0) << qint64(64 << 10) << "text";
    QTest::newRow("one byte") << qsizetype(1) << qint64(64 << 10) << "text";
    QTest::newRow("text, 64 KiB chunks, not a multiple") << qsizetype((3 << 20) + 17) << qint64(64 << 10) << "text";
    QTest::newRow("mixed, 1 MiB chunks, exact multiple") << qsizetype(4 << 20) << qint64(1 << 20) << "mixed";
    QTest::newRow("incompressible, 256 KiB chunks") << qsizetype((2 << 20) + 1) << qint64(256 << 10) << "random";
    QTest::newRow("mixed, 8 MiB chunks") << qsizetype((9 << 20) + 5) << qint64(8 << 20) << "mixed";
    QTest::newRow("text, 16 MiB chunks, smaller input") << qsizetype((5 << 20) + 3) << qint64(16 << 20) << "text";
    QTest::newRow("mixed, 16 MiB chunks, two frames") << qsizetype((17 << 20) + 9) << qint64(16 << 20) << "mixed";
    // Frames of ~3 MiB of raw blocks: read in six 512 KiB windows each, a
    // block cut by every window's end.
    QTest::newRow("incompressible, 3 MiB chunks, past the read window") << qsizetype((7 << 20) + 3) << qint64(3 << 20)
                                                                        << "random";
}

void TestSnapshot::roundTrip()
{
    QFETCH(qsizetype, size);
    QFETCH(qint64, chunk);
    QFETCH(QString, kind);
    const QByteArray data = kind == QLatin1String("random") ? randomBytes(size, 11)
        : kind == QLatin1String("mixed")                    ? mixedBytes(size, 12)
                                                            : textBytes(size, 13);
    const QString src = path(QStringLiteral("rt.in"));
    QVERIFY(writeFile(src, data));
    const std::string want = sha256OfFile(src);
    const qsizetype expectedFrames = size == 0 ? 1 : (size + chunk - 1) / chunk;
    for (int threads = 1; threads <= 4; ++threads) {
        const bool seek = threads % 2 == 0;
        const QString snap = path(QStringLiteral("rt.zst")), out = path(QStringLiteral("rt.out"));
        const auto w = write(src, snap, uint64_t(chunk), threads, seek);
        QCOMPARE(w.inputBytes, uint64_t(size));
        QCOMPARE(qsizetype(w.dataFrames), expectedFrames);
        QCOMPARE(w.outputBytes, uint64_t(QFileInfo(snap).size()));

        // Every zstd frame declares its size (<= chunk) and carries a checksum.
        const QByteArray bytes = readFile(snap);
        const auto frames = parseFrames(bytes);
        QVERIFY2(!frames.isEmpty(), "libzstd cannot split the snapshot into frames");
        qsizetype zstdFrames = 0;
        unsigned long long total = 0;
        for (const auto& f : frames) {
            if (f.skippable)
                continue;
            ++zstdFrames;
            QVERIFY(f.contentSize != ZSTD_CONTENTSIZE_UNKNOWN && f.contentSize <= uint64_t(chunk));
            QVERIFY(f.checksum);
            total += f.contentSize;
        }
        QCOMPARE(zstdFrames, expectedFrames);
        QCOMPARE(total, (unsigned long long)size);
        QCOMPARE(frames.last().skippable, seek);

        // Stock zstd agrees.
        const QString stockOut = path(QStringLiteral("rt.stock"));
        QFile::remove(stockOut);
        auto t = zstd({QStringLiteral("-t"), QStringLiteral("-q"), snap});
        QVERIFY2(t.exitCode == 0, t.err.constData());
        auto d = zstd({QStringLiteral("-d"), QStringLiteral("-q"), QStringLiteral("-f"), snap, QStringLiteral("-o"), stockOut});
        QVERIFY2(d.exitCode == 0, d.err.constData());
        QCOMPARE(sha256OfFile(stockOut), want);

        // Our decoder with every thread count.
        for (int rt = 1; rt <= 4; ++rt) {
            QFile::remove(out);
            const auto r = restore(snap, out, rt);
            QCOMPARE(r.outputBytes, uint64_t(size));
            QCOMPARE(r.sizedFrames, uint64_t(expectedFrames));
            QCOMPARE(r.streamedFrames, uint64_t(0));
            QCOMPARE(sha256OfFile(out), want);
        }
    }
    QVERIFY(leftovers(tmp_.path()).isEmpty());
}

void TestSnapshot::seekTableReadBackFromFooter()
{
    const QByteArray data = mixedBytes((3 << 20) + 1234, 21);
    const QString src = path(QStringLiteral("seek.in")), snap = path(QStringLiteral("seek.zst"));
    QVERIFY(writeFile(src, data));
    write(src, snap, 512 << 10, 3, true);
    const QByteArray f = readFile(snap);
    QVERIFY(f.size() > 9);
    // Footer: u32 number of frames, u8 descriptor, u32 magic.
    const char* footer = f.constData() + f.size() - 9;
    QCOMPARE(le32(footer + 5), cs::kSeekTableFooterMagic);
    const uint32_t n = le32(footer);
    const uint8_t descriptor = uint8_t(footer[4]);
    QVERIFY(descriptor & 0x80);            // checksums present
    QCOMPARE(descriptor & 0x7C, 0);        // reserved bits clear
    const qsizetype tableFrame = f.size() - 9 - qsizetype(n) * 12 - 8;
    QVERIFY(tableFrame > 0);
    QCOMPARE(le32(f.constData() + tableFrame), cs::kSeekTableMagic);
    QCOMPARE(qsizetype(le32(f.constData() + tableFrame + 4)), qsizetype(n) * 12 + 9);

    // Entries agree with the frames libzstd finds and with the input.
    const auto frames = parseFrames(f);
    QCOMPARE(qsizetype(n) + 1, frames.size());
    qsizetype cpos = 0, dpos = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const char* e = f.constData() + tableFrame + 8 + qsizetype(i) * 12;
        QCOMPARE(qsizetype(le32(e)), frames[qsizetype(i)].size);
        QCOMPARE(frames[qsizetype(i)].offset, cpos);
        QCOMPARE((unsigned long long)le32(e + 4), frames[qsizetype(i)].contentSize);
        const uint32_t expect = uint32_t(xxh64(data.constData() + dpos, le32(e + 4)));
        QCOMPARE(le32(e + 8), expect);
        cpos += qsizetype(le32(e));
        dpos += qsizetype(le32(e + 4));
    }
    QCOMPARE(cpos, tableFrame);
    QCOMPARE(dpos, data.size());
}

void TestSnapshot::sparseInputKeepsHoles()
{
    const QString src = path(QStringLiteral("sparse.in")), snap = path(QStringLiteral("sparse.zst"));
    {
        QFile::remove(src);
        const int fd = ::open(src.toLocal8Bit().constData(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
        QVERIFY(fd >= 0);
        // 8 MiB of data in four pieces, one at the very start, none at the end.
        const QByteArray piece = mixedBytes(2 << 20, 31);
        const off_t at[] = {0, 9 << 20, (21 << 20) + 4096, 40 << 20};
        for (off_t o : at)
            QCOMPARE(::pwrite(fd, piece.constData(), size_t(piece.size()), o), ssize_t(piece.size()));
        QCOMPARE(::ftruncate(fd, off_t(64) << 20), 0);
        ::close(fd);
    }
    struct stat st {};
    QCOMPARE(::stat(src.toLocal8Bit().constData(), &st), 0);
    if (uint64_t(st.st_blocks) * 512 > (32u << 20))
        QSKIP("the file system of the temp folder does not keep holes");
    const std::string want = sha256OfFile(src);
    for (int threads : {1, 2}) {
        const auto w = write(src, snap, 8 << 20, threads, threads == 2);
        QCOMPARE(w.inputBytes, uint64_t(64) << 20);
        QVERIFY2(w.holeBytes >= (uint64_t(48) << 20), qPrintable(QString::number(w.holeBytes)));
        QVERIFY(w.outputBytes < (uint64_t(12) << 20));
        auto t = zstd({QStringLiteral("-t"), QStringLiteral("-q"), snap});
        QVERIFY2(t.exitCode == 0, t.err.constData());
        const QString stockOut = path(QStringLiteral("sparse.stock"));
        QFile::remove(stockOut);
        auto d = zstd({QStringLiteral("-d"), QStringLiteral("-q"), QStringLiteral("-f"), snap, QStringLiteral("-o"), stockOut});
        QVERIFY2(d.exitCode == 0, d.err.constData());
        QCOMPARE(sha256OfFile(stockOut), want);
        for (int rt : {1, 3}) {
            const QString out = path(QStringLiteral("sparse.out"));
            QFile::remove(out);
            const auto r = restore(snap, out, rt);
            QCOMPARE(r.outputBytes, uint64_t(64) << 20);
            QCOMPARE(r.holeBytes, w.holeBytes);
            QCOMPARE(sha256OfFile(out), want);
            QCOMPARE(::stat(out.toLocal8Bit().constData(), &st), 0);
            QCOMPARE(uint64_t(st.st_size), uint64_t(64) << 20);
            QVERIFY2(uint64_t(st.st_blocks) * 512 < (uint64_t(16) << 20),
                     qPrintable(QStringLiteral("restored file has %1 bytes allocated").arg(uint64_t(st.st_blocks) * 512)));
        }
    }
}

void TestSnapshot::decodesStockAndUnsizedStreams()
{
    const QByteArray data = mixedBytes((6 << 20) + 77, 41);
    const QString src = path(QStringLiteral("stock.in"));
    QVERIFY(writeFile(src, data));
    const std::string want = sha256OfFile(src);
    // zstd reading stdin: one frame without a content size.
    auto piped = zstd({QStringLiteral("-c"), QStringLiteral("-q")}, data);
    QCOMPARE(piped.exitCode, 0);
    const QString unsized = path(QStringLiteral("stdin.zst"));
    QVERIFY(writeFile(unsized, piped.out));
    // Our own unsized stream, a sized snapshot and stock output concatenated, with a skippable frame between.
    const QString ours = path(QStringLiteral("ours-unsized.zst")), sized = path(QStringLiteral("sized.zst"));
    cs::Job job;
    cs::compressStreamUnsized(src.toStdString(), ours.toStdString(), 3, job);
    const auto oursFrames = parseFrames(readFile(ours));
    QCOMPARE(oursFrames.size(), 1);
    QCOMPARE(oursFrames[0].contentSize, ZSTD_CONTENTSIZE_UNKNOWN);
    write(src, sized, 1 << 20, 2);
    QByteArray skippable("\x50\x2A\x4D\x18\x03\x00\x00\x00xyz", 11);
    const QString concat = path(QStringLiteral("concat.zst"));
    QVERIFY(writeFile(concat, readFile(sized) + piped.out + skippable + readFile(ours) + readFile(sized)));
    for (int threads : {1, 2}) {
        const QString out = path(QStringLiteral("stock.out"));
        QFile::remove(out);
        auto r = restore(unsized, out, threads);
        QCOMPARE(r.streamedFrames, uint64_t(1));
        QCOMPARE(sha256OfFile(out), want);
        QFile::remove(out);
        r = restore(concat, out, threads);
        QCOMPARE(r.streamedFrames, uint64_t(2));
        QCOMPARE(r.skippableFrames, uint64_t(1));
        const QByteArray got = readFile(out);
        QCOMPARE(got.size(), data.size() * 4);
        for (int i = 0; i < 4; ++i)
            QVERIFY(got.mid(qsizetype(i) * data.size(), data.size()) == data);
    }
    // pzstd-style and -T2 output decode too.
    auto t2 = zstd({QStringLiteral("-q"), QStringLiteral("-f"), QStringLiteral("-T2"), QStringLiteral("--rsyncable"), src,
                    QStringLiteral("-o"), path(QStringLiteral("t2.zst"))});
    QCOMPARE(t2.exitCode, 0);
    restore(path(QStringLiteral("t2.zst")), path(QStringLiteral("t2.out")), 2);
    QCOMPARE(sha256OfFile(path(QStringLiteral("t2.out"))), want);
}

void TestSnapshot::flippedByteNamesFrameOffset()
{
    // A byte in the middle of the third frame's blocks.
    ParsedFrame target {};
    const QString bad = flippedSnapshot(textBytes((2 << 20) + 5, 51), QStringLiteral("flip"), 512 << 10, 2, -1, &target);
    QVERIFY(!bad.isEmpty());
    const QString out = path(QStringLiteral("flip.out"));
    QFile::remove(out);
    for (int threads : {1, 2}) {
        const QString msg = messageOf([&] { restore(bad, out, threads); });
        QVERIFY2(msg.contains(QStringLiteral("offset %1").arg(target.offset)), qPrintable(msg));
        QVERIFY2(msg.contains(QStringLiteral("flip-bad.zst")), qPrintable(msg));
        QVERIFY(!QFileInfo::exists(out));
        QVERIFY(leftovers(tmp_.path()).isEmpty());
    }
    // Stock zstd also rejects it (independent check that the damage is real).
    QVERIFY(zstd({QStringLiteral("-t"), QStringLiteral("-q"), bad}).exitCode != 0);
    // Through the CLI: exit 1 and one sentence naming the offset.
    auto r = cli({QStringLiteral("snapshot"), QStringLiteral("restore"), bad, out});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(QByteArray("offset ") + QByteArray::number(target.offset)), r.err.constData());
}

// A frame larger than the decoder's 512 KiB read window, damaged in its
// third window: a raw block's byte, which only the frame's checksum catches
// once the last window is read. The error still names the file and the
// frame's offset, and nothing is left at the output.
void TestSnapshot::flippedBytePastTheReadWindowNamesFrameOffset()
{
    ParsedFrame target {};
    const QString bad = flippedSnapshot(randomBytes((4 << 20) + 7, 52), QStringLiteral("flipw"), 2 << 20, 1,
                                        (1 << 20) + 1000, &target);
    QVERIFY(!bad.isEmpty());
    QVERIFY(target.size > (2 << 20));   // raw blocks: more than four windows
    const QString snap = path(QStringLiteral("flipw.zst")), out = path(QStringLiteral("flipw.out"));
    QVERIFY(zstd({QStringLiteral("-t"), QStringLiteral("-q"), bad}).exitCode != 0);   // the damage is real
    QVERIFY(writeFile(out, "old"));
    for (int threads : {1, 2, 3}) {
        const QString msg = messageOf([&] { restore(bad, out, threads); });
        QVERIFY2(msg.contains(QStringLiteral("flipw-bad.zst at offset %1: frame 1").arg(target.offset)), qPrintable(msg));
        QCOMPARE(readFile(out), QByteArray("old"));
        QVERIFY(leftovers(tmp_.path()).isEmpty());
    }
    // The undamaged file restores byte for byte.
    const auto r = restore(snap, out, 2);
    QCOMPARE(r.sizedFrames, uint64_t(3));
    QCOMPARE(sha256OfFile(out), sha256OfFile(path(QStringLiteral("flipw.in"))));
}

void TestSnapshot::truncatedSnapshotFails()
{
    const QByteArray data = mixedBytes(3 << 20, 61);
    const QString src = path(QStringLiteral("trunc.in")), snap = path(QStringLiteral("trunc.zst"));
    QVERIFY(writeFile(src, data));
    write(src, snap, 1 << 20, 2);
    const QByteArray bytes = readFile(snap);
    const QString out = path(QStringLiteral("trunc.out"));
    for (qsizetype cut : {bytes.size() - 1, bytes.size() / 2, qsizetype(2)}) {
        const QString bad = path(QStringLiteral("trunc-bad.zst"));
        QVERIFY(writeFile(bad, bytes.left(cut)));
        const QString msg = messageOf([&] { restore(bad, out, 2); });
        QVERIFY2(!msg.isEmpty(), "a truncated snapshot was accepted");
        QVERIFY2(msg.contains(QStringLiteral("offset")), qPrintable(msg));
        QVERIFY(!QFileInfo::exists(out));
    }
    QVERIFY(leftovers(tmp_.path()).isEmpty());
}

void TestSnapshot::absurdDeclaredSizeIsRefused()
{
    // A frame header declaring 1 TiB followed by one 5-byte raw block: the
    // blocks can hold 5 bytes, so the header is refused before any allocation.
    QByteArray frame;
    frame.append("\x28\xB5\x2F\xFD", 4);
    frame.append(char(0xC0));     // FCS field 8 bytes, not single segment, no checksum
    frame.append(char(0x00));     // window descriptor: 1 KiB
    const uint64_t tib = uint64_t(1) << 40;
    for (int i = 0; i < 8; ++i)
        frame.append(char((tib >> (8 * i)) & 0xFF));
    const uint32_t bh = 1u | (0u << 1) | (5u << 3);
    frame.append(char(bh & 0xFF)).append(char((bh >> 8) & 0xFF)).append(char((bh >> 16) & 0xFF));
    frame.append("hello", 5);
    const QString prefix = path(QStringLiteral("ok.zst")), src = path(QStringLiteral("ok.in"));
    QVERIFY(writeFile(src, textBytes(100000, 71)));
    write(src, prefix, 64 << 10, 1);
    const QByteArray good = readFile(prefix);
    const QString bad = path(QStringLiteral("tib.zst")), out = path(QStringLiteral("tib.out"));
    QVERIFY(writeFile(bad, good + frame));
    const QString msg = messageOf([&] { restore(bad, out, 2); });
    QVERIFY2(msg.contains(QStringLiteral("offset %1").arg(good.size())), qPrintable(msg));
    QVERIFY2(msg.contains(QString::number(tib)), qPrintable(msg));
    QVERIFY(!QFileInfo::exists(out));
    // A block larger than the frame's block maximum is refused with its offset.
    QByteArray big = frame;
    const uint32_t bigBh = 1u | (2u << 1) | (4096u << 3);  // 4 KiB compressed block in a 1 KiB window
    big[14] = char(bigBh & 0xFF);
    big[15] = char((bigBh >> 8) & 0xFF);
    big[16] = char((bigBh >> 16) & 0xFF);
    big.append(QByteArray(4096, 'x'));
    QVERIFY(writeFile(bad, big));
    const QString msg2 = messageOf([&] { restore(bad, out, 1); });
    QVERIFY2(msg2.contains(QStringLiteral("larger than")) && msg2.contains(QStringLiteral("offset 0")), qPrintable(msg2));
    QVERIFY(leftovers(tmp_.path()).isEmpty());
}

void TestSnapshot::cancelDuringWriteLeavesNothing()
{
    // Slow enough (level 19, 64 KiB frames) that the writer reports progress
    // several times before it ends; the listener cancels at the first report.
    const QByteArray data = mixedBytes(12 << 20, 81);
    const QString src = path(QStringLiteral("cancel.in")), snap = path(QStringLiteral("cancel.zst"));
    QVERIFY(writeFile(src, data));
    // A named temp, so that there is something to see while it is written.
    cs::OutputFile::forceNamedTemp(true);
    const auto unforce = qScopeGuard([] { cs::OutputFile::forceNamedTemp(false); });
    for (int threads : {1, 2}) {
        cs::Job job;
        bool sawTemp = false;
        job.setListener([&](const cs::JobStatus& s) {
            if (s.stepFraction > 0 && s.stepFraction < 1 && !job.isCancelled()) {
                sawTemp = !leftovers(tmp_.path()).isEmpty();
                job.cancel();
            }
        });
        cs::SnapshotWriteOptions o;
        o.chunk = 64 << 10;
        o.threads = threads;
        o.level = 19;
        const QString msg = messageOf([&] { cs::writeSnapshot(src.toStdString(), snap.toStdString(), o, job); });
        QCOMPARE(msg, QStringLiteral("cancelled"));
        QVERIFY(sawTemp);
        QVERIFY(!QFileInfo::exists(snap));
        QVERIFY(leftovers(tmp_.path()).isEmpty());
    }
}

void TestSnapshot::cancelDuringRestoreLeavesNothing()
{
    const QByteArray data = mixedBytes(4 << 20, 91);
    const QString src = path(QStringLiteral("rcancel.in")), snap = path(QStringLiteral("rcancel.zst")),
                  out = path(QStringLiteral("rcancel.out"));
    QVERIFY(writeFile(src, data));
    write(src, snap, 64 << 10, 2);
    cs::Job job;
    job.setListener([&](const cs::JobStatus& s) {
        if (s.step >= 0 && s.steps[size_t(s.step)] == "decode")
            job.cancel();
    });
    cs::SnapshotRestoreOptions o;
    o.threads = 2;
    const QString msg = messageOf([&] { cs::restoreSnapshot(snap.toStdString(), out.toStdString(), o, job); });
    QCOMPARE(msg, QStringLiteral("cancelled"));
    QVERIFY(!QFileInfo::exists(out));
    QVERIFY(leftovers(tmp_.path()).isEmpty());
}

void TestSnapshot::cliCreateRestoreAndExitCodes()
{
    const QByteArray data = mixedBytes((2 << 20) + 3, 101);
    const QString src = path(QStringLiteral("cli.in")), snap = path(QStringLiteral("cli.zst")), out = path(QStringLiteral("cli.out"));
    QVERIFY(writeFile(src, data));
    auto c = cli({QStringLiteral("snapshot"), QStringLiteral("create"), src, snap, QStringLiteral("--chunk"), QStringLiteral("256KiB"),
                  QStringLiteral("--threads"), QStringLiteral("2"), QStringLiteral("--level"), QStringLiteral("5"),
                  QStringLiteral("--seek-table"), QStringLiteral("--json")});
    QVERIFY2(c.exitCode == 0, c.err.constData());
    const QJsonObject j = QJsonDocument::fromJson(c.out).object();
    QCOMPARE(j.value(QStringLiteral("input_bytes")).toDouble(), double(data.size()));
    QCOMPARE(j.value(QStringLiteral("data_frames")).toInt(), 9);
    QCOMPARE(j.value(QStringLiteral("seek_table")).toBool(), true);
    QCOMPARE(j.value(QStringLiteral("output_bytes")).toDouble(), double(QFileInfo(snap).size()));
    auto r = cli({QStringLiteral("snapshot"), QStringLiteral("restore"), snap, out, QStringLiteral("--threads"), QStringLiteral("3"),
                  QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(QJsonDocument::fromJson(r.out).object().value(QStringLiteral("output_bytes")).toDouble(), double(data.size()));
    QCOMPARE(sha256OfFile(out), sha256OfFile(src));
    // Human output, one line.
    auto h = cli({QStringLiteral("snapshot"), QStringLiteral("restore"), snap, out});
    QCOMPARE(h.exitCode, 0);
    QCOMPARE(h.out.count('\n'), 1);

    // Bad usage: exit 2.
    const QList<QStringList> usage = {
        {QStringLiteral("snapshot")},
        {QStringLiteral("snapshot"), QStringLiteral("frobnicate")},
        {QStringLiteral("snapshot"), QStringLiteral("create"), src},
        {QStringLiteral("snapshot"), QStringLiteral("create"), src, snap, QStringLiteral("--chunk"), QStringLiteral("lots")},
        {QStringLiteral("snapshot"), QStringLiteral("create"), src, snap, QStringLiteral("--chunk"), QStringLiteral("2GiB")},
        {QStringLiteral("snapshot"), QStringLiteral("create"), src, snap, QStringLiteral("--threads"), QStringLiteral("0")},
        {QStringLiteral("snapshot"), QStringLiteral("create"), src, snap, QStringLiteral("--level"), QStringLiteral("99")},
        {QStringLiteral("snapshot"), QStringLiteral("restore"), snap, out, QStringLiteral("--bogus")},
    };
    for (const auto& args : usage) {
        auto u = cli(args);
        QVERIFY2(u.exitCode == 2, qPrintable(args.join(' ') + ": " + QString::fromUtf8(u.err)));
        QVERIFY(!u.err.isEmpty());
    }
    // Failed operation: exit 1, one line naming the file.
    auto missing = cli({QStringLiteral("snapshot"), QStringLiteral("create"), path(QStringLiteral("nope")), snap});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY(missing.err.contains("nope"));
    QCOMPARE(missing.err.count('\n'), 1);
    auto notZstd = cli({QStringLiteral("snapshot"), QStringLiteral("restore"), src, out});
    QCOMPARE(notZstd.exitCode, 1);
    QVERIFY2(notZstd.err.contains("offset 0"), notZstd.err.constData());
}

void TestSnapshot::demoDatasetIsIdempotent()
{
    const QString dir = path(QStringLiteral("demo"));
    auto first = cli({QStringLiteral("demo"), dir});
    QVERIFY2(first.exitCode == 0, first.err.constData());
    for (const char* name : {"sized-frames.zst", "seekable.zst", "streamed-unsized.zst", "small-frames.zst", "sparse.zst"}) {
        const QString f = dir + QLatin1Char('/') + QLatin1String(name);
        QVERIFY2(QFileInfo::exists(f), name);
        auto t = zstd({QStringLiteral("-t"), QStringLiteral("-q"), f});
        QVERIFY2(t.exitCode == 0, t.err.constData());
    }
    QVERIFY(QFileInfo::exists(dir + QStringLiteral("/.complete")));
    QVERIFY(!QFileInfo::exists(dir + QStringLiteral("/.demo-source")));
    // The layouts differ as their names say.
    const auto unsized = parseFrames(readFile(dir + QStringLiteral("/streamed-unsized.zst")));
    QCOMPARE(unsized.size(), 1);
    QCOMPARE(unsized[0].contentSize, ZSTD_CONTENTSIZE_UNKNOWN);
    const auto small = parseFrames(readFile(dir + QStringLiteral("/small-frames.zst")));
    QVERIFY(small.size() > 300);
    const auto seekable = parseFrames(readFile(dir + QStringLiteral("/seekable.zst")));
    QCOMPARE(seekable.last().magic, cs::kSeekTableMagic);
    // The demo store has evicted entries: a GC would reclaim dead ranges.
    auto gc = cli({QStringLiteral("store"), QStringLiteral("gc"), dir + QStringLiteral("/store"), QStringLiteral("--dry-run"),
                   QStringLiteral("--json"), QStringLiteral("--ranges")});
    QVERIFY2(gc.exitCode == 0, gc.err.constData());
    const QJsonObject stats = QJsonDocument::fromJson(gc.out).object();
    QVERIFY2(stats.value(QStringLiteral("reclaimed_bytes")).toDouble() > 1 << 20, gc.out.constData());
    QVERIFY(stats.value(QStringLiteral("dead_ranges")).toArray().size() >= 2);
    const QByteArray firstOut = first.out;
    auto second = cli({QStringLiteral("demo"), dir});
    QCOMPARE(second.exitCode, 0);
    QCOMPARE(second.out.trimmed(), QFileInfo(dir).absoluteFilePath().toUtf8());
    QVERIFY(firstOut.endsWith(second.out));
}

CACHESCOPE_CORE_TEST_MAIN(TestSnapshot)
#include "tst_snapshot.moc"
