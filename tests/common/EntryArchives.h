// Archives made the way @actions/cache makes them, by the stock tools
// (`tar --posix -cf - | zstd -T0 --long=30`, `zstd -T0` for
// zstd-without-long, gzip for old clients), and a server data dir holding
// them as entries: merged (the server's end state), or as 1 MiB parts
// written in reverse order (unmerged). Rows go in with SQLite's C API in the
// server's v9 tables, files with plain writes, so the reader is checked
// against independent writers. RemoteDeployment.h loads the same data dir
// into PostgreSQL + S3.
#pragma once
#include "common/RemoteDeployment.h"
#include "common/TestSupport.h"

#include "core/actions-cache/ActionsCache.h"

#include <QDir>
#include <QString>

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace testsupport {

// A tree with every kind of member the issue names. Paths are bytes (one
// name is not UTF-8), so they are made with POSIX calls, not QDir.
struct TreeFile {
    std::string path;   // relative to the tree's parent, e.g. "tree/a b/c"
    QByteArray bytes;
};

inline void mkdirs(const std::string& path)
{
    std::string at;
    for (size_t i = 0; i <= path.size(); ++i)
        if (i == path.size() || path[i] == '/') {
            at = path.substr(0, i);
            if (!at.empty())
                ::mkdir(at.c_str(), 0755);
        }
}

inline void writeBytes(const std::string& path, const QByteArray& bytes)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::write(fd, bytes.constData(), size_t(bytes.size())) != bytes.size())
        qFatal("cannot write %s", path.c_str());
    ::close(fd);
}

// Builds PARENT/tree. version 2 changes, adds and removes members (for a diff).
inline std::vector<TreeFile> makeTree(const QString& parent, int version = 1)
{
    const std::string root = parent.toStdString() + "/tree";
    std::vector<TreeFile> files;
    const auto add = [&](const std::string& rel, const QByteArray& bytes) {
        const std::string full = root + "/" + rel;
        mkdirs(full.substr(0, full.rfind('/')));
        writeBytes(full, bytes);
        files.push_back({"tree/" + rel, bytes});
    };
    add("src/main.c", textBytes(40000, 1));
    add("src/lib/util.c", textBytes(version == 1 ? 120000 : 130000, 2));
    add("src/lib/data.bin", randomBytes(2500000, 3));
    add("empty.txt", QByteArray());
    add("name with spaces.txt", textBytes(1234, 4));
    add("line\nbreak.txt", textBytes(77, 5));
    add(std::string("latin1-\xe9t\xe9.txt"), textBytes(500, 6));
    add("deep/" + std::string(60, 'a') + "/" + std::string(60, 'b') + "/" + std::string(60, 'c') + "/long-name-" +
            std::string(40, 'd') + ".txt",
        textBytes(999, 7));
    if (version == 1)
        add("old/gone.txt", textBytes(5000, 8));
    else
        add("new/added.bin", randomBytes(70000, 9));
    ::mkdir((root + "/empty-dir").c_str(), 0755);
    if (::symlink("src/main.c", (root + "/link-to-main").c_str()) != 0)
        qFatal("symlink");
    if (::link((root + "/src/main.c").c_str(), (root + "/hard-main.c").c_str()) != 0)
        qFatal("link");
    ::chmod((root + "/src/main.c").c_str(), version == 1 ? 0644 : 0755);
    return files;
}

// `tar --posix -cf - -C PARENT tree`: GNU tar names each pax header after
// its process id, so a test makes the tar once and compresses those bytes.
inline QByteArray makeTar(const QString& parent, const QString& what = "tree")
{
    const ProcessResult r = run("tar", {"--posix", "-cf", "-", "-C", parent, what});
    if (r.exitCode != 0)
        qFatal("tar failed: %s", r.err.constData());
    return r.out;
}

