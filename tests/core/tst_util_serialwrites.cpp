// SerialWrites: pieces offered by several threads all land at their
// positions, never two writes at once, drain() returns only once the owner's
// pieces are written, and a failed write reaches every thread.
#include "core/util/SerialWrites.h"

#include <QtTest>

#include <atomic>
#include <stdexcept>
#include <thread>

using cs::SerialWrites;

class TestSerialWrites : public QObject {
    Q_OBJECT
private slots:
    void everyPieceLandsOneWriteAtATime();
    void doneCallbackPerOwner();
    void failedWriteReachesEveryThread();
};

void TestSerialWrites::everyPieceLandsOneWriteAtATime()
{
    constexpr size_t kThreads = 4, kPieces = 400, kPiece = 1024;
    std::vector<char> target(kThreads * kPieces * kPiece, 0);
    std::atomic<int> inFlight{0};
    std::atomic<int> overlaps{0};
    std::atomic<size_t> writes{0};
    SerialWrites w(kThreads, [&](const char* data, size_t size, uint64_t at) {
        if (inFlight.fetch_add(1) != 0)
            ++overlaps;
        std::this_thread::yield();   // widen the window for a second writer
        std::memcpy(target.data() + at, data, size);
        ++writes;
        inFlight.fetch_sub(1);
    });
    std::atomic<int> unwrittenAfterDrain{0};
    std::vector<std::thread> threads;
    for (size_t t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            // Each thread's buffer of pieces stays valid until drain() returns.
            std::vector<char> mine(kPieces * kPiece);
            for (size_t p = 0; p < kPieces; ++p) {
                // piece p of thread t goes to slot p * kThreads + t: interleaved
                char* piece = mine.data() + p * kPiece;
                std::memset(piece, char('a' + t), kPiece);
                piece[0] = char(p & 0x7f);
                w.offer(t, piece, kPiece, uint64_t(p * kThreads + t) * kPiece);
            }
            w.drain(t);
            for (size_t p = 0; p < kPieces; ++p)
                if (std::memcmp(target.data() + (p * kThreads + t) * kPiece, mine.data() + p * kPiece, kPiece) != 0)
                    ++unwrittenAfterDrain;
            // After drain the bytes may go: overwrite them (a write still
            // queued would now copy garbage, caught below).
            std::memset(mine.data(), 0, mine.size());
        });
    }
    for (auto& t : threads)
        t.join();
    QCOMPARE(overlaps.load(), 0);
    QCOMPARE(unwrittenAfterDrain.load(), 0);
    QCOMPARE(writes.load(), kThreads * kPieces);
    for (size_t t = 0; t < kThreads; ++t)
        for (size_t p = 0; p < kPieces; ++p) {
            const char* piece = target.data() + (p * kThreads + t) * kPiece;
            QCOMPARE(piece[0], char(p & 0x7f));
            QCOMPARE(piece[kPiece - 1], char('a' + t));
        }
}

void TestSerialWrites::doneCallbackPerOwner()
{
    std::vector<int> doneCalls(3, 0);
    std::string out(30, '.');
    SerialWrites w(
        3, [&](const char* data, size_t size, uint64_t at) { out.replace(size_t(at), size, data, size); },
        [&](size_t owner) { ++doneCalls[owner]; });
    w.offer(0, "aaaaaaaaaa", 10, 0);
    w.offer(2, "cccccccccc", 10, 20);
    w.offer(1, "bbbbbbbbbb", 10, 10);
    QCOMPARE(out, std::string("aaaaaaaaaabbbbbbbbbbcccccccccc"));
    QCOMPARE(doneCalls, (std::vector<int>{1, 1, 1}));
    w.drain(1);   // nothing pending: returns at once
}

void TestSerialWrites::failedWriteReachesEveryThread()
{
    std::vector<int> doneCalls(2, 0);
    SerialWrites w(
        2,
        [&](const char*, size_t, uint64_t at) {
            if (at == 100)
                throw std::runtime_error("out.bin: write failed at offset 100: No space left on device");
        },
        [&](size_t owner) { ++doneCalls[owner]; });
    const char piece[4] = {1, 2, 3, 4};
    w.offer(0, piece, 4, 0);
    QCOMPARE(doneCalls[0], 1);
    bool thrown = false;
    try {
        w.offer(1, piece, 4, 100);
    } catch (const std::runtime_error& e) {
        thrown = true;
        QVERIFY(std::string(e.what()).find("offset 100") != std::string::npos);
    }
    QVERIFY(thrown);
    QCOMPARE(doneCalls[1], 1);   // its dropped piece is reported, nobody waits on it
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, w.offer(0, piece, 4, 8));
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, w.drain(1));
}

QTEST_GUILESS_MAIN(TestSerialWrites)
#include "tst_util_serialwrites.moc"
