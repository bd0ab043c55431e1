// Memory bound of `cachescope-cli frames --json`: the document is streamed
// from the scan, so a file of many tiny frames costs what a file of one does
// (it used to hold every frame and its JSON: 6 KB per frame, 12 GB for 2 M
// frames). The child's own peak RSS is measured (common/ChildRss.h).
#include "common/ChildRss.h"
#include "common/TestSupport.h"

#include "core/frames/FrameLayout.h"
#include "core/frames/FrameLayoutJson.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <sys/stat.h>

using namespace testsupport;

class FramesBoundsTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString path(const QString& name) const { return dir_.filePath(name); }

    // n copies of the empty frame stock zstd writes for an empty input.
    QString emptyFrames(int n, bool checksum)
    {
        QStringList args{QStringLiteral("-q"), QStringLiteral("-c")};
        if (!checksum)
            args << QStringLiteral("--no-check");
        const auto r = zstd(args, QByteArray(""));
        if (r.exitCode != 0 || r.out.size() < 9)
            return {};
        const QString f = path(QStringLiteral("empty-%1-%2.zst").arg(n).arg(checksum));
        writeFile(f, r.out.repeated(n));
        return f;
    }

private slots:
    void jsonMemoryDoesNotGrowWithFrames()
    {
        constexpr int kFrames = 150000;
        const QString one = emptyFrames(1, false);
        const QString many = emptyFrames(kFrames, false);
        QVERIFY(!one.isEmpty() && !many.isEmpty());
        const QStringList opts{QStringLiteral("--json"), QStringLiteral("--blocks")};
        const auto base = runMeasured(QStringLiteral(CACHESCOPE_CLI), QStringList{QStringLiteral("frames"), one} + opts,
                                      path(QStringLiteral("one.json")));
        const auto big = runMeasured(QStringLiteral(CACHESCOPE_CLI), QStringList{QStringLiteral("frames"), many} + opts,
                                     path(QStringLiteral("many.json")));
        QCOMPARE(base.exitCode, 0);
        QCOMPARE(big.exitCode, 0);
        // At most 200 bytes per frame above the one-frame run (it held ~6 KB).
        const double perFrame = double(big.maxRssKiB - base.maxRssKiB) * 1024.0 / kFrames;
        qInfo("peak RSS: 1 frame %ld KiB, %d frames %ld KiB: %.1f B per frame", base.maxRssKiB, kFrames,
              big.maxRssKiB, perFrame);
        QVERIFY2(perFrame <= 200, qPrintable(QStringLiteral("%1 B per frame").arg(perFrame)));

        // And the document is whole and right: every frame, in order.
        QJsonParseError pe;
        const auto doc = QJsonDocument::fromJson(readFile(path(QStringLiteral("many.json"))), &pe);
        QVERIFY2(pe.error == QJsonParseError::NoError, qPrintable(pe.errorString()));
        const QJsonArray frames = doc["frames"].toArray();
        QCOMPARE(frames.size(), qsizetype(kFrames));
        const qint64 frameSize = QFileInfo(many).size() / kFrames;
        for (qsizetype i : {qsizetype(0), qsizetype(1), qsizetype(kFrames / 2), qsizetype(kFrames - 1)}) {
            QCOMPARE(frames[i]["index"].toInteger(), qint64(i));
            QCOMPARE(frames[i]["offset"].toInteger(), qint64(i) * frameSize);
            QCOMPARE(frames[i]["content_size"].toInteger(), 0);
            QCOMPARE(frames[i]["block_list"].toArray().size(), 1);
            QVERIFY(frames[i]["block_list"][0]["last"].toBool());
        }
        const QJsonObject s = doc["summary"].toObject();
        QCOMPARE(s["zstd_frames"].toInteger(), qint64(kFrames));
        QCOMPARE(s["compressed_size"].toInteger(), QFileInfo(many).size());
        QCOMPARE(s["largest_frame"]["index"].toInteger(), 0);
        QVERIFY(s["parallel"]["splittable"].toBool());
    }

    // The streamed document says what scanFrames() says, on a seekable file
    // (stock zstd frames + seek table written by our snapshot writer).
    void streamedEqualsScanned()
    {
        const QString src = path(QStringLiteral("src.bin"));
        QVERIFY(writeFile(src, textBytes(3 * 1024 * 1024 + 77, 7)));
        const QString snap = path(QStringLiteral("src.snap"));
        const auto w = cli({QStringLiteral("snapshot"), QStringLiteral("create"), src, snap, QStringLiteral("--chunk"),
                            QStringLiteral("256KiB"), QStringLiteral("--seek-table")});
        QVERIFY2(w.exitCode == 0, w.err.constData());
        cs::Job job("frames");
        cs::FrameScanOptions options;
        options.blocks = true;
        const auto layout = cs::scanFrames(snap.toStdString(), options, job);
        std::string text;
        cs::Job job2("frames");
        const auto summary = cs::writeFrameLayoutJson(snap.toStdString(), options, job2,
                                                      [&](std::string_view s) { text += s; });
        QJsonParseError pe;
        const auto doc = QJsonDocument::fromJson(QByteArray::fromStdString(text), &pe);
        QVERIFY2(pe.error == QJsonParseError::NoError, qPrintable(pe.errorString()));
        QVERIFY(layout.seekTable && layout.seekTable->consistent);
        QVERIFY(!layout.seekTable->entries.empty());  // scanFrames keeps them for the GUI
        QCOMPARE(doc["seek_table"]["consistent"].toBool(), true);
        QCOMPARE(doc["seek_table"]["frames"].toInteger(), qint64(layout.seekTable->frames));
        QCOMPARE(summary.parallel.splittable, layout.summary.parallel.splittable);
        QCOMPARE(summary.largestFrameOffset, layout.frames[layout.summary.largestFrameIndex].offset);
        const QJsonArray frames = doc["frames"].toArray();
        QCOMPARE(frames.size(), qsizetype(layout.frames.size()));
        for (qsizetype i = 0; i < frames.size(); ++i) {
            const auto& f = layout.frames[size_t(i)];
            QCOMPARE(frames[i]["offset"].toInteger(), qint64(f.offset));
            QCOMPARE(frames[i]["compressed_size"].toInteger(), qint64(f.compressedSize));
            QCOMPARE(frames[i]["blocks"]["compressed"].toInteger(), qint64(f.blocks[2]));
            QCOMPARE(frames[i]["block_list"].toArray().size(), qsizetype(f.kind == cs::FrameKind::Zstd ? f.blockList.size() : 0));
        }
        QCOMPARE(doc["summary"]["largest_frame"]["offset"].toInteger(), qint64(summary.largestFrameOffset));
    }

    // A seek table whose entry 1 disagrees with frame 1 is found while streaming.
    void streamedSeekTableMismatch()
    {
        const QString snap = path(QStringLiteral("src.snap"));
        QByteArray b = readFile(snap);
        QVERIFY(b.size() > 100);
        // Footer: u32 frames, u8 descriptor, u32 magic; entries of 12 bytes before it.
        const quint32 n = quint32(uchar(b[b.size() - 9])) | quint32(uchar(b[b.size() - 8])) << 8;
        QVERIFY(n >= 2);
        const qsizetype entry1 = b.size() - 9 - qsizetype(n) * 12 + 12;
        b[entry1] = char(b[entry1] ^ 0x01);  // compressed size of entry 1
        const QString bad = path(QStringLiteral("bad-table.snap"));
        QVERIFY(writeFile(bad, b));
        const auto r = cli({QStringLiteral("frames"), bad, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const auto doc = QJsonDocument::fromJson(r.out);
        QCOMPARE(doc["seek_table"]["consistent"].toBool(), false);
        QVERIFY2(doc["seek_table"]["problem"].toString().startsWith(QLatin1String("seek table entry 1 gives")),
                 qPrintable(doc["seek_table"]["problem"].toString()));
    }

    // A seek table written by our writer, then patched: each contradiction is
    // reported in frames --json and the human table, naming the first entry
    // that differs; the table as written stays consistent. A checksum that
    // contradicts its frame's own was reported consistent: true.
    void seekTableThatContradictsTheFrames()
    {
        const QString src = path(QStringLiteral("table-src.bin"));
        QVERIFY(writeFile(src, textBytes(5 * 65536 + 99, 21)));
        const QString snap = path(QStringLiteral("table.snap"));
        const auto w = cli({QStringLiteral("snapshot"), QStringLiteral("create"), src, snap, QStringLiteral("--chunk"),
                            QStringLiteral("64KiB"), QStringLiteral("--seek-table")});
        QVERIFY2(w.exitCode == 0, w.err.constData());
        const QByteArray good = readFile(snap);
        QCOMPARE(zstd({QStringLiteral("-t"), QStringLiteral("-q"), snap}).exitCode, 0);
        const quint32 n = quint32(uchar(good[good.size() - 9])) | quint32(uchar(good[good.size() - 8])) << 8;
        QCOMPARE(n, 6u);
        const qsizetype entries = good.size() - 9 - qsizetype(n) * 12;
        auto entryField = [&](int entry, int field) { return entries + entry * 12 + field * 4; };

        const auto ok = cli({QStringLiteral("frames"), snap, QStringLiteral("--json")});
        QCOMPARE(ok.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(ok.out)["seek_table"]["consistent"].toBool(), true);
        const auto okText = cli({QStringLiteral("frames"), snap});
        QVERIFY2(!okText.out.contains("does not match"), okText.out.constData());

        struct Patch {
            const char* name;
            int entry, field;
            int delta;
            const char* problem;
        };
        const Patch patches[] = {
            {"checksum", 3, 2, 1, "seek table entry 3 gives checksum 0x"},
            {"decompressed size", 2, 1, 7, "seek table entry 2 gives 65543 decompressed bytes"},
            // Entry 1 one byte longer, entry 2 one shorter: every later offset is right again.
            {"compressed sizes", 1, 0, 1, "seek table entry 1 gives"},
        };
        for (const Patch& p : patches) {
            QByteArray b = good;
            const qsizetype at = entryField(p.entry, p.field);
            b[at] = char(uchar(b[at]) + p.delta);
            if (QByteArray(p.name) == "compressed sizes")
                b[entryField(2, 0)] = char(uchar(b[entryField(2, 0)]) - 1);
            const QString f = path(QStringLiteral("patched-%1.snap").arg(QString::fromLatin1(p.name).replace(' ', '-')));
            QVERIFY(writeFile(f, b));
            const auto r = cli({QStringLiteral("frames"), f, QStringLiteral("--json")});
            QCOMPARE(r.exitCode, 0);
            const auto doc = QJsonDocument::fromJson(r.out);
            QVERIFY2(!doc["seek_table"]["consistent"].toBool(), p.name);
            const QString problem = doc["seek_table"]["problem"].toString();
            QVERIFY2(problem.startsWith(QLatin1String(p.problem)), qPrintable(problem));
            const auto text = cli({QStringLiteral("frames"), f});
            QCOMPARE(text.exitCode, 0);
            QVERIFY2(text.out.contains("(does not match: " + problem.toUtf8() + ")"), text.out.constData());
            // The scan the GUI uses says the same.
            cs::Job job("frames");
            const auto layout = cs::scanFrames(f.toStdString(), {}, job);
            QVERIFY(layout.seekTable && !layout.seekTable->consistent);
            QCOMPARE(QString::fromStdString(layout.seekTable->problem), problem);
        }
    }

    // A snapshot of a sparse file counts each hole marker in the seek table
    // entry of the zero frame after it (cumulative sums give the offsets):
    // that table is consistent. It was reported inconsistent.
    void seekTableWithHoleMarkersIsConsistent()
    {
        const QString src = path(QStringLiteral("sparse.bin"));
        {
            QFile f(src);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(textBytes(100000, 4));
            QVERIFY(f.resize(qint64(8) << 20));
            QVERIFY(f.seek((qint64(8) << 20) - 5000));
            f.write(textBytes(5000, 5));
        }
        const QString snap = path(QStringLiteral("sparse.snap"));
        const auto w = cli({QStringLiteral("snapshot"), QStringLiteral("create"), src, snap, QStringLiteral("--chunk"),
                            QStringLiteral("1MiB"), QStringLiteral("--seek-table"), QStringLiteral("--json")});
        QVERIFY2(w.exitCode == 0, w.err.constData());
        const auto written = QJsonDocument::fromJson(w.out);
        const auto r = cli({QStringLiteral("frames"), snap, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const auto doc = QJsonDocument::fromJson(r.out);
        QVERIFY2(doc["seek_table"]["consistent"].toBool(), qPrintable(doc["seek_table"]["problem"].toString()));
        QCOMPARE(zstd({QStringLiteral("-t"), QStringLiteral("-q"), snap}).exitCode, 0);
        if (written["hole_frames"].toInteger() == 0)
            QFAIL("the temp folder's file system keeps no holes, so the snapshot has no hole markers to check");
        QVERIFY(doc["summary"]["skippable_frames"].toInteger() > 1);   // hole markers and the table
    }

    // A pipe or FIFO has no offsets to read headers at: one sentence, exit 1,
    // and no wait for a writer (a FIFO made here, never a device of the machine).
    void pipesAreRefused()
    {
        const QString fifo = path(QStringLiteral("a.fifo"));
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        const auto r = cli({QStringLiteral("frames"), fifo, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.contains("needs a seekable file") && r.err.contains(fifo.toUtf8()), r.err.constData());
        // Our own stdin, a pipe holding a valid frame: refused, not read as empty.
        const QByteArray frame = readFile(emptyFrames(1, true));
        const auto piped = cli({QStringLiteral("frames"), QStringLiteral("/dev/stdin")}, frame);
        QCOMPARE(piped.exitCode, 1);
        QVERIFY2(piped.err.contains("needs a seekable file"), piped.err.constData());
        const auto dir = cli({QStringLiteral("frames"), dir_.path()});
        QCOMPARE(dir.exitCode, 1);
        QVERIFY2(dir.err.contains("is a folder"), dir.err.constData());
    }

    // A failed scan never leaves a complete document on stdout.
    void failedScanWritesNoDocument()
    {
        QByteArray b = readFile(emptyFrames(1000, true));
        b.chop(2);
        const QString f = path(QStringLiteral("cut.zst"));
        QVERIFY(writeFile(f, b));
        const auto r = cli({QStringLiteral("frames"), f, QStringLiteral("--json"), QStringLiteral("--blocks")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.contains(QStringLiteral("at offset %1").arg(b.size() - 2).toUtf8()), r.err.constData());
    }
};

CACHESCOPE_CORE_TEST_MAIN(FramesBoundsTest)
#include "tst_frames_bounds.moc"
