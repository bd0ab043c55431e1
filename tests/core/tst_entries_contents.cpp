// Contents and diff of entries holding archives the stock tools made, each
// stored merged and as 1 MiB parts written in reverse order: members checked
// against `tar -t`, content against sha256sum of the extracted trees; other
// formats named (json, opaque); hostile archives each one error naming the
// entry and the offset.
#include "common/EntryArchives.h"
#include "common/TestServers.h"
#include "common/TestSupport.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/entries/EntryDiff.h"
#include "core/entries/FolderTotals.h"
#include "core/jobs/Job.h"

#include <map>
#include <set>

using namespace cs;
using namespace cs::entries;

namespace {

// GNU tar's default quoting (escape style): \\, \n, \t and \ooo octal.
std::string unquoteTar(const QByteArray& line)
{
    std::string out;
    for (qsizetype i = 0; i < line.size(); ++i) {
        if (line[i] != '\\' || i + 1 >= line.size()) {
            out += line[i];
            continue;
        }
        const char c = line[++i];
        if (c >= '0' && c <= '7') {
            int v = 0;
            for (int k = 0; k < 3 && i < line.size() && line[i] >= '0' && line[i] <= '7'; ++k, ++i)
                v = v * 8 + (line[i] - '0');
            --i;
            out += char(v);
        } else {
            out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
        }
    }
    while (out.size() > 1 && out.back() == '/')
        out.pop_back();
    return out;
}

std::set<std::string> tarListing(const QByteArray& tar)
{
    const auto r = testsupport::run("tar", {"-tf", "-"}, tar);
    if (r.exitCode != 0)
        qFatal("tar -t failed");
    std::set<std::string> out;
    for (const QByteArray& line : r.out.split('\n'))
        if (!line.isEmpty())
            out.insert(unquoteTar(line));
    return out;
}

// path -> sha256 of every regular file of an extracted archive (sha256sum -z).
std::map<std::string, std::string> extractedHashes(const QByteArray& tar, const QString& into)
{
    QDir().mkpath(into);
    if (testsupport::run("tar", {"-xf", "-", "-C", into}, tar).exitCode != 0)
        qFatal("tar -x failed");
    const auto r = testsupport::run("sh", {"-c", "cd '" + into + "' && find . -type f -print0 | xargs -0 sha256sum -z"});
    std::map<std::string, std::string> out;
    for (const QByteArray& rec : r.out.split('\0'))
        if (rec.size() > 66)
            out[rec.mid(66 + 2).toStdString()] /* "./" dropped */ = rec.left(64).toStdString();
    return out;
}

struct Listed {
    ContentsSummary summary;
    std::map<std::string, Member> members;
};

} // namespace

