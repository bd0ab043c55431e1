// The entries filter as typed in the GUI's filter field
// (core/actions-cache/EntryFilterText.h): which words become index filters,
// their bounds (strict and inclusive), the key words left over, and one
// sentence for a word that names a filter but cannot be read. What the
// filters then select over every entry, on each layout, is
// common/IndexChecks.h's (tst_actions_index, _remote, _mysql, _gcs).
#include "core/actions-cache/ActionsCache.h"
#include "core/actions-cache/EntryFilterText.h"

#include <QTest>

using namespace cs::actions;

namespace {
unsigned bit(EntryState s) { return 1u << unsigned(s); }
} // namespace

class TestActionsFilterText : public QObject {
    Q_OBJECT

private slots:
    void plainTextIsTheKeySubstring()
    {
        auto f = parseEntryFilterText("  node-modules   linux ");
        QVERIFY(f.error.empty());
        QCOMPARE(f.query.keyContains, std::string("node-modules linux"));
        QVERIFY(catalogServes(f.query));   // nothing for the index: the catalog's SQL answers
        QVERIFY(parseEntryFilterText("").query == EntryQuery{});
    }

    void sizeBoundsAreInclusiveOrStrictAsWritten()
    {
        auto f = parseEntryFilterText("size>100M");
        QVERIFY(f.error.empty());
        QCOMPARE(f.query.minSize, std::optional<uint64_t>(100ull * 1024 * 1024 + 1));
        QVERIFY(!f.query.maxSize);
        QVERIFY(!catalogServes(f.query));
        f = parseEntryFilterText("size>=1.5GiB size<2G");
        QCOMPARE(f.query.minSize, std::optional<uint64_t>(1610612736ull));
        QCOMPARE(f.query.maxSize, std::optional<uint64_t>(2147483648ull - 1));
        f = parseEntryFilterText("size<=4096 size=4096");
        QCOMPARE(f.query.minSize, std::optional<uint64_t>(4096));
        QCOMPARE(f.query.maxSize, std::optional<uint64_t>(4096));
        // Two lower bounds: the tighter one holds.
        f = parseEntryFilterText("size>=10 size>=5");
        QCOMPARE(f.query.minSize, std::optional<uint64_t>(10));
        // Nothing is under 0 bytes: an empty range, not a wrap to 2^64 - 1.
        f = parseEntryFilterText("size<0");
        QVERIFY(f.error.empty());
        QVERIFY(f.query.minSize && f.query.maxSize && *f.query.minSize > *f.query.maxSize);
    }

    void partsAndStates()
    {
        auto f = parseEntryFilterText("parts>=2 parts<10 state:unmerged,merge-started");
        QVERIFY(f.error.empty());
        QCOMPARE(f.query.minParts, std::optional<int64_t>(2));
        QCOMPARE(f.query.maxParts, std::optional<int64_t>(9));
        QCOMPARE(f.query.stateMask, bit(EntryState::Unmerged) | bit(EntryState::MergeStarted));
        f = parseEntryFilterText("state:merged state:parts-deleted");
        QCOMPARE(f.query.stateMask, bit(EntryState::Merged) | bit(EntryState::PartsDeleted));
        f = parseEntryFilterText("parts=1");
        QCOMPARE(f.query.minParts, std::optional<int64_t>(1));
        QCOMPARE(f.query.maxParts, std::optional<int64_t>(1));
    }

    void keyScopeAndRepoAreExact()
    {
        auto f = parseEntryFilterText("key:Linux-node- scope:refs/heads/main repo:42 lock");
        QVERIFY(f.error.empty());
        QCOMPARE(f.query.keyPrefix, std::string("Linux-node-"));
        QCOMPARE(f.query.scope, std::string("refs/heads/main"));
        QCOMPARE(f.query.repoId, std::string("42"));
        QCOMPARE(f.query.keyContains, std::string("lock"));
        QVERIFY(!parseEntryFilterText("scope:a scope:b").error.empty());
    }

    void wordsThatOnlyLookLikeFiltersAreKeyText()
    {
        // A key may hold '=' or ':' (cargo-registry=1, buildkit-blob-1-sha256:…).
        auto f = parseEntryFilterText("buildkit-blob-1-sha256:abc weight=3 :x key:");
        QVERIFY(f.error.empty());
        QCOMPARE(f.query.keyContains, std::string("buildkit-blob-1-sha256:abc weight=3 :x key:"));
        QVERIFY(catalogServes(f.query));
    }

    void theOrderIsKept()
    {
        EntryQuery base;
        base.order = EntryOrder::SizeLargest;
        base.minSize = 7;   // the text replaces the filters
        auto f = parseEntryFilterText("state:merged", base);
        QVERIFY(f.query.order == EntryOrder::SizeLargest);
        QVERIFY(!f.query.minSize);
    }

    void unreadableFiltersAreOneSentenceNamingTheWord_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("word");
        QTest::newRow("size unit") << "size>100Q" << "size>100Q";
        QTest::newRow("size empty") << "size>=" << "size>=";
        QTest::newRow("size negative") << "lock size>-1" << "size>-1";
        QTest::newRow("parts fraction") << "parts>1.5" << "parts>1.5";
        QTest::newRow("parts negative") << "parts>=-2" << "parts>=-2";
        QTest::newRow("state unknown") << "state:done" << "state:done";
        QTest::newRow("state empty item") << "state:merged," << "state:merged,";
        QTest::newRow("state empty") << "state:" << "state:";
    }
    void unreadableFiltersAreOneSentenceNamingTheWord()
    {
        QFETCH(QString, text);
        QFETCH(QString, word);
        const auto f = parseEntryFilterText(text.toStdString());
        QVERIFY2(!f.error.empty(), qPrintable(text));
        QVERIFY2(QString::fromStdString(f.error).startsWith("'" + word + "'"), f.error.c_str());
        QVERIFY(f.error.find('\n') == std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestActionsFilterText)
#include "tst_actions_filter_text.moc"
