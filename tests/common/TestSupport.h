// Shared helpers for the Qt Test suites: headless main, temp folders,
// running the stock zstd tools and our CLI, hashing files.
#pragma once
#include <QCoreApplication>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QtTest>

#include "core/util/Error.h"
#include "core/util/Sha256.h"

#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>
#include <thread>

namespace testsupport {

struct ProcessResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

// Runs a program to completion (10 min limit); stdin from `input` when given.
inline ProcessResult run(const QString& program, const QStringList& args, const QByteArray& input = {},
                         const QString& workDir = {})
{
    QProcess p;
    if (!workDir.isEmpty())
        p.setWorkingDirectory(workDir);
    p.start(program, args);
    if (!p.waitForStarted(30000))
        return {-1, {}, ("could not start " + program).toUtf8()};
    if (!input.isNull()) {
        p.write(input);
    }
    p.closeWriteChannel();
    p.waitForFinished(600000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

inline ProcessResult zstd(const QStringList& args, const QByteArray& input = {})
{
    return run(QStringLiteral(ZSTD_PROGRAM), args, input);
}

inline ProcessResult cli(const QStringList& args, const QByteArray& input = {})
{
    return run(QStringLiteral(CACHESCOPE_CLI), args, input);
}

inline std::string sha256OfFile(const QString& path)
{
    return cs::Sha256::hex(cs::Sha256::ofFile(path.toStdString()));
}

// Deterministic test data: random bytes, or text-like compressible bytes.
inline QByteArray randomBytes(qsizetype size, uint64_t seed)
{
    QByteArray b(size, Qt::Uninitialized);
    std::mt19937_64 rng(seed);
    qsizetype i = 0;
    for (; i + 8 <= size; i += 8) {
        const uint64_t v = rng();
        memcpy(b.data() + i, &v, 8);
    }
    for (; i < size; ++i)
        b[i] = char(rng());
    return b;
}

inline QByteArray textBytes(qsizetype size, uint64_t seed)
{
    static const char* words[] = {"cache", "entry", "part", "merge", "restore", "frame", "zstd", "pack",
                                  "object", "offset", "mapping", "prefix", "suffix", "node", "chunk", "gc"};
    QByteArray b;
    b.reserve(size + 16);
    std::mt19937_64 rng(seed);
    while (b.size() < size) {
        b += words[rng() % 16];
        b += (rng() % 12 == 0) ? '\n' : ' ';
    }
    b.truncate(size);
    return b;
}

inline bool writeFile(const QString& path, const QByteArray& data)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return false;
    return f.write(data) == data.size();
}

inline QByteArray readFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

// The message of the cs::Error that fn throws; empty when it throws none.
inline std::string errorOf(const std::function<void()>& fn)
{
    try {
        fn();
    } catch (const cs::Error& e) {
        return e.what();
    }
    return {};
}

} // namespace testsupport

// QTEST_MAIN that runs headless unless a platform was chosen.
#define CACHESCOPE_TEST_MAIN(TestClass)                                  \
    int main(int argc, char** argv)                                      \
    {                                                                    \
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))              \
            qputenv("QT_QPA_PLATFORM", "offscreen");                     \
        QApplication app(argc, argv);                                    \
        TestClass tc;                                                    \
        QTEST_SET_MAIN_SOURCE_PATH                                       \
        return QTest::qExec(&tc, argc, argv);                            \
    }

#define CACHESCOPE_CORE_TEST_MAIN(TestClass)                             \
    int main(int argc, char** argv)                                      \
    {                                                                    \
        QCoreApplication app(argc, argv);                                \
        TestClass tc;                                                    \
        QTEST_SET_MAIN_SOURCE_PATH                                       \
        return QTest::qExec(&tc, argc, argv);                            \
    }
