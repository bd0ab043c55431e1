// tests/common/ChildRss.h measures a child's own peak RSS. Before, it read
// wait4's ru_maxrss of a child forked from the test, which Linux carries
// over fork and exec from the test process's high-water mark: a test that
// had held 256 MiB read at least 256 MiB for every child, and a memory
// bound comparing two children compared two copies of the test's figure.
// The child here is this program itself in a mode that touches N MiB.
#include "common/ChildRss.h"

#include <QCoreApplication>
#include <QTemporaryDir>
#include <QTest>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

// Keeps N MiB resident until the process ends.
void holdMiB(std::vector<char>& block, size_t mib)
{
    // assign, not memset: an empty vector's data() may be null, and
    // memset(nullptr, 1, 0) is undefined (UBSan under the asan preset).
    block.assign(mib << 20, 1);
}

// Under ASan (the asan preset) each byte the child touches also touches its
// shadow, one byte per 8: the child's own peak holds that eighth as well.
// GCC 12's ThreadSanitizer (the tsan preset) keeps 4 shadow bytes per byte
// touched: the child holding 160 MiB peaked at 816 MiB.
#if defined(__SANITIZE_ADDRESS__)
constexpr long kShadowKiBOf160MiB = 160 * 1024 / 8;
#elif defined(__SANITIZE_THREAD__)
constexpr long kShadowKiBOf160MiB = 160 * 1024 * 4;
#else
constexpr long kShadowKiBOf160MiB = 0;
#endif

} // namespace

class TestUtilChildRss : public QObject {
    Q_OBJECT
private slots:
    void childPeakIsTheChildsOwnNotTheTests()
    {
        QTemporaryDir tmp;
        const QString self = QCoreApplication::applicationFilePath();
        const auto small = testsupport::runMeasured(self, {"--hold-mib", "0"}, tmp.filePath("out"));
        QCOMPARE(small.exitCode, 0);
        std::vector<char> held;
        holdMiB(held, 256);   // the test's own high-water mark: at least 256 MiB
        const auto smallAgain = testsupport::runMeasured(self, {"--hold-mib", "0"}, tmp.filePath("out"));
        const auto big = testsupport::runMeasured(self, {"--hold-mib", "160"}, tmp.filePath("out"));
        qInfo("child peak RSS: idle %ld KiB, idle while the test holds 256 MiB %ld KiB, holding 160 MiB %ld KiB",
              small.maxRssKiB, smallAgain.maxRssKiB, big.maxRssKiB);
        QCOMPARE(smallAgain.exitCode, 0);
        QCOMPARE(big.exitCode, 0);
        QVERIFY2(smallAgain.maxRssKiB < 128 * 1024, "the child's peak carries the test's 256 MiB");
        QVERIFY2(smallAgain.maxRssKiB < small.maxRssKiB + 16 * 1024, "the test's memory moved the child's peak");
        // And what the child itself touches is counted.
        QVERIFY(big.maxRssKiB >= 160 * 1024);
        QVERIFY(big.maxRssKiB < 160 * 1024 + kShadowKiBOf160MiB + small.maxRssKiB + 16 * 1024);
        QVERIFY(held[12345] == 1);
    }
};

int main(int argc, char** argv)
{
    if (argc == 3 && std::strcmp(argv[1], "--hold-mib") == 0) {
        std::vector<char> block;
        holdMiB(block, size_t(std::atoi(argv[2])));
        return block.empty() || block.back() == 1 ? 0 : 1;
    }
    QCoreApplication app(argc, argv);
    TestUtilChildRss tc;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&tc, argc, argv);
}

#include "tst_util_child_rss.moc"
