// The size and duration parsers every command's flags use (core/util/Units):
// a number, then a unit from a fixed list, in any case; anything else is
// nullopt, never a guess.
#include "common/TestSupport.h"

#include "core/util/Units.h"

#include <QTest>

#include <optional>
#include <utility>

using cs::parseDurationSeconds;
using cs::parseSize;

class TestUtilUnits : public QObject {
    Q_OBJECT
private slots:
    void sizes()
    {
        const std::pair<const char*, uint64_t> good[] = {
            {"0", 0}, {"4096", 4096}, {"12b", 12}, {"1.5MiB", 1572864}, {"2 KB ", 2048}, {"3g", 3ull << 30},
            {"1TiB", 1ull << 40}};
        for (const auto& [text, bytes] : good)
            QVERIFY2(parseSize(text) == std::optional<uint64_t>(bytes), text);
        for (const char* bad : {"", " ", "-1", "1e3", "10x", "MiB", "1,5MiB", "1 M iB", "99999999999 TiB"})
            QVERIFY2(!parseSize(bad), bad);
    }

    // No spaces in a duration, and at most about 31 million years.
    void durations()
    {
        const std::pair<const char*, int64_t> good[] = {{"45", 45}, {"45s", 45}, {"3M", 180}, {"10min", 600},
            {"1.5h", 5400}, {"90d", 7776000}, {"2w", 1209600}};
        for (const auto& [text, seconds] : good)
            QVERIFY2(parseDurationSeconds(text) == std::optional<int64_t>(seconds), text);
        for (const char* bad : {"", "5 m", "5m ", "-1s", "1y", "d", "2000000000000000s"})
            QVERIFY2(!parseDurationSeconds(bad), bad);
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestUtilUnits)
#include "tst_util_units.moc"
