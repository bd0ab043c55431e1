// Frame-layout fixtures for the UI tests, written at test time by the stock
// zstd tool, and the frame counts `zstd -lv` reports for them.
#pragma once
#include "common/TestSupport.h"

#include <QRegularExpression>

namespace fixtures {

struct ZstdCounts {
    int zstdFrames = -1;
    int skippableFrames = 0;
    qint64 compressedSize = -1;
};

// Parses `zstd -lv file`: "# Zstandard Frames: N", "# Skippable Frames: N", "Compressed Size: ... (N B)".
inline ZstdCounts zstdList(const QString& path)
{
    const auto r = testsupport::zstd({QStringLiteral("-lv"), path});
    const QString out = QString::fromUtf8(r.out);
    ZstdCounts c;
    if (auto m = QRegularExpression(QStringLiteral("# Zstandard Frames: (\\d+)")).match(out); m.hasMatch())
        c.zstdFrames = m.captured(1).toInt();
    if (auto m = QRegularExpression(QStringLiteral("# Skippable Frames: (\\d+)")).match(out); m.hasMatch())
        c.skippableFrames = m.captured(1).toInt();
    if (auto m = QRegularExpression(QStringLiteral("Compressed Size: .*\\((\\d+) B\\)")).match(out); m.hasMatch())
        c.compressedSize = m.captured(1).toLongLong();
    return c;
}

// zstd's compressed bytes of data (a file argument: the frame declares its size;
// fromStdin: a streamed frame without a content size).
inline QByteArray compress(const QString& dir, const QByteArray& data, bool fromStdin, const QStringList& extra = {})
{
    if (fromStdin)
        return testsupport::zstd(QStringList{QStringLiteral("-q"), QStringLiteral("-c")} + extra, data).out;
    const QString in = dir + QStringLiteral("/input.bin");
    testsupport::writeFile(in, data);
    return testsupport::zstd(QStringList{QStringLiteral("-q"), QStringLiteral("-c")} + extra + QStringList{in}).out;
}

// A skippable frame with magic 0x184D2A53 and a payload of n bytes.
inline QByteArray skippableFrame(int n)
{
    QByteArray f("\x53\x2a\x4d\x18", 4);
    const quint32 size = quint32(n);
    f.append(char(size & 0xff)).append(char((size >> 8) & 0xff)).append(char((size >> 16) & 0xff)).append(char(size >> 24));
    f.append(QByteArray(n, 'x'));
    return f;
}

// Three sized frames written by zstd, concatenated: splittable into 3 pieces.
inline QString writeSizedFrames(const QString& dir, int frames = 3)
{
    QByteArray file;
    for (int i = 0; i < frames; ++i)
        file += compress(dir, testsupport::textBytes(200000 + 50000 * i, uint64_t(i + 1)), false);
    const QString path = dir + QStringLiteral("/sized.zst");
    testsupport::writeFile(path, file);
    return path;
}

// Sized frames, a skippable frame and a streamed (unsized) frame.
inline QString writeMixedFrames(const QString& dir)
{
    QByteArray file;
    file += compress(dir, testsupport::textBytes(300000, 7), false);
    file += compress(dir, testsupport::randomBytes(100000, 8), false, {QStringLiteral("--no-check")});
    file += skippableFrame(16);
    file += compress(dir, testsupport::textBytes(150000, 9), true);
    const QString path = dir + QStringLiteral("/mixed.zst");
    testsupport::writeFile(path, file);
    return path;
}

// One frame streamed from stdin: no declared size, not splittable.
inline QString writeStreamFrame(const QString& dir)
{
    const QString path = dir + QStringLiteral("/stream.zst");
    testsupport::writeFile(path, compress(dir, testsupport::textBytes(400000, 11), true));
    return path;
}

} // namespace fixtures
