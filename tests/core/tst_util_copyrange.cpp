// copyRange (core/util/CopyRange.h): a byte range of one file lands at a
// position of another, byte for byte, inside the kernel or through pread +
// pwrite, also between two file systems (copy_file_range refuses with EXDEV
// there, so the fallback runs); a source that ends early and a full disk are
// errors naming the file.
#include "common/TestSupport.h"
#include "common/SmallDisk.h"

#include "core/util/CopyRange.h"
#include "core/util/File.h"

#include <QTemporaryDir>

using namespace cs;
using testsupport::SmallDisk;

namespace {

// Copies [from, from + size) of src's bytes into a new file at `at` (after
// `at` bytes of 'x') and returns the result.
QByteArray copied(const QString& srcPath, const QString& dstPath, uint64_t from, uint64_t size, uint64_t at,
                  CopyWith with)
{
    File src = File::openRead(srcPath.toStdString());
    File dst = File::create(dstPath.toStdString());
    const QByteArray lead(qsizetype(at), 'x');
    dst.writeAt(lead.constData(), size_t(at), 0);
    copyRange(src, from, dst, at, size, with);
    dst.sync();
    dst.close();
    QFile f(dstPath);
    f.open(QIODevice::ReadOnly);
    return f.readAll();
}

} // namespace

class TestCopyRange : public QObject {
    Q_OBJECT
private slots:
    void copiesTheRangeExactly_data()
    {
        QTest::addColumn<int>("with");
        QTest::addColumn<qulonglong>("from");
        QTest::addColumn<qulonglong>("size");
        QTest::addColumn<qulonglong>("at");
        QTest::newRow("kernel, unaligned, past 1 MiB") << int(CopyWith::Kernel) << 12345ull << 3000001ull << 777ull;
        QTest::newRow("read/write, unaligned, past 1 MiB") << int(CopyWith::ReadWrite) << 12345ull << 3000001ull << 777ull;
        QTest::newRow("kernel, one byte") << int(CopyWith::Kernel) << 4095ull << 1ull << 0ull;
        QTest::newRow("kernel, nothing") << int(CopyWith::Kernel) << 10ull << 0ull << 5ull;
        QTest::newRow("kernel, to the source's last byte") << int(CopyWith::Kernel) << 4000000ull << 194304ull << 4096ull;
    }
    void copiesTheRangeExactly()
    {
        QFETCH(int, with);
        QFETCH(qulonglong, from);
        QFETCH(qulonglong, size);
        QFETCH(qulonglong, at);
        QTemporaryDir dir;
        const QByteArray data = testsupport::randomBytes(4194304, 11);
        QVERIFY(testsupport::writeFile(dir.filePath("src"), data));
        const QByteArray out = copied(dir.filePath("src"), dir.filePath("dst"), from, size, at, CopyWith(with));
        QCOMPARE(out.size(), qsizetype(at + size));
        QCOMPARE(out.left(qsizetype(at)), QByteArray(qsizetype(at), 'x'));
        QVERIFY(out.mid(qsizetype(at)) == data.mid(qsizetype(from), qsizetype(size)));
    }

    // A separate tmpfs: copy_file_range answers EXDEV, the rest is read and written.
    void copiesBetweenFileSystems()
    {
        SmallDisk disk("16m");
        QVERIFY2(disk.mounted, disk.error.c_str());
        QTemporaryDir dir;
        const QByteArray data = testsupport::randomBytes(3 << 20, 12);
        QVERIFY(testsupport::writeFile(dir.filePath("src"), data));
        const QByteArray out = copied(dir.filePath("src"), disk.path + "/dst", 100, data.size() - 200, 3, CopyWith::Kernel);
        QCOMPARE(out.size(), data.size() - 200 + 3);
        QVERIFY(out.mid(3) == data.mid(100, data.size() - 200));
    }

    void sourceEndingEarlyIsAnError()
    {
        QTemporaryDir dir;
        QVERIFY(testsupport::writeFile(dir.filePath("src"), testsupport::randomBytes(5000, 13)));
        for (const CopyWith with : {CopyWith::Kernel, CopyWith::ReadWrite}) {
            File src = File::openRead(dir.filePath("src").toStdString());
            File dst = File::create(dir.filePath("dst").toStdString());
            try {
                copyRange(src, 4000, dst, 0, 2000, with);
                QFAIL("copying past the source's end did not fail");
            } catch (const Error& e) {
                const QString what = e.what();
                QVERIFY2(what.contains(dir.filePath("src")) && what.contains("5000"), e.what());
            }
        }
    }

    void fullDiskIsAnError()
    {
        SmallDisk disk("1m");
        QVERIFY2(disk.mounted, disk.error.c_str());
        QTemporaryDir dir;
        QVERIFY(testsupport::writeFile(dir.filePath("src"), testsupport::randomBytes(2 << 20, 14)));
        QVERIFY(testsupport::writeFile(disk.path + "/src", testsupport::randomBytes(256 << 10, 15)));
        disk.fill();
        // From the same file system (copy_file_range itself fails) and from another (the fallback's pwrite).
        for (const QString& from : {disk.path + "/src", dir.filePath("src")}) {
            File src = File::openRead(from.toStdString());
            File dst = File::create((disk.path + "/dst").toStdString());
            try {
                copyRange(src, 0, dst, 0, 256 << 10, CopyWith::Kernel);
                QFAIL("copying onto a full disk did not fail");
            } catch (const Error& e) {
                QVERIFY2(QString(e.what()).contains(disk.path + "/dst"), e.what());
            }
        }
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestCopyRange)
#include "tst_util_copyrange.moc"
