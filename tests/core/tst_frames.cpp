// core/frames against files written at test time by the stock zstd tools
// (and a few crafted by hand from the format spec), with `zstd -lv` as the
// independent truth for the totals; plus the error cases, random damage, and
// `cachescope-cli frames`.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "common/TestSupport.h"

#include "core/frames/FrameLayout.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <sys/resource.h>

#include <random>

using namespace testsupport;

namespace {

// What `zstd -lv FILE` says about a file.
struct ZstdListing {
    int exitCode = -1;
    qint64 zstdFrames = -1;
    qint64 skippableFrames = 0;
    qint64 compressedSize = -1;
    std::optional<quint64> decompressedSize;
    QString check;       // "XXH64", "None"
    qint64 dictId = -1;
    QString text;
};

ZstdListing zstdList(const QString& path)
{
    const auto r = zstd({QStringLiteral("-lv"), path});
    ZstdListing l;
    l.exitCode = r.exitCode;
    l.text = QString::fromUtf8(r.out + r.err);
    const QRegularExpression bytes(QStringLiteral("\\((\\d+) B\\)"));
    for (const QString& line : l.text.split(QLatin1Char('\n'))) {
        const QString value = line.section(QLatin1Char(':'), 1).trimmed();
        const auto m = bytes.match(line);
        if (line.startsWith(QLatin1String("# Zstandard Frames:")))
            l.zstdFrames = value.toLongLong();
        else if (line.startsWith(QLatin1String("# Skippable Frames:")))
            l.skippableFrames = value.toLongLong();
        else if (line.startsWith(QLatin1String("Compressed Size:")) && m.hasMatch())
            l.compressedSize = m.captured(1).toLongLong();
        else if (line.startsWith(QLatin1String("Decompressed Size:")) && m.hasMatch())
            l.decompressedSize = m.captured(1).toULongLong();
        else if (line.startsWith(QLatin1String("Check:")))
            l.check = value.section(QLatin1Char(' '), 0, 0);
        else if (line.startsWith(QLatin1String("DictID:")))
            l.dictId = value.toLongLong();
    }
    return l;
}

cs::FrameLayout scan(const QString& path, bool blocks = false)
{
    cs::Job job("frames");
    cs::FrameScanOptions options;
    options.blocks = blocks;
    return cs::scanFrames(path.toStdString(), options, job);
}

// The error message of a failed scan, or an empty string when it succeeded.
QString scanError(const QString& path)
{
    try {
        scan(path);
    } catch (const cs::Error& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

qint64 offsetIn(const QString& message)
{
    const auto m = QRegularExpression(QStringLiteral("at offset (\\d+)")).match(message);
    return m.hasMatch() ? m.captured(1).toLongLong() : -1;
}

void putLE32(QByteArray& b, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        b.append(char((v >> (8 * i)) & 0xFF));
}
void putLE24(QByteArray& b, uint32_t v)
{
    for (int i = 0; i < 3; ++i)
        b.append(char((v >> (8 * i)) & 0xFF));
}
void putLE64(QByteArray& b, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        b.append(char((v >> (8 * i)) & 0xFF));
}
uint32_t le32At(const QByteArray& b, qsizetype at)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i)
        v = (v << 8) | uint8_t(b[at + i]);
    return v;
}

QByteArray skippableFrame(uint32_t magic, const QByteArray& payload)
{
    QByteArray b;
    putLE32(b, magic);
    putLE32(b, uint32_t(payload.size()));
    return b + payload;
}

// A block header: last flag, type (0 raw, 1 RLE, 2 compressed, 3 reserved), size.
QByteArray blockHeader(bool last, int type, uint32_t size)
{
    QByteArray b;
    putLE24(b, (size << 3) | (uint32_t(type) << 1) | (last ? 1u : 0u));
    return b;
}

} // namespace