// The tar piped through `filter` ("zstd -T0 --long=30", "zstd -T0", "gzip").
inline QByteArray compress(const QByteArray& tar, const QString& filter)
{
    const ProcessResult r = run("sh", {"-c", filter}, tar);
    if (r.exitCode != 0)
        qFatal("%s failed: %s", qPrintable(filter), r.err.constData());
    return r.out;
}

// Removes a tree holding names that are not UTF-8 (QDir cannot name them).
inline void removeTree(const QString& path)
{
    run("rm", {"-rf", path});
}

struct DataDirEntry {
    QString id, key, folder;
    bool merged = false;
    int parts = 0;
};

// A server data dir: DIR/sqlite.db and DIR/storage/filesystem/<folder>.
class EntryDataDir {
public:
    explicit EntryDataDir(const QString& dir) : dir_(dir)
    {
        QDir().mkpath(storage());
        sqlite3* db = nullptr;
        if (sqlite3_open(dbPath().toUtf8().constData(), &db) != SQLITE_OK)
            qFatal("cannot create %s", qPrintable(dbPath()));
        exec(db, kPgSchema);
        sqlite3_close(db);
    }
    QString dataDir() const { return dir_; }
    QString dbPath() const { return dir_ + "/sqlite.db"; }
    QString storage() const { return dir_ + "/storage/filesystem"; }

    // The blob as one merged object, or as partSize parts written last first.
    DataDirEntry add(const QString& key, const QByteArray& blob, bool merged, qsizetype partSize = 1 << 20)
    {
        DataDirEntry e;
        const int n = ++count_;
        e.folder = QString::number(2000 + n);
        e.id = QString("5f0c%1-aaaa-4bbb-8ccc-%2").arg(n, 4, 10, QChar('0')).arg(n, 12, 10, QChar('0'));
        e.key = key;
        e.merged = merged;
        const QString folder = storage() + "/" + e.folder;
        QDir().mkpath(folder);
        if (merged) {
            // The server keeps the part count of a merged location; its
            // parts are deleted after the merge.
            writeFile(folder + "/merged", blob);
            e.parts = int(std::max<qsizetype>(1, (blob.size() + partSize - 1) / partSize));
        } else {
            QDir().mkpath(folder + "/parts");
            e.parts = int(std::max<qsizetype>(1, (blob.size() + partSize - 1) / partSize));
            for (int i = e.parts - 1; i >= 0; --i)
                writeFile(folder + "/parts/" + QString::number(i), blob.mid(i * partSize, partSize));
        }
        const std::string t = std::to_string(1700000000000LL + n * 1000);
        const std::string location = "loc-" + e.folder.toStdString();
        sqlite3* db = nullptr;
        sqlite3_open(dbPath().toUtf8().constData(), &db);
        exec(db, "INSERT INTO storage_locations VALUES ('" + location + "', '" + e.folder.toStdString() + "', " +
                     std::to_string(e.parts) + ", " + (merged ? t : "NULL") + ", " + (merged ? t : "NULL") + ", " +
                     (merged ? t : "NULL") + ", NULL)");
        exec(db, "INSERT INTO cache_entries (id, key, version, updatedAt, locationId, scope, repoId) VALUES ('" +
                     e.id.toStdString() + "', '" + key.toStdString() + "', 'v1', " + t + ", '" + location +
                     "', 'refs/heads/main', '1')");
        sqlite3_close(db);
        entries_.push_back(e);
        return e;
    }
    const std::vector<DataDirEntry>& entries() const { return entries_; }

private:
    static void exec(sqlite3* db, const std::string& sql)
    {
        char* err = nullptr;
        if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK)
            qFatal("fixture SQL failed: %s in %s", err ? err : "?", sql.c_str());
    }
    QString dir_;
    int count_ = 0;
    std::vector<DataDirEntry> entries_;
};

// The entry with that server id; a test that names a missing one stops.
inline cs::actions::ActionsEntry entryWithId(cs::actions::ActionsCache& cache, const QString& id)
{
    for (auto& e : cache.entries())
        if (e.id == id.toStdString())
            return e;
    qFatal("no entry %s", qPrintable(id));
}

} // namespace testsupport
