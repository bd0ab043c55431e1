// A small tmpfs mounted under a temp folder for a test (root only), unmounted
// when destroyed: a full disk without touching the machine's own.
#pragma once

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace testsupport {

// A small tmpfs under a temp folder, unmounted when destroyed.
struct SmallDisk {
    QTemporaryDir tmp;
    QString path = tmp.filePath("mnt");
    bool mounted = false;
    std::string error;
    explicit SmallDisk(const char* size)
    {
        QDir().mkpath(path);
        const std::string opts = std::string("size=") + size;
        if (::mount("tmpfs", path.toUtf8().constData(), "tmpfs", 0, opts.c_str()) == 0)
            mounted = true;
        else
            error = std::string("mount -t tmpfs failed: ") + std::strerror(errno);
    }
    ~SmallDisk()
    {
        if (mounted)
            ::umount2(path.toUtf8().constData(), MNT_DETACH);
    }
    // Fills the disk: writes until ENOSPC.
    void fill()
    {
        QFile f(path + "/filler");
        f.open(QIODevice::WriteOnly);
        const QByteArray block(4096, 'f');
        while (f.write(block) == block.size() && f.flush()) {
        }
    }
};

} // namespace testsupport