class FramesTest : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir;
    QByteArray input;
    QString in;

    QString path(const QString& name) const { return dir.filePath(name); }

    QString compress(const QString& name, QStringList args, const QString& source = {})
    {
        const QString out = path(name);
        args << QStringLiteral("-q") << QStringLiteral("-f") << (source.isEmpty() ? in : source)
             << QStringLiteral("-o") << out;
        const auto r = zstd(args);
        if (r.exitCode != 0)
            qFatal("zstd %s failed: %s", qPrintable(args.join(' ')), r.err.constData());
        return out;
    }

    // Totals of our scan equal what zstd -lv reports for the same file.
    void compareWithZstd(const QString& file, const cs::FrameLayout& layout)
    {
        const ZstdListing z = zstdList(file);
        QVERIFY2(z.exitCode == 0, qPrintable(z.text));
        const auto& s = layout.summary;
        QCOMPARE(qint64(s.zstdFrames), z.zstdFrames);
        QCOMPARE(qint64(s.skippableFrames), z.skippableFrames);
        QCOMPARE(qint64(s.compressedSize), z.compressedSize);
        QCOMPARE(s.compressedSize, s.fileSize);
        QCOMPARE(s.contentSize.has_value(), z.decompressedSize.has_value());
        if (z.decompressedSize)
            QCOMPARE(quint64(*s.contentSize), *z.decompressedSize);
        QCOMPARE(s.allChecksummed ? QStringLiteral("XXH64") : QStringLiteral("None"), z.check);
        // Our frame sizes tile the file.
        uint64_t at = 0;
        for (const auto& f : layout.frames) {
            QCOMPARE(f.offset, at);
            at += f.compressedSize;
        }
        QCOMPARE(at, s.fileSize);
    }

    // Every zstd frame's size as libzstd finds it in memory (the file is small).
    void compareWithLibzstd(const QString& file, const cs::FrameLayout& layout)
    {
        const QByteArray bytes = readFile(file);
        for (const auto& f : layout.frames) {
            const size_t n = ZSTD_findFrameCompressedSize(bytes.constData() + f.offset, size_t(bytes.size()) - f.offset);
            QVERIFY2(!ZSTD_isError(n), ZSTD_getErrorName(n));
            QCOMPARE(uint64_t(n), f.compressedSize);
            if (f.kind == cs::FrameKind::Zstd) {
                const unsigned long long c = ZSTD_getFrameContentSize(bytes.constData() + f.offset, n);
                QCOMPARE(f.contentSize.has_value(), c != ZSTD_CONTENTSIZE_UNKNOWN);
                if (f.contentSize)
                    QCOMPARE(*f.contentSize, uint64_t(c));
                QCOMPARE(f.dictionaryId, ZSTD_getDictID_fromFrame(bytes.constData() + f.offset, n));
            }
        }
    }

