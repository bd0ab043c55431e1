// XXH64 against someone else's writer: stock zstd's frame checksum (`zstd
// --check`) is the low 32 bits of XXH64 of the frame's content, seed 0; and
// the published value of the empty input. The streaming hash equals the
// one-shot hash for every slicing (pieces across the 32-byte stripes).
#include "common/TestSupport.h"
#include "core/util/Xxh64.h"

#include <QTest>

#include <algorithm>
#include <cstdint>
#include <cstring>

class TestXxh64 : public QObject {
    Q_OBJECT
private slots:
    void emptyInputIsThePublishedValue()
    {
        QCOMPARE(cs::Xxh64::of("", 0), uint64_t(0xEF46DB3751D8E999ULL));
        QCOMPARE(cs::Xxh64().digest(), uint64_t(0xEF46DB3751D8E999ULL));
    }

    void lowHalfIsZstdsFrameChecksum_data()
    {
        QTest::addColumn<int>("size");
        for (int n : {1, 3, 4, 7, 8, 31, 32, 33, 63, 64, 65, 100, 4096, 1 << 20, (1 << 20) + 13})
            QTest::newRow(qPrintable(QString::number(n))) << n;
    }
    void lowHalfIsZstdsFrameChecksum()
    {
        QFETCH(int, size);
        const QByteArray data = testsupport::randomBytes(size, uint64_t(size) + 7);
        const auto z = testsupport::zstd({"-q", "-c", "--check", "-1"}, data);
        QCOMPARE(z.exitCode, 0);
        QVERIFY(z.out.size() >= 4);
        uint32_t stored = 0;
        std::memcpy(&stored, z.out.constData() + z.out.size() - 4, 4);   // the frame's last 4 bytes, little-endian
        QCOMPARE(uint32_t(cs::Xxh64::of(data.constData(), size_t(data.size()))), stored);
    }

    void anySlicingGivesTheSameHash()
    {
        const QByteArray data = testsupport::randomBytes(100003, 11);
        const uint64_t whole = cs::Xxh64::of(data.constData(), size_t(data.size()));
        for (size_t piece : {size_t(1), size_t(5), size_t(31), size_t(32), size_t(33), size_t(1000), size_t(65536)}) {
            cs::Xxh64 h;
            for (size_t at = 0; at < size_t(data.size()); at += piece)
                h.update(data.constData() + at, std::min(piece, size_t(data.size()) - at));
            QCOMPARE(h.digest(), whole);
        }
        cs::Xxh64 h;
        h.update(data.constData(), 10);
        h.reset();
        h.update(data.constData(), size_t(data.size()));
        QCOMPARE(h.digest(), whole);
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestXxh64)
#include "tst_util_xxh64.moc"
