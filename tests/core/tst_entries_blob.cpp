// The blob of an entry (merged object, or parts in numeric order) and the
// zstd decoder over it: byte-exact against the archive the stock tools
// wrote, from any offset; the window limit from the memory budget; a
// truncated stream and a window above 2 GiB each one error naming the entry
// and the offset.
#include "common/EntryArchives.h"
#include "common/TestServers.h"
#include "common/TestSupport.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/entries/EntryBlob.h"
#include "core/entries/ReadAheadStream.h"
#include "core/entries/ZstdStream.h"
#include "core/util/Error.h"

#include <atomic>
#include <optional>

using namespace cs;
using namespace cs::entries;

namespace {

QByteArray readAll(ByteStream& in, size_t chunk = 70000)
{
    QByteArray out;
    std::string buf(chunk, '\0');
    while (size_t n = in.read(buf.data(), buf.size()))
        out.append(buf.data(), qsizetype(n));
    return out;
}

// Bytes 0..size-1 (i * 7 mod 251) in reads of odd lengths, with an error
// at failAt (when set) after the bytes before it.
class Numbered final : public ByteStream {
public:
    Numbered(uint64_t size, std::optional<uint64_t> failAt = {}) : size_(size), failAt_(failAt) {}
    size_t read(void* buf, size_t n) override
    {
        if (failAt_ && at_ == *failAt_)
            throw Error("numbered at offset " + std::to_string(at_) + ": the read failed");
        uint64_t end = std::min<uint64_t>(size_, at_ + std::min<size_t>(n, 1 + (at_ * 31) % 300000));
        if (failAt_ && at_ < *failAt_)
            end = std::min(end, *failAt_);
        auto* out = static_cast<unsigned char*>(buf);
        for (uint64_t i = at_; i < end; ++i)
            *out++ = static_cast<unsigned char>(i * 7 % 251);
        const size_t got = size_t(end - at_);
        at_ = end;
        ++reads;
        return got;
    }
    uint64_t offset() const override { return at_; }
    std::atomic<int> reads{0};

private:
    uint64_t size_, at_ = 0;
    std::optional<uint64_t> failAt_;
};

bool numbered(const QByteArray& got, uint64_t from = 0)
{
    for (qsizetype i = 0; i < got.size(); ++i)
        if (static_cast<unsigned char>(got[i]) != (from + uint64_t(i)) * 7 % 251)
            return false;
    return true;
}

void mergedOrParts()
{
    QTest::addColumn<bool>("merged");
    QTest::newRow("merged") << true;
    QTest::newRow("parts in reverse order") << false;
}

} // namespace

class TestEntriesBlob : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QByteArray tar_, long30_, plain_;
    std::unique_ptr<testsupport::EntryDataDir> data_;
    testsupport::DataDirEntry merged_, parts_, truncated_, hugeWindow_;