private slots:
    void initTestCase()
    {
        QVERIFY(dir.isValid());
        input = textBytes(3 * 1024 * 1024, 1) + randomBytes(1024 * 1024, 2) + textBytes(512 * 1024, 3);
        in = path(QStringLiteral("input.bin"));
        QVERIFY(writeFile(in, input));
    }

    void plainFile()
    {
        const QString f = compress(QStringLiteral("plain.zst"), {});
        const auto layout = scan(f);
        compareWithZstd(f, layout);
        compareWithLibzstd(f, layout);
        QCOMPARE(layout.frames.size(), size_t(1));
        const auto& fr = layout.frames[0];
        QCOMPARE(fr.kind, cs::FrameKind::Zstd);
        QCOMPARE(fr.magic, 0xFD2FB528u);
        QCOMPARE(*fr.contentSize, uint64_t(input.size()));
        QVERIFY(fr.checksum);
        QVERIFY(fr.blocks[0] + fr.blocks[1] + fr.blocks[2] >= uint64_t(input.size()) / (128 * 1024));
        QVERIFY(!layout.seekTable);
        QVERIFY(!layout.summary.parallel.splittable);
        QCOMPARE(layout.summary.parallel.pieces, uint64_t(1));
        QVERIFY(!layout.summary.parallel.reason.empty());
    }

    void blockList()
    {
        // Random bytes give raw blocks, a run of one byte gives RLE blocks, text compressed ones.
        const QString src = path(QStringLiteral("blocks.bin"));
        QVERIFY(writeFile(src, randomBytes(300 * 1024, 7) + QByteArray(300 * 1024, 'z') + textBytes(300 * 1024, 8)));
        const QString f = compress(QStringLiteral("blocks.zst"), {}, src);
        const auto layout = scan(f, true);
        compareWithZstd(f, layout);
        QCOMPARE(layout.frames.size(), size_t(1));
        const auto& fr = layout.frames[0];
        QVERIFY(fr.blocks[int(cs::BlockType::Raw)] > 0);
        QVERIFY(fr.blocks[int(cs::BlockType::Rle)] > 0);
        QVERIFY(fr.blocks[int(cs::BlockType::Compressed)] > 0);
        QCOMPARE(uint64_t(fr.blockList.size()), fr.blocks[0] + fr.blocks[1] + fr.blocks[2]);
        uint64_t at = fr.offset + fr.headerSize;
        uint64_t known = 0;
        for (size_t i = 0; i < fr.blockList.size(); ++i) {
            const auto& b = fr.blockList[i];
            QCOMPARE(b.offset, at);
            QCOMPARE(b.last, i + 1 == fr.blockList.size());
            if (b.type == cs::BlockType::Rle)
                QCOMPARE(b.size, 1u);
            if (b.type != cs::BlockType::Compressed)
                known += b.contentSize;
            QVERIFY(b.contentSize <= 128 * 1024);
            at += 3 + b.size;
        }
        QCOMPARE(at + (fr.checksum ? 4 : 0), fr.offset + fr.compressedSize);
        QVERIFY(known >= 300 * 1024);  // the random part is stored raw, the zeros as RLE
        // Without --blocks, the counts are the same and no list is kept.
        const auto plain = scan(f);
        QVERIFY(plain.frames[0].blockList.empty());
        QCOMPARE(plain.frames[0].blocks[2], fr.blocks[2]);
    }

    void stdinStream()
    {
        const auto r = zstd({QStringLiteral("-q"), QStringLiteral("-c")}, input);
        QCOMPARE(r.exitCode, 0);
        const QString f = path(QStringLiteral("stdin.zst"));
        QVERIFY(writeFile(f, r.out));
        const auto layout = scan(f);
        compareWithZstd(f, layout);
        compareWithLibzstd(f, layout);
        QCOMPARE(layout.summary.zstdFrames, uint64_t(1));
        QVERIFY(!layout.frames[0].contentSize);
        QCOMPARE(layout.summary.unsizedFrames, uint64_t(1));
        QVERIFY(!layout.summary.contentSize);
        QCOMPARE(layout.summary.ratio, 0.0);
    }

    void threads()
    {
        const QString f = compress(QStringLiteral("t2.zst"), {QStringLiteral("-T2")});
        const auto layout = scan(f);
        compareWithZstd(f, layout);
        compareWithLibzstd(f, layout);
    }

    void rsyncable()
    {
        const QString f = compress(QStringLiteral("rsyncable.zst"), {QStringLiteral("--rsyncable")});
        const auto layout = scan(f);
        compareWithZstd(f, layout);
        compareWithLibzstd(f, layout);
    }

    void noCheck()
    {
        const QString f = compress(QStringLiteral("nocheck.zst"), {QStringLiteral("--no-check")});
        const auto layout = scan(f);
        compareWithZstd(f, layout);
        QVERIFY(!layout.frames[0].checksum);
        QVERIFY(!layout.summary.allChecksummed);
    }

    void concatenated()
    {
        const QString a = compress(QStringLiteral("cat-a.zst"), {});
        const QString b = compress(QStringLiteral("cat-b.zst"), {QStringLiteral("-19")}, a);  // a sized frame of other bytes
        const QString sized = path(QStringLiteral("cat-sized.zst"));
        QVERIFY(writeFile(sized, readFile(a) + readFile(b)));
        const auto l1 = scan(sized);
        compareWithZstd(sized, l1);
        compareWithLibzstd(sized, l1);
        QCOMPARE(l1.summary.zstdFrames, uint64_t(2));
        QVERIFY(l1.summary.parallel.splittable);
        QCOMPARE(l1.summary.parallel.pieces, uint64_t(2));
        QCOMPARE(*l1.summary.contentSize, uint64_t(input.size() + readFile(a).size()));
        QCOMPARE(l1.summary.largestFrameIndex, readFile(a).size() >= readFile(b).size() ? 0u : 1u);

        // A sized frame followed by a stdin stream: two pieces, but the second has no size.
        const auto r = zstd({QStringLiteral("-q"), QStringLiteral("-c")}, input);
        const QString mixed = path(QStringLiteral("cat-mixed.zst"));
        QVERIFY(writeFile(mixed, readFile(a) + r.out));
        const auto l2 = scan(mixed);
        compareWithZstd(mixed, l2);
        QVERIFY(!l2.summary.parallel.splittable);
        QCOMPARE(l2.summary.parallel.pieces, uint64_t(2));
        QCOMPARE(l2.summary.sizedFrames, uint64_t(1));
        QCOMPARE(l2.summary.unsizedFrames, uint64_t(1));
        QVERIFY(QString::fromStdString(l2.summary.parallel.reason).contains(QLatin1String("1 of 2")));
    }

    void dictionary()
    {
        QDir(dir.path()).mkdir(QStringLiteral("samples"));
        QStringList args{QStringLiteral("-q"), QStringLiteral("--train"), QStringLiteral("--maxdict=16384")};
        for (int i = 0; i < 300; ++i) {
            const QString s = path(QStringLiteral("samples/s%1").arg(i));
            QVERIFY(writeFile(s, textBytes(1500 + i * 7, 100 + i)));
            args << s;
        }
        const QString dict = path(QStringLiteral("dict"));
        args << QStringLiteral("-o") << dict;
        const auto r = zstd(args);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QByteArray d = readFile(dict);
        QCOMPARE(le32At(d, 0), 0xEC30A437u);
        const uint32_t dictId = le32At(d, 4);
        const QString f = compress(QStringLiteral("dict.zst"), {QStringLiteral("-D"), dict},
                                   path(QStringLiteral("samples/s42")));
        const auto layout = scan(f);
        compareWithZstd(f, layout);
        compareWithLibzstd(f, layout);
        QCOMPARE(layout.frames[0].dictionaryId, dictId);
        QCOMPARE(qint64(layout.frames[0].dictionaryId), zstdList(f).dictId);
    }

    void pzstd()
    {
        if (!QFileInfo(QStringLiteral(PZSTD_PROGRAM)).isExecutable())  // find_program gives "...-NOTFOUND"
            QSKIP("pzstd is not installed");
        // Larger than pzstd's job size at level 3 so that it writes several frames.
        const QString src = path(QStringLiteral("pz.bin"));
        QByteArray big;
        for (int i = 0; i < 3; ++i)
            big += input;
        QVERIFY(writeFile(src, big));
        const QString f = path(QStringLiteral("pz.zst"));
        const auto r = run(QStringLiteral(PZSTD_PROGRAM), {QStringLiteral("-q"), QStringLiteral("-f"), QStringLiteral("-p"),
                                                           QStringLiteral("2"), src, QStringLiteral("-o"), f});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto layout = scan(f);
        compareWithZstd(f, layout);
        compareWithLibzstd(f, layout);
        QVERIFY(layout.summary.skippableFrames >= 1);
        QCOMPARE(layout.summary.skippableFrames, layout.summary.zstdFrames);
        const QByteArray bytes = readFile(f);
        for (size_t i = 0; i < layout.frames.size(); ++i) {
            const auto& fr = layout.frames[i];
            if (fr.kind != cs::FrameKind::Skippable)
                continue;
            QCOMPARE(fr.role, cs::SkippableRole::PzstdSize);
            QCOMPARE(fr.magic, 0x184D2A50u);
            QCOMPARE(fr.compressedSize, uint64_t(12));
            // The payload holds the next frame's compressed size.
            QVERIFY(i + 1 < layout.frames.size());
            QCOMPARE(uint64_t(le32At(bytes, qsizetype(fr.offset + 8))), layout.frames[i + 1].compressedSize);
        }
    }

    void skippableFrames()
    {
        const QString a = compress(QStringLiteral("skip-a.zst"), {});
        const QString f = path(QStringLiteral("skip.zst"));
        QVERIFY(writeFile(f, skippableFrame(0x184D2A53u, randomBytes(100, 9)) + readFile(a)
                                 + skippableFrame(0x184D2A5Fu, {})));
        const auto layout = scan(f);
        compareWithZstd(f, layout);
        compareWithLibzstd(f, layout);
        QCOMPARE(layout.frames.size(), size_t(3));
        QCOMPARE(layout.frames[0].kind, cs::FrameKind::Skippable);
        QCOMPARE(layout.frames[0].magic, 0x184D2A53u);
        QCOMPARE(layout.frames[0].role, cs::SkippableRole::Other);
        QCOMPARE(layout.frames[0].compressedSize, uint64_t(108));
        QCOMPARE(layout.frames[2].compressedSize, uint64_t(8));
        QCOMPARE(layout.summary.skippableFrames, uint64_t(2));
        QVERIFY(!layout.seekTable);
    }

    void emptyInput()
    {
        const QString src = path(QStringLiteral("empty.bin"));
        QVERIFY(writeFile(src, {}));
        const QString f = compress(QStringLiteral("empty.zst"), {}, src);
        const auto layout = scan(f);
        compareWithZstd(f, layout);
        compareWithLibzstd(f, layout);
        QCOMPARE(layout.frames.size(), size_t(1));
        QCOMPARE(*layout.frames[0].contentSize, uint64_t(0));
        QCOMPARE(*layout.summary.contentSize, uint64_t(0));

        // An empty file holds no frames: not an error (zstd -lv calls it "not compressed by zstd").
        const auto none = scan(src);
        QVERIFY(none.frames.empty());
        QCOMPARE(none.summary.zstdFrames, uint64_t(0));
        QCOMPARE(none.summary.parallel.pieces, uint64_t(0));
        QVERIFY(!none.summary.parallel.splittable);
    }

    // A seekable file made from the spec: frames, then the seek table in a
    // skippable frame with the footer at the file's tail.
    void seekable_data()
    {
        QTest::addColumn<bool>("checksums");
        QTest::addColumn<bool>("sized");
        QTest::newRow("checksums, sized frames") << true << true;
        QTest::newRow("no checksums, sized frames") << false << true;
        QTest::newRow("checksums, unsized frames") << true << false;
    }

    void seekable()
    {
        QFETCH(bool, checksums);
        QFETCH(bool, sized);
        QByteArray file, entries;
        struct Expected { uint32_t c, d, x; };
        std::vector<Expected> expected;
        for (int i = 0; i < 4; ++i) {
            const QByteArray chunk = input.mid(i * 1000000, 1000000);
            QByteArray frame;
            if (sized) {
                const QString src = path(QStringLiteral("seek-chunk-%1").arg(i));
                QVERIFY(writeFile(src, chunk));
                frame = readFile(compress(QStringLiteral("seek-chunk-%1.zst").arg(i), {}, src));
            } else {
                frame = zstd({QStringLiteral("-q"), QStringLiteral("-c")}, chunk).out;
            }
            // The seek table's checksum is the low 32 bits of XXH64, which is
            // exactly the frame's own 4-byte checksum.
            const uint32_t xxh = le32At(frame, frame.size() - 4);
            expected.push_back({uint32_t(frame.size()), uint32_t(chunk.size()), xxh});
            putLE32(entries, uint32_t(frame.size()));
            putLE32(entries, uint32_t(chunk.size()));
            if (checksums)
                putLE32(entries, xxh);
            file += frame;
        }
        QByteArray footer;
        putLE32(footer, uint32_t(expected.size()));
        footer.append(char(checksums ? 0x80 : 0x00));
        putLE32(footer, 0x8F92EAB1u);
        const uint64_t tableOffset = uint64_t(file.size());
        file += skippableFrame(0x184D2A5Eu, entries + footer);
        const QString f = path(QStringLiteral("seekable.zst"));
        QVERIFY(writeFile(f, file));

        const auto layout = scan(f);
        compareWithZstd(f, layout);
        compareWithLibzstd(f, layout);
        QVERIFY(layout.seekTable.has_value());
        const auto& t = *layout.seekTable;
        QCOMPARE(t.offset, tableOffset);
        QCOMPARE(t.frames, 4u);
        QCOMPARE(t.checksums, checksums);
        QVERIFY2(t.consistent, t.problem.c_str());
        QCOMPARE(t.entries.size(), expected.size());
        for (size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(t.entries[i].compressedSize, expected[i].c);
            QCOMPARE(t.entries[i].decompressedSize, expected[i].d);
            QCOMPARE(t.entries[i].checksum, checksums ? expected[i].x : 0u);
        }
        QCOMPARE(layout.frames.back().role, cs::SkippableRole::SeekTable);
        // Unsized frames become splittable through the table's sizes.
        QVERIFY(layout.summary.parallel.splittable);
        QCOMPARE(layout.summary.parallel.pieces, uint64_t(4));
        if (!sized) {
            QVERIFY(!layout.summary.contentSize);
            QVERIFY(QString::fromStdString(layout.summary.parallel.reason).contains(QLatin1String("seek table")));
        }

        // A table that lists a wrong size is found out, and then gives no sizes.
        QByteArray bad = file;
        const qsizetype firstEntry = qsizetype(tableOffset) + 8;
        bad[firstEntry] = char(bad[firstEntry] ^ 0x01);
        const QString fb = path(QStringLiteral("seekable-bad.zst"));
        QVERIFY(writeFile(fb, bad));
        const auto lb = scan(fb);
        QVERIFY(lb.seekTable.has_value());
        QVERIFY(!lb.seekTable->consistent);
        QVERIFY(!lb.seekTable->problem.empty());
        QCOMPARE(lb.summary.parallel.splittable, sized);
    }

    // The seek table as the snapshot writer writes it, parsed back.
    void snapshotSeekTable()
    {
        const QString f = path(QStringLiteral("snapshot.zst"));
        const auto r = cli({QStringLiteral("snapshot"), QStringLiteral("create"), in, f, QStringLiteral("--chunk"),
                            QStringLiteral("1MiB"), QStringLiteral("--seek-table")});
        QVERIFY2(r.exitCode == 0, r.err.constData());   // a missing snapshot command fails here (exit 2)
        const auto layout = scan(f);
        compareWithZstd(f, layout);
        compareWithLibzstd(f, layout);
        QVERIFY(layout.seekTable.has_value());
        const auto& t = *layout.seekTable;
        QVERIFY2(t.consistent, t.problem.c_str());
        QCOMPARE(uint64_t(t.frames), layout.summary.zstdFrames);
        QCOMPARE(layout.summary.zstdFrames, uint64_t((input.size() + 1024 * 1024 - 1) / (1024 * 1024)));
        const QByteArray bytes = readFile(f);
        uint64_t total = 0;
        size_t i = 0;
        for (const auto& fr : layout.frames) {
            if (fr.kind != cs::FrameKind::Zstd)
                continue;
            const auto& e = t.entries[i++];
            QCOMPARE(uint64_t(e.compressedSize), fr.compressedSize);
            QCOMPARE(uint64_t(e.decompressedSize), *fr.contentSize);
            if (t.checksums && fr.checksum)
                QCOMPARE(e.checksum, le32At(bytes, qsizetype(fr.offset + fr.compressedSize - 4)));
            total += e.decompressedSize;
        }
        QCOMPARE(total, uint64_t(input.size()));
        QCOMPARE(layout.frames.back().role, cs::SkippableRole::SeekTable);
        QVERIFY(layout.summary.parallel.splittable);
    }

    void truncatedFile()
    {
        const QByteArray whole = readFile(compress(QStringLiteral("trunc-src.zst"), {}));
        struct Cut { qsizetype size; qint64 expectedOffset; };
        // In a block, inside the frame header, in the checksum (the offset is where the checksum starts).
        const std::vector<Cut> cuts{{whole.size() / 2, -1}, {6, -1}, {whole.size() - 2, whole.size() - 4}};
        for (const auto& cut : cuts) {
            const QString f = path(QStringLiteral("trunc-%1.zst").arg(cut.size));
            QVERIFY(writeFile(f, whole.left(cut.size)));
            const QString err = scanError(f);
            QVERIFY2(err.startsWith(f), qPrintable(err));
            QVERIFY2(err.contains(QLatin1String("truncated")), qPrintable(err));
            const qint64 at = offsetIn(err);
            QVERIFY2(at >= 0 && at <= cut.size, qPrintable(err));
            if (cut.expectedOffset >= 0)
                QCOMPARE(at, cut.expectedOffset);
            QVERIFY(zstdList(f).exitCode != 0);  // zstd agrees the file is bad

            const auto r = cli({QStringLiteral("frames"), f});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(QStringLiteral("at offset %1").arg(at).toUtf8()), r.err.constData());
            QCOMPARE(r.err.count('\n'), 1);
        }
    }

    void trailingGarbage()
    {
        const QByteArray whole = readFile(compress(QStringLiteral("garbage-src.zst"), {}));
        for (const QByteArray& tail : {QByteArray("garbage after the frame"), QByteArray("\x01\x02", 2)}) {
            const QString f = path(QStringLiteral("garbage-%1.zst").arg(tail.size()));
            QVERIFY(writeFile(f, whole + tail));
            const QString err = scanError(f);
            QVERIFY2(!err.isEmpty(), "trailing garbage was accepted");
            QCOMPARE(offsetIn(err), qint64(whole.size()));
            QVERIFY(zstdList(f).exitCode != 0);
            const auto r = cli({QStringLiteral("frames"), f, QStringLiteral("--json")});
            QCOMPARE(r.exitCode, 1);
            QVERIFY(r.out.isEmpty());
            QVERIFY2(r.err.contains(QStringLiteral("at offset %1").arg(whole.size()).toUtf8()), r.err.constData());
        }
    }

    void hugeDeclaredContent()
    {
        // Single-segment frame declaring 1 TiB (8-byte size field), one raw block of 5 bytes.
        const uint64_t tib = uint64_t(1) << 40;
        QByteArray b;
        putLE32(b, 0xFD2FB528u);
        b.append(char(0xE0));  // FCS field 8 bytes, single segment, no checksum, no dictionary
        putLE64(b, tib);
        b += blockHeader(true, 0, 5) + QByteArray("hello");
        const QString f = path(QStringLiteral("tib.zst"));
        QVERIFY(writeFile(f, b));

        rusage before {};
        getrusage(RUSAGE_SELF, &before);
        const auto layout = scan(f, true);
        rusage after {};
        getrusage(RUSAGE_SELF, &after);
        QVERIFY(after.ru_maxrss - before.ru_maxrss < 64 * 1024);  // KiB: nothing near 1 TiB was touched

        compareWithZstd(f, layout);
        QCOMPARE(*layout.frames[0].contentSize, tib);
        QCOMPARE(layout.frames[0].windowSize, tib);
        QVERIFY(layout.frames[0].singleSegment);
        QCOMPARE(layout.frames[0].compressedSize, uint64_t(b.size()));
        QCOMPARE(*layout.summary.contentSize, tib);

        const auto r = cli({QStringLiteral("frames"), f, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const auto doc = QJsonDocument::fromJson(r.out);
        QCOMPARE(doc["frames"][0]["content_size"].toDouble(), double(tib));
        QCOMPARE(doc["summary"]["content_size"].toDouble(), double(tib));
    }

    void blockTooLarge()
    {
        // 1 KiB window (window descriptor 0), a raw block of 2000 bytes.
        QByteArray small;
        putLE32(small, 0xFD2FB528u);
        small.append(char(0x00));  // no content size, not single segment
        small.append(char(0x00));  // window 1 KiB
        small += blockHeader(true, 0, 2000) + QByteArray(2000, 'x');
        // Single segment of 1 MiB: the window is 1 MiB, blocks still stop at 128 KiB.
        QByteArray big;
        putLE32(big, 0xFD2FB528u);
        big.append(char(0xA0));  // FCS 4 bytes, single segment
        putLE32(big, 1024 * 1024);
        big += blockHeader(true, 0, 128 * 1024 + 1) + QByteArray(128 * 1024 + 1, 'y');
        // An RLE block regenerating more than 128 KiB.
        QByteArray rle;
        putLE32(rle, 0xFD2FB528u);
        rle.append(char(0xA0));
        putLE32(rle, 1024 * 1024);
        rle += blockHeader(false, 1, 128 * 1024) + QByteArray(1, 'r') + blockHeader(true, 1, 200 * 1024)
               + QByteArray(1, 'r');
        const std::vector<std::pair<QByteArray, qint64>> cases{{small, 6}, {big, 9}, {rle, 9 + 4}};
        int n = 0;
        for (const auto& [bytes, headerAt] : cases) {
            const QString f = path(QStringLiteral("bigblock-%1.zst").arg(n++));
            QVERIFY(writeFile(f, bytes));
            const QString err = scanError(f);
            QVERIFY2(err.contains(QLatin1String("larger than")), qPrintable(err));
            QCOMPARE(offsetIn(err), headerAt);
            const auto r = cli({QStringLiteral("frames"), f});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(QStringLiteral("at offset %1").arg(headerAt).toUtf8()), r.err.constData());
        }
        // The same block at exactly the limit is fine.
        QByteArray ok;
        putLE32(ok, 0xFD2FB528u);
        ok.append(char(0xA0));
        putLE32(ok, 128 * 1024);
        ok += blockHeader(true, 0, 128 * 1024) + QByteArray(128 * 1024, 'y');
        const QString fok = path(QStringLiteral("bigblock-ok.zst"));
        QVERIFY(writeFile(fok, ok));
        QCOMPARE(scanError(fok), QString());
        QCOMPARE(zstd({QStringLiteral("-t"), QStringLiteral("-q"), fok}).exitCode, 0);  // stock zstd decodes it
    }

    void reservedBits()
    {
        QByteArray fhd;
        putLE32(fhd, 0xFD2FB528u);
        fhd.append(char(0x20 | 0x08));  // single segment + reserved bit 3
        fhd.append(char(1));
        fhd += blockHeader(true, 0, 1) + QByteArray("a");
        QByteArray type3;
        putLE32(type3, 0xFD2FB528u);
        type3.append(char(0x20));
        type3.append(char(1));
        type3 += blockHeader(true, 3, 1) + QByteArray("a");
        const QString f1 = path(QStringLiteral("reserved-fhd.zst")), f2 = path(QStringLiteral("reserved-type.zst"));
        QVERIFY(writeFile(f1, fhd));
        QVERIFY(writeFile(f2, type3));
        const QString e1 = scanError(f1), e2 = scanError(f2);
        QVERIFY2(e1.contains(QLatin1String("reserved")), qPrintable(e1));
        QCOMPARE(offsetIn(e1), qint64(4));
        QVERIFY2(e2.contains(QLatin1String("reserved")), qPrintable(e2));
        QCOMPARE(offsetIn(e2), qint64(6));
    }

    void cancelAndProgress()
    {
        // 600 tiny frames: the scan checks cancel every few hundred frames.
        const QByteArray one = readFile(path(QStringLiteral("empty.zst")));
        QVERIFY(!one.isEmpty());
        QByteArray many;
        for (int i = 0; i < 600; ++i)
            many += one;
        const QString f = path(QStringLiteral("many.zst"));
        QVERIFY(writeFile(f, many));
        cs::Job job("frames");
        double last = -1;
        int calls = 0;
        job.setListener([&](const cs::JobStatus& s) {
            QVERIFY(s.stepFraction >= last);
            last = s.stepFraction;
            ++calls;
        });
        const auto layout = cs::scanFrames(f.toStdString(), {}, job);
        QCOMPARE(layout.summary.zstdFrames, uint64_t(600));
        compareWithZstd(f, layout);
        compareWithLibzstd(f, layout);
        QVERIFY(layout.summary.parallel.splittable);
        QCOMPARE(last, 1.0);
        QVERIFY(calls >= 2);

        cs::Job cancelled("frames");
        cancelled.cancel();
        QVERIFY_THROWS_EXCEPTION(cs::Cancelled, cs::scanFrames(f.toStdString(), {}, cancelled));
    }

    // Random bytes and damaged real files: a result or a cs::Error, never a
    // crash; when the scan succeeds libzstd finds the same frame sizes.
    void damagedInput()
    {
        QByteArray base;
        for (const char* name : {"plain.zst", "stdin.zst", "skip.zst", "empty.zst"})
            base += readFile(path(QString::fromLatin1(name)));
        QVERIFY(base.size() > 1000);
        int failures = 0, successes = 0;
        for (uint64_t seed = 1; seed <= 300; ++seed) {
            std::mt19937_64 rng(seed);
            QByteArray bytes;
            if (seed % 5 == 0) {
                bytes = randomBytes(qsizetype(rng() % 4096), seed);
            } else if (seed % 5 == 1) {
                bytes = QByteArray("\x28\xB5\x2F\xFD", 4) + randomBytes(qsizetype(rng() % 512), seed);
            } else {
                bytes = base;
                const int flips = 1 + int(rng() % 8);
                for (int i = 0; i < flips; ++i) {
                    // Mostly near frame headers and block headers, where the scan reads.
                    const qsizetype at = qsizetype(rng() % uint64_t(rng() % 2 ? 64 : bytes.size()));
                    bytes[at] = char(rng());
                }
                if (seed % 3 == 0)
                    bytes.truncate(qsizetype(rng() % uint64_t(bytes.size())));
            }
            const QString f = path(QStringLiteral("fuzz.zst"));
            QVERIFY(writeFile(f, bytes));
            try {
                const auto layout = scan(f, seed % 2 == 0);
                ++successes;
                compareWithLibzstd(f, layout);
                if (QTest::currentTestFailed()) {
                    qWarning("seed %llu", (unsigned long long)seed);
                    return;
                }
            } catch (const cs::Error& e) {
                ++failures;
                QVERIFY2(QString::fromUtf8(e.what()).startsWith(f), e.what());
            }
        }
        QVERIFY(failures > 0);
        QVERIFY(successes > 0);
    }

    void cliJson()
    {
        const QString f = path(QStringLiteral("seekable.zst"));  // last written by seekable(): unsized frames + table
        QVERIFY(QFile::exists(f));
        const auto r = cli({QStringLiteral("frames"), f, QStringLiteral("--json"), QStringLiteral("--blocks")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QJsonParseError pe;
        const auto doc = QJsonDocument::fromJson(r.out, &pe);
        QVERIFY2(pe.error == QJsonParseError::NoError, qPrintable(pe.errorString()));
        const auto layout = scan(f, true);
        const QJsonArray frames = doc["frames"].toArray();
        QCOMPARE(frames.size(), qsizetype(layout.frames.size()));
        for (qsizetype i = 0; i < frames.size(); ++i) {
            const QJsonObject o = frames[i].toObject();
            const auto& fr = layout.frames[size_t(i)];
            for (const char* key : {"index", "offset", "kind", "compressed_size", "content_size", "window_size",
                                    "dictionary_id", "checksum", "single_segment", "header_size", "magic", "role", "blocks"})
                QVERIFY2(o.contains(QLatin1String(key)), key);
            QCOMPARE(o["index"].toInteger(), qint64(i));
            QCOMPARE(o["offset"].toInteger(), qint64(fr.offset));
            QCOMPARE(o["compressed_size"].toInteger(), qint64(fr.compressedSize));
            QCOMPARE(o["kind"].toString(), QString::fromLatin1(cs::frameKindName(fr.kind)));
            QCOMPARE(o["content_size"].isNull(), !fr.contentSize.has_value());
            QVERIFY(o["checksum"].isBool());
            QVERIFY(o["single_segment"].isBool());
            if (fr.kind == cs::FrameKind::Zstd) {
                QVERIFY(o["role"].isNull());
                QCOMPARE(o["block_list"].toArray().size(), qsizetype(fr.blockList.size()));
            } else {
                QCOMPARE(o["role"].toString(), QStringLiteral("seek_table"));
            }
        }
        const QJsonObject table = doc["seek_table"].toObject();
        QCOMPARE(table["frames"].toInteger(), qint64(layout.seekTable->frames));
        QVERIFY(table["checksums"].isBool());
        QCOMPARE(table["offset"].toInteger(), qint64(layout.seekTable->offset));
        const QJsonObject s = doc["summary"].toObject();
        QCOMPARE(s["zstd_frames"].toInteger(), qint64(layout.summary.zstdFrames));
        QCOMPARE(s["skippable_frames"].toInteger(), qint64(layout.summary.skippableFrames));
        QCOMPARE(s["compressed_size"].toInteger(), qint64(layout.summary.compressedSize));
        QVERIFY(s["content_size"].isNull());
        QVERIFY(s.contains(QLatin1String("ratio")));
        QCOMPARE(s["largest_frame"]["index"].toInteger(), qint64(layout.summary.largestFrameIndex));
        const QJsonObject p = s["parallel"].toObject();
        QCOMPARE(p["splittable"].toBool(), layout.summary.parallel.splittable);
        QCOMPARE(p["pieces"].toInteger(), qint64(layout.summary.parallel.pieces));
        QVERIFY(!p["reason"].toString().isEmpty());

        // A plain file: no seek table, a declared content size.
        const auto r2 = cli({QStringLiteral("frames"), path(QStringLiteral("plain.zst")), QStringLiteral("--json")});
        QCOMPARE(r2.exitCode, 0);
        const auto d2 = QJsonDocument::fromJson(r2.out);
        QVERIFY(d2["seek_table"].isNull());
        QCOMPARE(d2["frames"][0]["content_size"].toInteger(), qint64(input.size()));
        QCOMPARE(d2["summary"]["content_size"].toInteger(), qint64(input.size()));
        QVERIFY(!d2["frames"][0].toObject().contains(QLatin1String("block_list")));
    }

    void cliText()
    {
        const auto r = cli({QStringLiteral("frames"), path(QStringLiteral("cat-mixed.zst"))});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString out = QString::fromUtf8(r.out);
        QVERIFY(out.contains(QLatin1String("not splittable, 2 pieces")));
        QVERIFY(out.contains(QLatin1String("unknown")));
        QCOMPARE(out.count(QRegularExpression(QStringLiteral("^\\s*\\d+\\s+\\d+\\s+zstd"),
                                              QRegularExpression::MultilineOption)),
                 2);
        QCOMPARE(cli({QStringLiteral("frames")}).exitCode, 2);
        QCOMPARE(cli({QStringLiteral("frames"), QStringLiteral("--bogus"), path(QStringLiteral("plain.zst"))}).exitCode, 2);
        const auto missing = cli({QStringLiteral("frames"), path(QStringLiteral("no-such-file.zst"))});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY(missing.err.contains("no-such-file.zst"));
    }
};

CACHESCOPE_CORE_TEST_MAIN(FramesTest)
#include "tst_frames.moc"
