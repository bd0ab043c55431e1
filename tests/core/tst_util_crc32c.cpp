// CRC-32C of parts: the published check values (RFC 3720, B.4, and the
// "123456789" check of the Castagnoli CRC catalogue), and the hardware path
// (three interleaved lanes joined by shift tables) against a bit-at-a-time
// reference written here from the polynomial, over lengths around the lane
// sizes, unaligned starts and inputs fed in pieces.
#include "common/TestSupport.h"
#include "core/util/Crc32c.h"

#include <QTest>

#include <cstdint>
#include <random>

namespace {

// One bit at a time from the reflected polynomial: shares no code or table
// with core/util/Crc32c.cpp.
uint32_t bitwise(uint32_t crc, const uint8_t* p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; ++i) {
        crc ^= p[i];
        for (int k = 0; k < 8; ++k)
            crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
    }
    return ~crc;
}

const uint8_t* bytesOf(const QByteArray& b)
{
    return reinterpret_cast<const uint8_t*>(b.constData());
}

} // namespace

class TestCrc32c : public QObject {
    Q_OBJECT
private slots:
    void publishedCheckValues_data()
    {
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<uint>("crc");
        QByteArray up(32, 0), down(32, 0);
        for (int i = 0; i < 32; ++i) {
            up[i] = char(i);
            down[i] = char(31 - i);
        }
        QTest::newRow("123456789") << QByteArray("123456789") << 0xE3069283u;
        QTest::newRow("32 zeros") << QByteArray(32, 0) << 0x8A9136AAu;
        QTest::newRow("32 x 0xFF") << QByteArray(32, char(0xFF)) << 0x62A8AB43u;
        QTest::newRow("0..31") << up << 0x46DD794Eu;
        QTest::newRow("31..0") << down << 0x113FDB5Cu;
        QTest::newRow("empty") << QByteArray() << 0u;
    }
    void publishedCheckValues()
    {
        QFETCH(QByteArray, data);
        QFETCH(uint, crc);
        QCOMPARE(cs::crc32c(0, data.constData(), size_t(data.size())), crc);
        QCOMPARE(cs::crc32cPortable(0, data.constData(), size_t(data.size())), crc);
    }

    // Lengths on both sides of one and of several three-lane blocks (3 x 256
    // and 3 x 8192 bytes), at every start offset modulo 8.
    void agreesWithTheReference()
    {
        const QByteArray data = testsupport::randomBytes(5 * 3 * 8192 + 100, 7);
        for (const size_t n : {size_t(0), size_t(1), size_t(7), size_t(8), size_t(767), size_t(768), size_t(769),
                               size_t(1536), size_t(3 * 8192 - 1), size_t(3 * 8192), size_t(3 * 8192 + 1),
                               size_t(3 * 8192 + 768), size_t(2 * 3 * 8192 + 3 * 256 + 5), size_t(5 * 3 * 8192)}) {
            for (size_t start = 0; start < 8; ++start) {
                const uint8_t* p = bytesOf(data) + start;
                const uint32_t want = bitwise(0, p, n);
                QCOMPARE(cs::crc32c(0, p, n), want);
                QCOMPARE(cs::crc32cPortable(0, p, n), want);
            }
        }
    }

    // A part is checked as it is read, 1 MiB at a time and in odd pieces.
    void extendsAcrossPieces()
    {
        const QByteArray data = testsupport::randomBytes((qsizetype(1) << 20) + 12345, 11);
        const size_t size = size_t(data.size());
        const uint32_t want = bitwise(0, bytesOf(data), size);
        std::mt19937 rng(3);
        for (int round = 0; round < 20; ++round) {
            uint32_t crc = 0;
            for (size_t pos = 0; pos < size;) {
                const size_t n = std::min<size_t>(size - pos, rng() % 70000);
                crc = cs::crc32c(crc, bytesOf(data) + pos, n);
                pos += n;
            }
            QCOMPARE(crc, want);
        }
    }
};

QTEST_APPLESS_MAIN(TestCrc32c)
#include "tst_util_crc32c.moc"
