// The reverse-offset reachability walk against a brute-force mark on random
// DAGs, and the backwards-written mapping against the expected records.
#include "common/TestSupport.h"

#include "core/gc/MappingBuilder.h"
#include "core/gc/MonotoneQueue.h"
#include "core/gc/ReachabilityWalk.h"
#include "core/pack/MappingFile.h"
#include "core/util/Error.h"

#include <map>
#include <queue>
#include <set>

using namespace cs;
using namespace cs::gc;

namespace {

struct Dag {
    std::vector<uint64_t> offset, size;
    std::vector<std::vector<uint64_t>> children; // indices
    std::map<uint64_t, size_t> byOffset;
    std::vector<uint64_t> roots; // offsets
    uint64_t end = 0;
};

enum Shape { Random, Deep, Wide };

Dag makeDag(uint64_t seed, size_t n, Shape shape)
{
    std::mt19937_64 rng(seed);
    Dag d;
    uint64_t at = rng() % 3;
    for (size_t i = 0; i < n; ++i) {
        if (rng() % 3 == 0)
            at += 1 + rng() % 40; // a gap: bytes no object of this DAG covers
        d.offset.push_back(at);
        d.size.push_back(1 + rng() % 100);
        d.byOffset[at] = i;
        at += d.size.back();
        std::vector<uint64_t> ch;
        if (i > 0) {
            size_t k = 0;
            switch (shape) {
            case Random: k = rng() % 5; break;
            case Deep: k = 1 + rng() % 2; break;
            case Wide: k = (rng() % 20 == 0) ? 50 + rng() % 200 : rng() % 2; break;
            }
            for (size_t c = 0; c < k; ++c) {
                size_t j;
                if (shape == Deep && c == 0)
                    j = i - 1;
                else if (rng() % 4 == 0)
                    j = rng() % std::min<size_t>(i, 8); // popular shared children near the start
                else
                    j = rng() % i;
                ch.push_back(j);
            }
        }
        d.children.push_back(ch);
    }
    d.end = at + rng() % 10;
    const size_t nroots = 1 + rng() % std::max<size_t>(1, n / 10);
    for (size_t r = 0; r < nroots; ++r)
        d.roots.push_back(d.offset[rng() % n]);
    if (rng() % 2)
        d.roots.push_back(d.roots.front()); // a root given twice
    return d;
}

std::vector<PackRange> bruteForce(const Dag& d, uint64_t& objects, uint64_t& bytes)
{
    std::vector<bool> live(d.offset.size(), false);
    std::vector<size_t> stack;
    for (uint64_t r : d.roots)
        stack.push_back(d.byOffset.at(r));
    while (!stack.empty()) {
        const size_t i = stack.back();
        stack.pop_back();
        if (live[i])
            continue;
        live[i] = true;
        for (auto c : d.children[i])
            stack.push_back(c);
    }
    std::vector<PackRange> ranges;
    objects = bytes = 0;
    for (size_t i = 0; i < live.size(); ++i) {
        if (!live[i])
            continue;
        ++objects;
        bytes += d.size[i];
        if (!ranges.empty() && ranges.back().end() == d.offset[i])
            ranges.back().length += d.size[i];
        else
            ranges.push_back({d.offset[i], d.size[i]});
    }
    return ranges;
}

ReachabilityWalk::ReadObject reader(const Dag& d, uint64_t* reads = nullptr)
{
    return [&d, reads](uint64_t offset, std::vector<uint64_t>& children) {
        const size_t i = d.byOffset.at(offset);
        if (reads)
            ++*reads;
        for (auto c : d.children[i])
            children.push_back(d.offset[c]);
        return d.size[i];
    };
}

} // namespace

