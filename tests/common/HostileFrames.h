// Files of millions of tiny frames, made at test time: the hostile inputs of
// the memory-bound tests (issue 22). An empty skippable frame is 8 bytes
// (magic 0x184D2A50..5F, payload size 0), so 10 M of them are 80 MB; stock
// zstd skips them (`zstd -t` passes when a zstd frame follows).
#pragma once
#include "common/TestSupport.h"

#include <QByteArray>
#include <QFile>
#include <QString>

namespace testsupport {

// Writes n empty skippable frames (magic 0x184D2A53), then tail (say a zstd
// frame written by stock zstd). False when the file cannot be written.
inline bool writeEmptySkippableFrames(const QString& path, qint64 n, const QByteArray& tail = {})
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    const QByteArray frame("\x53\x2a\x4d\x18\0\0\0\0", 8);
    const qint64 perChunk = 1 << 17;   // 1 MiB of frames per write
    const QByteArray chunk = frame.repeated(perChunk);
    for (qint64 left = n; left > 0; left -= perChunk) {
        const qint64 count = std::min(left, perChunk);
        if (f.write(chunk.constData(), count * 8) != count * 8)
            return false;
    }
    return f.write(tail) == tail.size() && f.flush();
}

// n empty skippable frames and an empty zstd frame written by stock zstd, in
// dir; the path, or empty when it cannot be made.
inline QString hostileFramesFile(const QString& dir, qint64 n)
{
    const QString f = dir + QStringLiteral("/skip-%1.zst").arg(n);
    if (QFile::exists(f))
        return f;
    const auto z = zstd({QStringLiteral("-q"), QStringLiteral("-c")}, QByteArray(""));
    if (z.exitCode != 0 || !writeEmptySkippableFrames(f, n, z.out))
        return {};
    return f;
}

} // namespace testsupport
