// Runs a program as a child with stdout to a file and reports its exit code
// and its own peak resident set. The child is started by cachescope_peak_rss
// (tests/tools/peak_rss.cpp), a small program: forked straight from the test,
// the child's ru_maxrss would carry the test process's high-water mark over
// fork and exec (a test that once held 300 MiB read 300 MiB for every child).
// Used by the memory-bound regression tests.
#pragma once
#include <QProcess>
#include <QString>
#include <QStringList>

namespace testsupport {

struct ChildRun {
    int exitCode = -1;     // -1 when it did not exit normally (signal) or could not start
    long maxRssKiB = 0;    // the child's own peak RSS
};

inline ChildRun runMeasured(const QString& program, const QStringList& args, const QString& stdoutPath)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    p.start(QStringLiteral(CACHESCOPE_PEAK_RSS), QStringList{stdoutPath, program} + args);
    ChildRun r;
    if (!p.waitForFinished(-1) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return r;
    const QList<QByteArray> words = p.readAllStandardOutput().trimmed().split(' ');
    if (words.size() != 2)
        return r;
    r.exitCode = words[0].toInt();
    r.maxRssKiB = words[1].toLong();
    return r;
}

} // namespace testsupport