class TestEntriesContents : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QByteArray tar1_, tar2_;
    std::vector<testsupport::TreeFile> files1_;
    std::map<QString, QByteArray> blobs_; // filter -> bytes
    std::unique_ptr<testsupport::EntryDataDir> data_;
    std::map<std::string, testsupport::DataDirEntry> byName_;
    std::unique_ptr<actions::ActionsCache> cache_;

    Listed list(const std::string& name, ContentsOptions options = {})
    {
        EntryBlob blob(cache_->storage(), testsupport::entryWithId(*cache_, byName_.at(name).id));
        Listed out;
        Job job;
        out.summary = readContents(blob, options, job, [&](const Member& m) { out.members[m.path] = m; });
        return out;
    }
    std::string errorOf(const std::string& name)
    {
        return testsupport::errorOf([&] { list(name); });
    }
    void add(const std::string& name, const QByteArray& blob, bool merged)
    {
        byName_[name] = data_->add(QString::fromStdString(name), blob, merged);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        QDir().mkpath(dir_.path() + "/v1");
        QDir().mkpath(dir_.path() + "/v2");
        files1_ = testsupport::makeTree(dir_.path() + "/v1", 1);
        testsupport::makeTree(dir_.path() + "/v2", 2);
        tar1_ = testsupport::makeTar(dir_.path() + "/v1");
        tar2_ = testsupport::makeTar(dir_.path() + "/v2");
        data_ = std::make_unique<testsupport::EntryDataDir>(dir_.path() + "/data");
        for (const QString filter : {"zstd -q -T0 --long=30", "zstd -q -T0", "gzip", "cat"}) {
            blobs_[filter] = testsupport::compress(tar1_, filter);
            add(filter.toStdString() + " merged", blobs_[filter], true);
            add(filter.toStdString() + " parts", blobs_[filter], false);
        }
        add("v2", testsupport::compress(tar2_, "zstd -q -T0 --long=30"), false);
        add("json", "{\"schemaVersion\": 2, \"layers\": [{\"digest\": \"sha256:00\"}]}\n", true);
        add("random", testsupport::randomBytes(300000, 77), true);
        add("zstd random", testsupport::compress(testsupport::randomBytes(300000, 78), "zstd -q"), true);
        add("empty", QByteArray(), true);
        // Hostile: a truncated stream; a member whose size runs past the end
        // (the tar cut inside src/lib/data.bin, compressed whole).
        const QByteArray long30 = blobs_["zstd -q -T0 --long=30"];
        add("truncated", long30.left(long30.size() * 2 / 3), false);
        add("short member", testsupport::compress(tar1_.left(tar1_.indexOf("data.bin") + 300000), "zstd -q -T0 --long=30"),
            true);
        cache_ = actions::ActionsCache::open(actions::resolveDataDir(data_->dataDir().toStdString()));
    }
    void cleanupTestCase()
    {
        testsupport::removeTree(dir_.path() + "/v1");
        testsupport::removeTree(dir_.path() + "/v2");
        testsupport::removeTree(dir_.path() + "/x1");
        testsupport::removeTree(dir_.path() + "/x2");
    }

    void membersMatchTar_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("format");
        for (const char* filter : {"zstd -q -T0 --long=30", "zstd -q -T0", "gzip", "cat"})
            for (const char* how : {" merged", " parts"})
                QTest::newRow((std::string(filter) + how).c_str())
                    << QString(filter) + how
                    << (QString(filter) == "gzip" ? "tar+gzip" : QString(filter) == "cat" ? "tar" : "tar+zstd");
    }
    void membersMatchTar()
    {
        QFETCH(QString, name);
        QFETCH(QString, format);
        const Listed l = list(name.toStdString());
        QCOMPARE(QString(blobFormatName(l.summary.format)), format);
        std::set<std::string> paths;
        for (const auto& [p, m] : l.members)
            paths.insert(p);
        QCOMPARE(paths, tarListing(tar1_));
        QCOMPARE(l.summary.members, uint64_t(paths.size()));
        // gzip: libarchive's count stops at the end-of-archive marker.
        QVERIFY(l.summary.decodedBytes <= uint64_t(tar1_.size()));
        QVERIFY(l.summary.decodedBytes + 10240 >= uint64_t(tar1_.size()));
        if (format != "tar+gzip")
            QCOMPARE(l.summary.decodedBytes, uint64_t(tar1_.size()));
        // Each regular file as written, by size; the kinds of member.
        uint64_t bytes = 0;
        for (const auto& f : files1_) {
            QVERIFY2(l.members.count(f.path), f.path.c_str());
            QCOMPARE(l.members.at(f.path).size, uint64_t(f.bytes.size()));
            QCOMPARE(l.members.at(f.path).type, MemberType::File);
            bytes += uint64_t(f.bytes.size());
        }
        QCOMPARE(l.summary.bytes, bytes);
        QCOMPARE(l.members.at("tree/link-to-main").type, MemberType::Symlink);
        QCOMPARE(l.members.at("tree/link-to-main").linkTarget, std::string("src/main.c"));
        QCOMPARE(l.members.at("tree/hard-main.c").type, MemberType::Hardlink);
        QCOMPARE(l.members.at("tree/hard-main.c").linkTarget, std::string("tree/src/main.c"));
        QCOMPARE(l.members.at("tree/empty-dir").type, MemberType::Folder);
        QCOMPARE(l.members.at("tree/src/main.c").mode, 0644u);
        QVERIFY(l.members.count(std::string("tree/latin1-\xe9t\xe9.txt")));
        QVERIFY(l.members.count("tree/line\nbreak.txt"));
        struct stat st;
        QCOMPARE(::lstat((dir_.path() + "/v1/tree/src/main.c").toUtf8().constData(), &st), 0);
        QCOMPARE(l.members.at("tree/src/main.c").mtime, int64_t(st.st_mtime));
    }

    void folderTotalsToAnyDepth()
    {
        const Listed l = list("zstd -q -T0 --long=30 parts");
        FolderTotals all, two(2);
        for (const auto& [p, m] : l.members)
            all.add(m), two.add(m);
        std::map<std::string, FolderTotal> by;
        for (const auto& f : all.byPath())
            by[f.path] = f;
        QCOMPARE(by.at("tree/src").bytes, uint64_t(40000 + 120000 + 2500000));
        QCOMPARE(by.at("tree/src").files, uint64_t(3));
        QCOMPARE(by.at("tree/src/lib").depth, 3u);
        QCOMPARE(by.at("tree").files, l.summary.files);
        QCOMPARE(by.at("tree").bytes, l.summary.bytes);
        QCOMPARE(by.at("tree/empty-dir").files, uint64_t(0));
        QCOMPARE(all.largestFirst().front().path, std::string("tree"));
        for (const auto& f : two.byPath())
            QVERIFY(f.depth <= 2);
        QVERIFY(!two.byPath().empty());
    }

    void otherFormatsAreNamed()
    {
        QCOMPARE(list("json").summary.format, BlobFormat::Json);
        const Listed r = list("random");
        QCOMPARE(r.summary.format, BlobFormat::Opaque);
        QVERIFY(!r.summary.detail.empty());
        const Listed z = list("zstd random");
        QCOMPARE(z.summary.format, BlobFormat::Opaque);
        QCOMPARE(z.summary.detail, std::string("a zstd stream holding no tar archive"));
        QCOMPARE(list("empty").summary.format, BlobFormat::Opaque);
    }

    void hostileArchivesAreOneErrorNamingEntryAndOffset()
    {
        const std::string t = errorOf("truncated");
        QVERIFY2(t.find("('truncated') at offset ") == t.find("('"), t.c_str());
        QVERIFY2(t.find("truncated") != std::string::npos, t.c_str());
        const std::string s = errorOf("short member");
        QVERIFY2(s.find("('short member') at offset ") != std::string::npos, s.c_str());
        QVERIFY2(s.find("of the tar stream") != std::string::npos, s.c_str());
        QVERIFY2(s.find("data.bin") != std::string::npos, s.c_str());
        // A budget below the window: refused by name, nothing listed.
        ContentsOptions small;
        small.memoryBudget = 1 << 20;
        const std::string w = testsupport::errorOf([&] { list("zstd -q -T0 --long=30 merged", small); });
        QVERIFY2(w.find("window") != std::string::npos && w.find("--memory") != std::string::npos, w.c_str());
    }

    void cancelStopsTheRead()
    {
        EntryBlob blob(cache_->storage(), testsupport::entryWithId(*cache_, byName_.at("zstd -q -T0 --long=30 parts").id));
        Job job;
        job.cancel();
        QVERIFY_THROWS_EXCEPTION(Cancelled, readContents(blob, {}, job, [](const Member&) {}));
    }

    void diffAgreesWithTheExtractedTrees()
    {
        EntryBlob a(cache_->storage(), testsupport::entryWithId(*cache_, byName_.at("zstd -q -T0 --long=30 parts").id));
        EntryBlob b(cache_->storage(), testsupport::entryWithId(*cache_, byName_.at("v2").id));
        Job job;
        const EntryDiff d = diffEntries(a, b, {}, job);
        const auto l1 = tarListing(tar1_), l2 = tarListing(tar2_);
        std::set<std::string> added, removed, wantAdded, wantRemoved;
        for (const auto& m : d.added)
            added.insert(m.path);
        for (const auto& m : d.removed)
            removed.insert(m.path);
        std::set_difference(l2.begin(), l2.end(), l1.begin(), l1.end(), std::inserter(wantAdded, wantAdded.end()));
        std::set_difference(l1.begin(), l1.end(), l2.begin(), l2.end(), std::inserter(wantRemoved, wantRemoved.end()));
        QCOMPARE(added, wantAdded);
        QCOMPARE(removed, wantRemoved);
        // Changed content: the regular files whose sha256sum differs.
        const auto h1 = extractedHashes(tar1_, dir_.path() + "/x1");
        const auto h2 = extractedHashes(tar2_, dir_.path() + "/x2");
        std::set<std::string> wantContent, content, changed;
        for (const auto& [p, h] : h1)
            if (h2.count(p) && h2.at(p) != h)
                wantContent.insert(p);
        for (const auto& c : d.changed) {
            changed.insert(c.path);
            if (c.what.find("content") != std::string::npos || c.what.find("size") != std::string::npos)
                content.insert(c.path);
        }
        if (content != wantContent) {
            for (const auto& c : content)
                qWarning("ours: %s", c.c_str());
            for (const auto& c : wantContent)
                qWarning("sha256sum: %s", c.c_str());
        }
        QCOMPARE(content, wantContent);
        QVERIFY(changed.count("tree/src/main.c")); // mode 0644 -> 0755
        QVERIFY(!changed.count("tree/src/lib/data.bin"));
        // bytes_added - bytes_removed is the change of the total.
        QCOMPARE(int64_t(d.bytesAdded) - int64_t(d.bytesRemoved), int64_t(d.b.bytes) - int64_t(d.a.bytes));
        QCOMPARE(d.bytesAdded, uint64_t(70000 + 10000));
        QCOMPARE(d.bytesRemoved, uint64_t(5000));
    }
};

QTEST_GUILESS_MAIN(TestEntriesContents)
#include "tst_entries_contents.moc"