class TestGcWalk : public QObject {
    Q_OBJECT
private slots:
    void monotoneQueueAgreesWithBinaryHeap()
    {
        // Random walks of pushes below the last pop (with duplicates and
        // values far apart in their high bits): same pops as std::priority_queue.
        for (uint64_t seed = 1; seed <= 50; ++seed) {
            std::mt19937_64 rng(seed);
            MonotoneQueue q;
            std::priority_queue<uint64_t> ref;
            uint64_t ceiling = seed % 2 ? UINT64_MAX - 1 : 1u << 20;
            auto pushSome = [&](int n) {
                for (int i = 0; i < n; ++i) {
                    const uint64_t v = rng() % 4 == 0 && !ref.empty() ? ref.top() : rng() % (ceiling + 1);
                    q.push(v);
                    ref.push(v);
                }
            };
            pushSome(1 + int(rng() % 20));
            while (!ref.empty()) {
                QCOMPARE(q.size(), uint64_t(ref.size()));
                QCOMPARE(q.top(), ref.top());
                ceiling = ref.top();
                q.pop();
                ref.pop();
                if (ceiling > 0 && rng() % 3 != 0)
                    pushSome(int(rng() % 4));
            }
            QVERIFY(q.empty());
            if (ceiling < UINT64_MAX)
                QVERIFY_THROWS_EXCEPTION(std::logic_error, q.push(ceiling + 1));
        }
    }

    void walkEqualsBruteForce_data()
    {
        QTest::addColumn<int>("shape");
        QTest::addColumn<int>("n");
        QTest::newRow("random small") << int(Random) << 20;
        QTest::newRow("random") << int(Random) << 2000;
        QTest::newRow("deep") << int(Deep) << 3000;
        QTest::newRow("wide") << int(Wide) << 3000;
    }
    void walkEqualsBruteForce()
    {
        QFETCH(int, shape);
        QFETCH(int, n);
        for (uint64_t seed = 1; seed <= 60; ++seed) {
            const Dag d = makeDag(seed * 7919 + uint64_t(shape), size_t(n), Shape(shape));
            uint64_t objects = 0, bytes = 0;
            const auto expected = bruteForce(d, objects, bytes);
            std::vector<PackRange> got;
            std::vector<double> fractions;
            uint64_t reads = 0;
            const auto r = ReachabilityWalk::run(
                d.roots, d.end, reader(d, &reads), [&](const PackRange& x) { got.push_back(x); },
                [&](double f) { fractions.push_back(f); });
            // Ranges come out in decreasing order.
            for (size_t i = 1; i < got.size(); ++i)
                QVERIFY2(got[i].end() < got[i - 1].offset, "ranges must decrease and never touch");
            std::reverse(got.begin(), got.end());
            QCOMPARE(got.size(), expected.size());
            QVERIFY(got == expected);
            QCOMPARE(r.objectsVisited, objects);
            QCOMPARE(reads, objects); // each live object read exactly once
            QCOMPARE(r.liveBytes, bytes);
            QCOMPARE(r.ranges, uint64_t(expected.size()));
            QVERIFY(r.largestFrontier >= 1);
            QVERIFY(std::is_sorted(fractions.begin(), fractions.end()));
            QCOMPARE(fractions.back(), 1.0);
        }
    }

    void rootsAtOrAboveSplitAreIgnored()
    {
        const Dag d = makeDag(5, 100, Random);
        uint64_t called = 0;
        const auto r = ReachabilityWalk::run({d.end, d.end + 10}, d.end, reader(d, &called), [](const PackRange&) {});
        QCOMPARE(r.objectsVisited, uint64_t(0));
        QCOMPARE(called, uint64_t(0));
    }

    void forwardEdgeIsAnError()
    {
        auto read = [](uint64_t offset, std::vector<uint64_t>& children) -> uint64_t {
            if (offset == 10)
                children.push_back(20);
            return 5;
        };
        QVERIFY_THROWS_EXCEPTION(cs::Error, ReachabilityWalk::run({10}, 100, read, [](const PackRange&) {}));
    }

    void overlappingObjectsAreAnError()
    {
        auto read = [](uint64_t offset, std::vector<uint64_t>& children) -> uint64_t {
            if (offset == 10)
                children.push_back(5);
            return 8; // [5, 13) overlaps [10, 18)
        };
        QVERIFY_THROWS_EXCEPTION(cs::Error, ReachabilityWalk::run({10}, 100, read, [](const PackRange&) {}));
    }

