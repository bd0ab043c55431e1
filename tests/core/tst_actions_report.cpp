// The human text of actions-cache (ActionsReport: ls, verify, merge, evict,
// import) with hostile keys, ids, folders and messages, as anyone who can
// upload to a cache chooses them: no control character, invalid UTF-8 byte
// or bidi override reaches the output raw, a key cannot forge a line, two
// keys never print alike, and the JSON keeps the exact bytes.
#include "core/actions-cache/ActionsReport.h"
#include "core/util/Escape.h"
#include "core/util/Json.h"

#include <QTest>

using namespace cs;
using namespace cs::actions;

namespace {

// Newline + a fake row, ESC ]0 (retitle) + BEL, CSI via C1 (U+009B), a
// right-to-left override, a line separator, DEL and an invalid UTF-8 byte.
const std::string kEvil = std::string("evil\n     1 KiB      1  merged  forged-row\x1b]0;pwned\x07") + "\xc2\x9b" + "2J" +
                          "\xe2\x80\xae" + "gpj.exe" + "\xe2\x80\xa8" + "\x7f" + "\xff" + "end";

// A description of the first raw control/override in text, or "".
std::string firstRaw(const std::string& text)
{
    for (size_t i = 0; i < text.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if ((c < 0x20 && c != '\n') || c == 0x7f || c == 0xff)
            return "byte " + std::to_string(c) + " at " + std::to_string(i);
        if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80
            && static_cast<unsigned char>(text[i + 1]) <= 0x9f)
            return "C1 control at " + std::to_string(i);
        if (c == 0xe2 && text.compare(i, 3, "\xe2\x80\xae") == 0)
            return "RLO at " + std::to_string(i);
        if (c == 0xe2 && text.compare(i, 3, "\xe2\x80\xa8") == 0)
            return "line separator at " + std::to_string(i);
    }
    return {};
}

int lines(const std::string& text)
{
    return int(std::count(text.begin(), text.end(), '\n'));
}

ActionsEntry evilEntry(const std::string& key)
{
    ActionsEntry e;
    e.id = "id-" + kEvil;
    e.key = key;
    e.version = kEvil;
    e.scope = kEvil;
    e.hasLocation = true;
    e.folderName = "1001";
    e.partCount = 1;
    e.size = 1024;
    return e;
}

} // namespace

class TestActionsReport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void listingShowsHostileKeysEscapedOnOneLine()
    {
        ActionsUpload u;
        u.row.id = 7;
        u.row.key = kEvil;
        const std::string text = listingText({evilEntry(kEvil), evilEntry("plain-key")}, {u});
        QVERIFY2(firstRaw(text).empty(), firstRaw(text).c_str());
        // Header, two entries, one upload, the total: nothing forged.
        QCOMPARE(lines(text), 5);
        QVERIFY(text.find(escapeControl(kEvil)) != std::string::npos);
        QVERIFY(text.find("\\n") != std::string::npos);
        QVERIFY(text.find("\\e]0;pwned") != std::string::npos);
        QVERIFY(text.find("plain-key\n") != std::string::npos);   // ordinary keys unchanged
    }

    void twoKeysNeverPrintAlike()
    {
        // "a\nb" and the four characters a \ n b.
        const std::string a = listingText({evilEntry("a\nb")}, {});
        const std::string b = listingText({evilEntry("a\\nb")}, {});
        QVERIFY(a != b);
    }

    void findingsMergeEvictImportAreEscaped()
    {
        Finding f{FindingKind::UnfinishedUpload, "7" + kEvil, kEvil, "1001" + kEvil, "/srv/storage/" + kEvil,
                  "upload 7 of key '" + kEvil + "' never finished", 0};
        const std::string findings = findingsText({f, f});
        QVERIFY2(firstRaw(findings).empty(), firstRaw(findings).c_str());
        QCOMPARE(lines(findings), 3);

        ActionsMergeResult refused{"id" + kEvil, kEvil, 0, false, true, false, "parts missing for '" + kEvil + "'"};
        ActionsMergeResult done{"id2", kEvil, 2048, true, false, false, "merged 2 parts of '" + kEvil + "'"};
        for (bool written : {false, true}) {
            const std::string merge = mergeText({refused, done}, written);
            QVERIFY2(firstRaw(merge).empty(), firstRaw(merge).c_str());
            QCOMPARE(lines(merge), 3);
        }

        const std::string evict = evictText({evilEntry(kEvil)}, true);
        QVERIFY2(firstRaw(evict).empty(), firstRaw(evict).c_str());
        QCOMPARE(lines(evict), 2);

        ActionsImportResult r;
        r.entries = 1;
        const std::string import = importText(r, "/tmp/store" + kEvil);
        QVERIFY2(firstRaw(import).empty(), firstRaw(import).c_str());
    }

    void jsonKeepsTheExactBytes()
    {
        const ActionsEntry e = evilEntry(kEvil);
        // Controls and overrides keep their exact code points (escaped by
        // JSON); the one byte that is not UTF-8 (\xff) becomes U+FFFD so the
        // document stays JSON (core/util/Json.h dumpJson).
        const Json parsed = cs::parseJson(cs::dumpJson(entryJson(e)), "entry");
        const auto utf8 = [](std::string s) {
            for (size_t at; (at = s.find('\xff')) != std::string::npos;)
                s.replace(at, 1, "\xef\xbf\xbd");
            return s;
        };
        QCOMPARE(cs::text(cs::field(parsed, "key")), utf8(kEvil));
        QCOMPARE(cs::text(cs::field(parsed, "id")), utf8(e.id));
    }
};

QTEST_GUILESS_MAIN(TestActionsReport)
#include "tst_actions_report.moc"