private slots:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        testsupport::makeTree(dir_.path());
        tar_ = testsupport::makeTar(dir_.path());
        long30_ = testsupport::compress(tar_, "zstd -q -T0 --long=30");
        plain_ = testsupport::compress(tar_, "zstd -q -T0");
        QVERIFY(long30_.size() > 2 * (1 << 20)); // several 1 MiB parts
        data_ = std::make_unique<testsupport::EntryDataDir>(dir_.path() + "/data");
        merged_ = data_->add("merged-key", long30_, true);
        parts_ = data_->add("parts-key", long30_, false);
        QVERIFY(parts_.parts >= 3);
        truncated_ = data_->add("truncated-key", long30_.left(long30_.size() / 2), false);
        // A frame header declaring a 4 GiB window (exponent 22: 2^(10+22)).
        hugeWindow_ = data_->add("huge-window", QByteArray("\x28\xb5\x2f\xfd\x00\xb0\x01\x00\x00", 9), true);
    }

    void cleanupTestCase() { testsupport::removeTree(dir_.path() + "/tree"); }

    void blobIsTheStoredBytesFromAnyOffset_data() { mergedOrParts(); }
    void blobIsTheStoredBytesFromAnyOffset()
    {
        QFETCH(bool, merged);
        auto cache = actions::ActionsCache::open(actions::resolveDataDir(data_->dataDir().toStdString()));
        const auto e = testsupport::entryWithId(*cache, merged ? merged_.id : parts_.id);
        EntryBlob blob(cache->storage(), e);
        QCOMPARE(blob.size(), uint64_t(long30_.size()));
        QCOMPARE(blob.pieces().size(), merged ? size_t(1) : size_t(parts_.parts));
        auto r = blob.open();
        QVERIFY(readAll(*r) == long30_);
        // Across part boundaries, and a skip past one.
        for (const qsizetype at : {qsizetype(0), qsizetype(1), qsizetype((1 << 20) - 3), qsizetype(1 << 20),
                                   qsizetype(2 * (1 << 20) + 17), long30_.size() - 1, long30_.size()}) {
            auto from = blob.open(uint64_t(at));
            QVERIFY(readAll(*from, 4096) == long30_.mid(at));
        }
        auto s = blob.open(5);
        s->skip(uint64_t(1 << 20) + 100);
        QCOMPARE(s->offset(), uint64_t((1 << 20) + 105));
        QVERIFY(readAll(*s) == long30_.mid((1 << 20) + 105));
    }

    void decodesTheClientsLongWindowArchives_data() { mergedOrParts(); }
    void decodesTheClientsLongWindowArchives()
    {
        QFETCH(bool, merged);
        auto cache = actions::ActionsCache::open(actions::resolveDataDir(data_->dataDir().toStdString()));
        EntryBlob blob(cache->storage(), testsupport::entryWithId(*cache, merged ? merged_.id : parts_.id));
        auto r = blob.open();
        ZstdStream z(*r, blob.name());
        QVERIFY(readAll(z, 1000) == tar_);
        QCOMPARE(z.offset(), uint64_t(tar_.size()));
        QCOMPARE(z.inputOffset(), uint64_t(long30_.size()));
        QVERIFY(z.largestWindow() >= uint64_t(1) << 20);
    }

    void aLowerBudgetRefusesNamingTheWindow()
    {
        // A long=30 frame of this size declares min(2^30, ...) - whatever
        // zstd wrote, the budget below it must be refused by name.
        auto cache = actions::ActionsCache::open(actions::resolveDataDir(data_->dataDir().toStdString()));
        EntryBlob blob(cache->storage(), testsupport::entryWithId(*cache, merged_.id));
        auto probe = blob.open();
        ZstdStream first(*probe, blob.name());
        char c;
        QVERIFY(first.read(&c, 1) == 1);
        const uint64_t window = first.largestWindow();
        auto r = blob.open();
        ZstdStream z(*r, blob.name(), window / 2);
        const std::string err = testsupport::errorOf([&] { readAll(z); });
        QVERIFY2(err.find("entry " + merged_.id.toStdString() + " ('merged-key') at offset 0") == 0, err.c_str());
        QVERIFY2(err.find("window") != std::string::npos && err.find("memory budget") != std::string::npos, err.c_str());
        QVERIFY2(err.find("--memory") != std::string::npos, err.c_str());
        // The default budget admits it; plain zstd -T0 archives decode too.
        auto again = blob.open();
        ZstdStream ok(*again, blob.name());
        QVERIFY(readAll(ok) == tar_);
    }

    void aWindowAbove2GiBIsRefused()
    {
        auto cache = actions::ActionsCache::open(actions::resolveDataDir(data_->dataDir().toStdString()));
        EntryBlob blob(cache->storage(), testsupport::entryWithId(*cache, hugeWindow_.id));
        auto r = blob.open();
        ZstdStream z(*r, blob.name(), uint64_t(64) << 30);
        const std::string err = testsupport::errorOf([&] { readAll(z); });
        QVERIFY2(err.find("('huge-window') at offset 0: frame 0 at offset 0 declares a 4.0 GiB window") !=
                     std::string::npos,
                 err.c_str());
        QVERIFY2(err.find("above the 2.0 GiB") != std::string::npos, err.c_str());
    }

    void aTruncatedStreamIsOneErrorWithTheOffset()
    {
        auto cache = actions::ActionsCache::open(actions::resolveDataDir(data_->dataDir().toStdString()));
        EntryBlob blob(cache->storage(), testsupport::entryWithId(*cache, truncated_.id));
        auto r = blob.open();
        ZstdStream z(*r, blob.name());
        const std::string err = testsupport::errorOf([&] { readAll(z); });
        const std::string at = "('truncated-key') at offset " + std::to_string(long30_.size() / 2) + ":";
        QVERIFY2(err.find(at) != std::string::npos, err.c_str());
        QVERIFY2(err.find("truncated") != std::string::npos, err.c_str());
    }

    // The read-ahead stream hands out the inner stream's bytes in order,
    // whatever the read sizes on either side; an inner error comes after
    // exactly the bytes before it; it reads at most its slots ahead, and a
    // reader that stops early stops the thread (the destructor returns).
    void readAheadHandsOutTheBytesInOrderThenTheError()
    {
        const uint64_t size = 9 * ReadAheadStream::kSlotBytes + 12345;
        for (size_t chunk : {size_t(1000), size_t(70000), size_t(3) << 20}) {
            Numbered inner(size);
            ReadAheadStream ahead(inner);
            const QByteArray all = readAll(ahead, chunk);
            QCOMPARE(uint64_t(all.size()), size);
            QVERIFY(numbered(all));
            QCOMPARE(ahead.offset(), size);
            char more[16];
            QCOMPARE(ahead.read(more, sizeof more), size_t(0));
        }
        const uint64_t failAt = 5 * ReadAheadStream::kSlotBytes + 777;
        Numbered failing(size, failAt);
        ReadAheadStream ahead(failing);
        QByteArray got;
        std::string buf(65536, '\0');
        const std::string err = testsupport::errorOf([&] {
            while (size_t n = ahead.read(buf.data(), buf.size()))
                got.append(buf.data(), qsizetype(n));
        });
        QCOMPARE(uint64_t(got.size()), failAt);
        QVERIFY(numbered(got));
        QCOMPARE(ahead.offset(), uint64_t(got.size()));
        QVERIFY2(err == "numbered at offset " + std::to_string(failAt) + ": the read failed", err.c_str());
        // Read one byte, then wait: the thread fills its slots and no more.
        Numbered lazy(size);
        {
            ReadAheadStream early(lazy);
            char one = 0;
            QCOMPARE(early.read(&one, 1), size_t(1));
            QTest::qWait(200);
            QVERIFY(lazy.offset() <= (ReadAheadStream::kSlots + 1) * ReadAheadStream::kSlotBytes);
        }
        QVERIFY(lazy.offset() < size);
    }

    void aMissingPartIsNamed()
    {
        auto cache = actions::ActionsCache::open(actions::resolveDataDir(data_->dataDir().toStdString()));
        const QString part1 = data_->storage() + "/" + parts_.folder + "/parts/1";
        const QByteArray keep = testsupport::readFile(part1);
        QVERIFY(QFile::remove(part1));
        const auto e = testsupport::entryWithId(*cache, parts_.id);
        const std::string err = testsupport::errorOf([&] { EntryBlob blob(cache->storage(), e); });
        QVERIFY(testsupport::writeFile(part1, keep));
        QVERIFY2(err.find("('parts-key')") != std::string::npos && err.find("parts/1 is missing") != std::string::npos,
                 err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestEntriesBlob)
#include "tst_entries_blob.moc"
