#pragma once
// Targets the output tests write to: a node with /dev/null's device numbers
// made under the test's own temp folder (never the machine's /dev/null), a
// FIFO read on a thread, and what a folder holds afterwards.

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>
#include <QStringList>

#include <sys/stat.h>
#include <unistd.h>

#include <thread>

namespace testsupport {

inline struct stat lstatOf(const QString& path)
{
    struct stat st {};
    ::lstat(path.toLocal8Bit().constData(), &st);
    return st;
}

// A character device with the numbers of /dev/null (writes vanish).
inline bool makeNullDevice(const QString& path)
{
    struct stat null {};
    if (::stat("/dev/null", &null) != 0)
        return false;
    return ::mknod(path.toLocal8Bit().constData(), S_IFCHR | 0666, null.st_rdev) == 0;
}

// Every name in a folder, hidden ones included, sorted.
inline QStringList namesIn(const QString& dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

// Reads a FIFO to its end on a thread while the program under test writes it.
struct FifoReader {
    QByteArray data;
    std::thread thread;
    explicit FifoReader(const QString& path)
        : thread([this, path] {
              QFile f(path);
              if (f.open(QIODevice::ReadOnly))
                  data = f.readAll();
          })
    {
    }
    QByteArray take()
    {
        thread.join();
        return data;
    }
};

} // namespace testsupport
