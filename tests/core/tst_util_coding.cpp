// The little-endian codec (core/util/Coding.h) against byte strings written
// out by hand, at every misalignment of a buffer, and the three write paths
// (read, write into a buffer, append to a string) against each other.
#include "core/util/Coding.h"

#include <QTest>

#include <cstdint>
#include <string>

class TestCoding : public QObject {
    Q_OBJECT
private slots:
    void readsHandWrittenBytesAtEveryAlignment()
    {
        const uint8_t bytes[] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF};
        for (size_t shift = 0; shift < 8; ++shift) {
            uint8_t buf[16] = {};
            std::memcpy(buf + shift, bytes, sizeof bytes);
            const uint8_t* p = buf + shift;
            QCOMPARE(cs::readLE16(p), uint16_t(0x2301));
            QCOMPARE(cs::readLE24(p), uint32_t(0x452301));
            QCOMPARE(cs::readLE32(p), uint32_t(0x67452301));
            QCOMPARE(cs::readLE64(p), uint64_t(0xEFCDAB8967452301ull));
        }
        // A zstd frame's magic as it stands in every .zst file.
        const uint8_t magic[] = {0x28, 0xB5, 0x2F, 0xFD};
        QCOMPARE(cs::readLE32(magic), 0xFD2FB528u);
    }

    void writesAndAppendsTheSameBytes()
    {
        std::string s;
        cs::appendLE16(s, 0xBEEF);
        cs::appendLE32(s, 0x184D2A5Cu);
        cs::appendLE64(s, 0x0102030405060708ull);
        const std::string expected("\xEF\xBE" "\x5C\x2A\x4D\x18" "\x08\x07\x06\x05\x04\x03\x02\x01", 14);
        QCOMPARE(s, expected);

        char buf[15] = {};
        cs::writeLE16(buf + 1, 0xBEEF);
        cs::writeLE32(buf + 3, 0x184D2A5Cu);
        cs::writeLE64(buf + 7, 0x0102030405060708ull);
        QCOMPARE(std::string(buf + 1, 14), expected);
        QCOMPARE(buf[0], char(0));
    }

    void roundTripsTheExtremes()
    {
        for (const uint64_t v : {uint64_t(0), uint64_t(1), uint64_t(0x80), ~uint64_t(0), uint64_t(1) << 63}) {
            uint8_t b[8];
            cs::writeLE64(b, v);
            QCOMPARE(cs::readLE64(b), v);
            cs::writeLE32(b, uint32_t(v));
            QCOMPARE(cs::readLE32(b), uint32_t(v));
        }
    }
};

QTEST_APPLESS_MAIN(TestCoding)
#include "tst_util_coding.moc"
