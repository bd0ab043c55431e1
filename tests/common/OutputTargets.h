#pragma once
// Targets the output tests write to, and the sources input tests read from:
// a node with /dev/null's device numbers made under the test's own temp
// folder (never the machine's /dev/null), a FIFO read on a thread, a FIFO
// written on a thread, and what a folder holds afterwards.

#include <QByteArray>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QString>
#include <QStringList>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
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

// Writes data (or the file at sourcePath, 1 MiB at a time, so this process
// does not hold it) into a FIFO once a reader has it open; gives up after
// 60 s without a reader (the test then fails on the CLI's result, never
// hangs). Keeps the FIFO open `holdMs` after the data when asked (a stream
// that pauses).
class FifoWriter {
public:
    FifoWriter(const QString& fifo, QByteArray data, int holdMs = 0, QString sourcePath = {})
        : thread_([this, path = fifo.toStdString(), data = std::move(data), holdMs, sourcePath] {
              int fd = -1;
              QElapsedTimer t;
              t.start();
              while (fd < 0 && t.elapsed() < 60000 && !stop_) {
                  fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
                  if (fd < 0)
                      std::this_thread::sleep_for(std::chrono::milliseconds(10));
              }
              if (fd < 0)
                  return;
              ::fcntl(fd, F_SETFL, 0);
              auto send = [&](const char* p, qsizetype size) {
                  for (qsizetype done = 0; done < size;) {
                      const ssize_t n = ::write(fd, p + done, size_t(size - done));
                      if (n <= 0)
                          return false;
                      done += n;
                      written_ += n;
                  }
                  return true;
              };
              if (sourcePath.isEmpty()) {
                  send(data.constData(), data.size());
              } else {
                  QFile in(sourcePath);
                  if (in.open(QIODevice::ReadOnly))
                      for (QByteArray block = in.read(1 << 20); !block.isEmpty() && send(block.constData(), block.size());
                           block = in.read(1 << 20)) {
                      }
              }
              QElapsedTimer held;
              held.start();
              while (!stop_ && held.elapsed() < holdMs)
                  std::this_thread::sleep_for(std::chrono::milliseconds(10));
              ::close(fd);
          })
    {
    }
    ~FifoWriter()
    {
        stop_ = true;
        thread_.join();
    }
    qsizetype written() const { return written_; }

private:
    std::atomic<bool> stop_{false};
    std::atomic<qsizetype> written_{0};
    std::thread thread_;
};

// Runs fn on a thread and waits up to 30 s for it. If it is still running
// (an open or read of the FIFO that blocks: the bug the caller guards
// against), opens the FIFO at both ends for a moment, every 50 ms until fn
// returns, which ends each wait on it, so the test fails instead of hanging.
// true when fn finished on its own.
template <typename Fn> bool finishesOrUnblock(const QString& fifo, Fn fn)
{
    auto done = std::async(std::launch::async, fn);
    if (done.wait_for(std::chrono::seconds(30)) == std::future_status::ready) {
        done.get();
        return true;
    }
    do {
        const int fd = ::open(fifo.toLocal8Bit().constData(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0)
            ::close(fd);
    } while (done.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready);
    return false;
}

} // namespace testsupport
