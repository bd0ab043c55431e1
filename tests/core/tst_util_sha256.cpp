// SHA-256: the short-message code (core/util/Sha256Compact.cpp) against
// FIPS 180-4's examples, against libcrypto (the incremental Sha256) at every
// length around its block and padding edges, and Sha256::of on both sides of
// the limit against sha256sum.
#include "common/TestSupport.h"

#include "core/util/Sha256.h"
#include "core/util/Sha256Compact.h"

#include <QProcess>
#include <QTest>

#include <random>
#include <string>
#include <vector>

using namespace cs;

class TestUtilSha256 : public QObject {
    Q_OBJECT

    static std::string hexOf(const Digest& d) { return Sha256::hex(d); }

    static std::string libcrypto(const std::vector<uint8_t>& bytes)
    {
        Sha256 h;
        h.update(bytes.data(), bytes.size());
        return hexOf(h.finish());
    }

    static std::vector<uint8_t> randomBytes(size_t n, uint32_t seed)
    {
        std::mt19937 gen(seed);
        std::vector<uint8_t> v(n);
        for (auto& b : v)
            b = uint8_t(gen());
        return v;
    }

private slots:
    void fipsExamples_data()
    {
        QTest::addColumn<QByteArray>("message");
        QTest::addColumn<QByteArray>("digest");
        QTest::newRow("empty") << QByteArray()
                               << QByteArray("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        QTest::newRow("abc") << QByteArray("abc")
                             << QByteArray("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        QTest::newRow("448 bits") << QByteArray("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                                  << QByteArray("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
        QTest::newRow("896 bits")
            << QByteArray("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                          "mnopqrstnopqrstu")
            << QByteArray("cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
        QTest::newRow("million a") << QByteArray(1000000, 'a')
                                   << QByteArray("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    }

    void fipsExamples()
    {
        QFETCH(QByteArray, message);
        QFETCH(QByteArray, digest);
        QCOMPARE(QByteArray::fromStdString(hexOf(compactSha256(message.constData(), size_t(message.size())))),
                 digest);
        QCOMPARE(QByteArray::fromStdString(hexOf(Sha256::of(message.constData(), size_t(message.size())))), digest);
    }

    // Every length through three blocks and past the limit, where the
    // padding takes one block or two, and where a block ends the message.
    void agreesWithLibcryptoAtEveryLength()
    {
        const auto bytes = randomBytes(kCompactSha256Limit + 200, 7);
        for (size_t n = 0; n <= bytes.size(); n += (n < 300 ? 1 : 61)) {
            const std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + std::ptrdiff_t(n));
            const std::string want = libcrypto(prefix);
            QVERIFY2(hexOf(compactSha256(prefix.data(), n)) == want, qPrintable(QString("length %1").arg(n)));
            QVERIFY2(hexOf(Sha256::of(prefix.data(), n)) == want, qPrintable(QString("length %1").arg(n)));
        }
    }

    // An independent program, on both sides of the limit.
    void ofMatchesSha256sum()
    {
        for (size_t n : {size_t(72), kCompactSha256Limit, kCompactSha256Limit + 1, size_t(1) << 20}) {
            const auto bytes = randomBytes(n, uint32_t(n));
            QProcess p;
            p.start("sha256sum", {"-"});
            QVERIFY(p.waitForStarted());
            p.write(reinterpret_cast<const char*>(bytes.data()), qint64(bytes.size()));
            p.closeWriteChannel();
            QVERIFY(p.waitForFinished());
            const QByteArray want = p.readAllStandardOutput().left(64);
            QCOMPARE(QByteArray::fromStdString(hexOf(Sha256::of(bytes.data(), n))), want);
        }
    }
};

QTEST_GUILESS_MAIN(TestUtilSha256)
#include "tst_util_sha256.moc"