    void mappingBuilderReversesWithoutSort_data()
    {
        QTest::addColumn<int>("count");
        for (int c : {0, 1, 2, 3, 4095, 4096, 8191, 8192, 8193, 20001})
            QTest::newRow(qPrintable(QString::number(c))) << c;
    }
    void mappingBuilderReversesWithoutSort()
    {
        QFETCH(int, count);
        QTemporaryDir dir;
        const std::string path = dir.filePath("1.mapping").toStdString();
        std::mt19937_64 rng(uint64_t(count) + 17);
        // Increasing, non-adjacent ranges.
        std::vector<PackRange> ranges;
        uint64_t at = rng() % 5;
        for (int i = 0; i < count; ++i) {
            const uint64_t len = 1 + rng() % 1000;
            ranges.push_back({at, len});
            at += len + 1 + rng() % 50;
        }
        // Prefix offsets as the PrefixWriter hands them out: in walk order.
        std::vector<uint64_t> prefixOf(ranges.size());
        MappingBuilder b(path);
        uint64_t walked = 0;
        for (size_t i = ranges.size(); i-- > 0;) {
            prefixOf[i] = walked;
            b.add(ranges[i].offset, walked, ranges[i].length);
            walked += ranges[i].length;
        }
        QCOMPARE(b.finish(), uint64_t(count));
        const auto m = pack::MappingFile::open(path, uint64_t(count)); // checks sorted, non-overlapping
        QCOMPARE(m.size(), uint64_t(count));
        uint64_t prefix = 0;
        for (int i = 0; i < count; ++i) {
            const auto r = m.at(uint64_t(i));
            QCOMPARE(r.offset, ranges[size_t(i)].offset);
            QCOMPARE(r.length, ranges[size_t(i)].length);
            QCOMPARE(r.prefixOffset, prefixOf[size_t(i)]);
            if (i > 0)
                QVERIFY2(m.at(uint64_t(i - 1)).offset + m.at(uint64_t(i - 1)).length < r.offset, "not collapsed");
            prefix += r.length;
        }
        QCOMPARE(b.liveBytes(), prefix);
    }

    void mappingBuilderRefusesIncreasingOrder()
    {
        QTemporaryDir dir;
        MappingBuilder b(dir.filePath("1.mapping").toStdString());
        b.add(100, 0, 10);
        QVERIFY_THROWS_EXCEPTION(cs::Error, b.add(200, 10, 10));
        QVERIFY_THROWS_EXCEPTION(cs::Error, b.add(95, 10, 10)); // overlaps [100, 110)
    }

    void walkIntoMappingEndToEnd()
    {
        // The walk's output fed to the builder gives records equal to the brute force.
        QTemporaryDir dir;
        for (uint64_t seed = 1; seed <= 10; ++seed) {
            const Dag d = makeDag(seed, 5000, Random);
            uint64_t objects = 0, bytes = 0;
            const auto expected = bruteForce(d, objects, bytes);
            const std::string path = dir.filePath(QString::number(seed) + ".mapping").toStdString();
            MappingBuilder b(path);
            uint64_t walked = 0;
            ReachabilityWalk::run(d.roots, d.end, reader(d), [&](const PackRange& r) {
                b.add(r.offset, walked, r.length);
                walked += r.length;
            });
            QCOMPARE(b.finish(), uint64_t(expected.size()));
            const auto recs = pack::MappingFile::open(path).all();
            uint64_t above = 0; // live bytes above record i: its prefix offset in walk order
            for (size_t i = recs.size(); i-- > 0;) {
                QCOMPARE(recs[i].offset, expected[i].offset);
                QCOMPARE(recs[i].length, expected[i].length);
                QCOMPARE(recs[i].prefixOffset, above);
                above += recs[i].length;
            }
            QCOMPARE(above, bytes);
        }
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestGcWalk)
#include "tst_gc_walk.moc"
