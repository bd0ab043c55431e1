// Helpers for the store tests: upload bytes as parts written in shuffled
// order from several threads (like a build tool), restore into memory, and
// an independent SHA-256 (QCryptographicHash, not our OpenSSL wrapper).
#pragma once
#include "common/TestSupport.h"
#include "core/jobs/Job.h"
#include "core/store/Store.h"
#include "core/util/Error.h"

#include <QByteArray>
#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QString>

#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

// Like QVERIFY_THROWS_EXCEPTION, for our exception types.
#define STORE_VERIFY_THROWS(Type, ...)                                              \
    do {                                                                            \
        bool thrown_ = false;                                                       \
        try {                                                                       \
            __VA_ARGS__;                                                            \
        } catch (const Type&) {                                                     \
            thrown_ = true;                                                         \
        }                                                                           \
        QVERIFY2(thrown_, #__VA_ARGS__ " did not throw " #Type);                    \
    } while (false)

namespace storetest {

inline cs::store::RestoreRequest request(const std::string& key, std::vector<std::string> restoreKeys = {},
                                         const std::string& version = {}, const std::string& scope = {})
{
    cs::store::RestoreRequest r;
    r.key = key;
    r.restoreKeys = std::move(restoreKeys);
    r.version = version;
    r.scope = scope;
    return r;
}

// The rows of a round-trip test (column "data"): empty, one byte, a part
// less one byte, and `large` bytes random and compressible.
inline void addRoundTripRows(qsizetype large)
{
    const QByteArray mib = QByteArray::number(large >> 20) + " MiB";
    QTest::addColumn<QByteArray>("data");
    QTest::newRow("0 B") << QByteArray();
    QTest::newRow("1 B") << QByteArray("x");
    QTest::newRow("1 MiB - 1") << testsupport::randomBytes((1 << 20) - 1, 7);
    QTest::newRow(mib + " random") << testsupport::randomBytes(large, 8);
    QTest::newRow(mib + " compressible") << testsupport::textBytes(large, 9);
}

inline std::string sha256Hex(const QByteArray& data)
{
    return QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex().toStdString();
}

// Reserves, writes the parts of data (partSize each) in shuffled order from
// `threads` threads, and commits. skipPart >= 0 leaves that part out and
// does not commit (returns the upload id in row.id).
inline cs::store::EntryRow upload(cs::store::Store& store, const std::string& key, const QByteArray& data,
                                  qsizetype partSize = 1 << 20, int threads = 4, const std::string& version = {},
                                  const std::string& scope = {}, int skipPart = -1)
{
    const int64_t id = store.reserve(key, version, scope);
    const uint32_t parts = uint32_t((data.size() + partSize - 1) / partSize);
    std::vector<uint32_t> order(parts);
    for (uint32_t i = 0; i < parts; ++i)
        order[i] = i;
    std::shuffle(order.begin(), order.end(), std::mt19937_64(uint64_t(data.size()) * 31 + key.size()));
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&] {
            for (size_t k = next++; k < order.size(); k = next++) {
                const uint32_t i = order[k];
                if (int(i) == skipPart)
                    continue;
                const qsizetype off = qsizetype(i) * partSize;
                store.writePart(id, i, data.constData() + off, size_t(std::min(partSize, data.size() - off)));
            }
        });
    for (auto& t : pool)
        t.join();
    if (skipPart >= 0) {
        cs::store::EntryRow r;
        r.id = id;
        return r;
    }
    return store.commit(id, parts);
}

inline QByteArray restore(cs::store::Store& store, int64_t id, cs::store::RestoreResult* result = nullptr)
{
    QByteArray out;
    cs::Job job;
    job.start();
    auto r = store.restoreEntry(id, [&](const void* p, size_t n) { out.append(static_cast<const char*>(p), qsizetype(n)); },
                                job);
    if (result)
        *result = r;
    return out;
}

// Bytes of every file in a store's pack folder: a failed merge must leave
// it as it was.
inline qint64 packBytes(const QString& storeDir)
{
    qint64 n = 0;
    for (const QFileInfo& f : QDir(storeDir + QStringLiteral("/pack")).entryInfoList(QDir::Files))
        n += f.size();
    return n;
}

// name -> SHA-256 of every file in a store's pack folder but the lock
// files: what a refused GC must leave as it was.
inline std::map<QString, std::string> packFiles(const QString& storeDir)
{
    std::map<QString, std::string> files;
    QDir d(storeDir + QStringLiteral("/pack"));
    for (const auto& name : d.entryList(QDir::Files | QDir::NoDotAndDotDot))
        if (!name.endsWith(QStringLiteral(".lock")))
            files[name] = testsupport::sha256OfFile(d.filePath(name));
    return files;
}

// Runs one SQL statement on the store's catalog through its own connection
// (as another process would).
inline bool sql(const std::string& catalogPath, const std::string& statement)
{
    sqlite3* db = nullptr;
    if (sqlite3_open(catalogPath.c_str(), &db) != SQLITE_OK)
        return false;
    sqlite3_busy_timeout(db, 30000);
    const bool ok = sqlite3_exec(db, statement.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

inline int64_t sqlInt(const std::string& catalogPath, const std::string& query)
{
    sqlite3* db = nullptr;
    int64_t v = -1;
    if (sqlite3_open(catalogPath.c_str(), &db) != SQLITE_OK)
        return v;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, query.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

inline cs::store::EntryFilter keyContains(const std::string& v) { cs::store::EntryFilter f; f.keyContains = v; return f; }
inline cs::store::EntryFilter keyPrefix(const std::string& v) { cs::store::EntryFilter f; f.keyPrefix = v; return f; }
inline cs::store::EntryFilter inState(cs::store::EntryState v) { cs::store::EntryFilter f; f.state = v; return f; }
inline cs::store::EntryFilter inScope(const std::string& v) { cs::store::EntryFilter f; f.scope = v; return f; }

} // namespace storetest
