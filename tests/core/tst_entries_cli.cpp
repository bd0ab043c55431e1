// cachescope-cli actions-cache contents|diff|frames on a data dir of
// archives the stock tools made: the JSON fields the issue spells out,
// names that are not UTF-8 or hold a newline escaped and the JSON valid,
// --depth, the frames JSON equal to `frames FILE --json` of the same bytes,
// 100,000 empty members in bounded memory, hostile archives one error, and
// nothing in the data dir changed.
#include "common/ChildRss.h"
#include "common/EntryArchives.h"
#include "common/JsonSchema.h"
#include "common/TestServers.h"
#include "common/TestSupport.h"
#include "common/TreeHash.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <set>

namespace {

QJsonObject parsed(const QByteArray& out)
{
    QJsonParseError e;
    const QJsonDocument d = QJsonDocument::fromJson(out, &e);
    if (e.error != QJsonParseError::NoError)
        qWarning("not JSON: %s at %d", qPrintable(e.errorString()), e.offset);
    return d.object();
}

QStringList keysOf(const QJsonObject& o)
{
    QStringList k = o.keys();
    k.sort();
    return k;
}

} // namespace

class TestEntriesCli : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QByteArray tar1_, tar2_, blob1_;
    std::unique_ptr<testsupport::EntryDataDir> data_;
    testsupport::DataDirEntry v1_, v1parts_, v2_, many_, truncated_;

    testsupport::SchemaMap schemas_;

    // The output matches its schema in docs/cli.md.
    void checkSchema(const QByteArray& out, const std::string& name)
    {
        const auto it = schemas_.find(name);
        QVERIFY2(it != schemas_.end(), name.c_str());
        const std::string problem =
            testsupport::validateJson(nlohmann::ordered_json::parse(out.toStdString()), it->second, schemas_);
        QVERIFY2(problem.empty(), problem.c_str());
    }

    testsupport::ProcessResult ac(const QStringList& args)
    {
        return testsupport::cli(QStringList{"actions-cache"} + args);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        schemas_ = testsupport::schemasFromDoc(CACHESCOPE_SOURCE_DIR "/docs/cli.md");
        QDir().mkpath(dir_.path() + "/v1");
        QDir().mkpath(dir_.path() + "/v2");
        testsupport::makeTree(dir_.path() + "/v1", 1);
        testsupport::makeTree(dir_.path() + "/v2", 2);
        tar1_ = testsupport::makeTar(dir_.path() + "/v1");
        tar2_ = testsupport::makeTar(dir_.path() + "/v2");
        blob1_ = testsupport::compress(tar1_, "zstd -q -T0 --long=30");
        data_ = std::make_unique<testsupport::EntryDataDir>(dir_.path() + "/data");
        v1_ = data_->add("node-v1", blob1_, true);
        v1parts_ = data_->add("node-v1-parts", blob1_, false);
        v2_ = data_->add("node-v2", testsupport::compress(tar2_, "zstd -q -T0 --long=30"), false);
        truncated_ = data_->add("cut", blob1_.left(blob1_.size() / 2), true);
        // 100,000 members of 0 bytes in 100 folders.
        const QString many = dir_.path() + "/many";
        QVERIFY(testsupport::run("sh", {"-c", "mkdir -p '" + many + "/m' && cd '" + many +
                                               "/m' && for d in $(seq 0 99); do mkdir d$d; (cd d$d && seq 0 999 | "
                                               "xargs touch); done"})
                    .exitCode == 0);
        many_ = data_->add("many", testsupport::compress(testsupport::makeTar(many, "m"), "zstd -q -T0"), true);
        testsupport::removeTree(many);
    }
    void cleanupTestCase()
    {
        testsupport::removeTree(dir_.path() + "/v1");
        testsupport::removeTree(dir_.path() + "/v2");
    }

    void contentsJsonHasTheIssuesFields()
    {
        const testsupport::TreeHash tree = testsupport::hashTree(data_->dataDir());
        for (const auto& e : {v1_, v1parts_}) {
            const auto r = ac({"contents", data_->dataDir(), e.id, "--json", "-q"});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            checkSchema(r.out, "actions-contents");
            const QJsonObject o = parsed(r.out);
            QCOMPARE(keysOf(o), (QStringList{"bytes", "entry", "files", "folders", "format", "members"}));
            QCOMPARE(o["entry"].toString(), e.id);
            QCOMPARE(o["format"].toString(), QString("tar+zstd"));
            std::set<QString> paths;
            for (const auto& m : o["members"].toArray()) {
                const QJsonObject mo = m.toObject();
                for (const char* k : {"path", "type", "size", "mode", "mtime"})
                    QVERIFY2(mo.contains(k), k);
                paths.insert(mo["path"].toString());
            }
            // Escaped, never raw: the newline and the Latin-1 bytes.
            QVERIFY(paths.count("tree/line\\nbreak.txt"));
            QVERIFY(paths.count("tree/latin1-\\xE9t\\xE9.txt"));
            QVERIFY(paths.count("tree/name with spaces.txt"));
            bool sawSrc = false;
            for (const auto& f : o["folders"].toArray()) {
                const QJsonObject fo = f.toObject();
                QCOMPARE(keysOf(fo), (QStringList{"bytes", "files", "path"}));
                if (fo["path"].toString() == "tree/src") {
                    sawSrc = true;
                    QCOMPARE(fo["bytes"].toInteger(), qint64(40000 + 120000 + 2500000));
                    QCOMPARE(fo["files"].toInteger(), qint64(3));
                }
            }
            QVERIFY(sawSrc);
            QVERIFY(o["files"].toInteger() > 10);
        }
        // --depth limits the folders.
        const auto d1 = parsed(ac({"contents", data_->dataDir(), v1_.id, "--json", "--depth", "1", "-q"}).out);
        QCOMPARE(d1["folders"].toArray().size(), 1);
        QCOMPARE(d1["folders"].toArray()[0].toObject()["path"].toString(), QString("tree"));
        // Human: the largest folder first.
        const auto h = ac({"contents", data_->dataDir(), v1_.id, "-q"});
        QCOMPARE(h.exitCode, 0);
        QVERIFY2(h.out.startsWith("entry " + v1_.id.toUtf8() + " ('node-v1'): tar+zstd"), h.out.constData());
        const QList<QByteArray> lines = h.out.split('\n');
        QVERIFY(lines.size() > 4);
        QVERIFY2(lines[3].endsWith(" tree"), lines[3].constData());
        QCOMPARE(testsupport::treeDifferences(tree, testsupport::hashTree(data_->dataDir())), QStringList());
    }

    void diffJsonHasTheIssuesFields()
    {
        const auto r = ac({"diff", data_->dataDir(), v1_.id, v2_.id, "--json", "-q"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        checkSchema(r.out, "actions-diff");
        const QJsonObject o = parsed(r.out);
        QCOMPARE(keysOf(o), (QStringList{"added", "bytes_added", "bytes_removed", "changed", "removed"}));
        std::set<QString> added, removed, changed;
        for (const auto& m : o["added"].toArray())
            added.insert(m.toObject()["path"].toString());
        for (const auto& m : o["removed"].toArray())
            removed.insert(m.toObject()["path"].toString());
        for (const auto& m : o["changed"].toArray()) {
            QCOMPARE(keysOf(m.toObject()), (QStringList{"path", "size_a", "size_b"}));
            changed.insert(m.toObject()["path"].toString());
        }
        QCOMPARE(added, (std::set<QString>{"tree/new", "tree/new/added.bin"}));
        QCOMPARE(removed, (std::set<QString>{"tree/old", "tree/old/gone.txt"}));
        QVERIFY(changed.count("tree/src/lib/util.c"));
        QCOMPARE(o["bytes_added"].toInteger(), qint64(70000 + 10000));
        QCOMPARE(o["bytes_removed"].toInteger(), qint64(5000));
        // Same entry twice: nothing differs.
        const auto same = parsed(ac({"diff", data_->dataDir(), v1_.id, v1parts_.id, "--json", "-q"}).out);
        QCOMPARE(same["changed"].toArray().size(), 0);
        QCOMPARE(same["added"].toArray().size(), 0);
    }

    void framesJsonIsTheFramesCommandsOnTheBlob()
    {
        const QString file = dir_.path() + "/blob.zst";
        QVERIFY(testsupport::writeFile(file, blob1_));
        QJsonObject want = parsed(testsupport::cli({"frames", file, "--json"}).out);
        for (const auto& e : {v1_, v1parts_}) {
            const auto r = ac({"frames", data_->dataDir(), e.id, "--json"});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QJsonObject got = parsed(r.out);
            QVERIFY(got["file"].toString().contains(e.id));
            got.remove("file");
            QJsonObject w = want;
            w.remove("file");
            QCOMPARE(got, w);
        }
        const auto h = ac({"frames", data_->dataDir(), v1parts_.id, "-q"});
        QVERIFY2(h.out.contains("parallel:     not splittable"), h.out.constData());
    }

    void manyEmptyMembersInBoundedMemory()
    {
        const QString out = dir_.path() + "/many.json";
        const auto run = testsupport::runMeasured(QStringLiteral(CACHESCOPE_CLI),
                                                  {"actions-cache", "contents", data_->dataDir(), many_.id, "--json",
                                                   "-q", "--depth", "2"},
                                                  out);
        QCOMPARE(run.exitCode, 0);
        const QJsonObject o = parsed(testsupport::readFile(out));
        QCOMPARE(o["members"].toArray().size(), 100000 + 100 + 1);
        QCOMPARE(o["files"].toInteger(), qint64(100000));
        QCOMPARE(o["folders"].toArray().size(), 101);
        // The listing streams: far below what holding 100,000 members costs.
        QVERIFY2(run.maxRssKiB < 64 * 1024, qPrintable(QString::number(run.maxRssKiB)));
    }

    void errorsAreOneSentence()
    {
        const auto cut = ac({"contents", data_->dataDir(), truncated_.id, "-q"});
        QCOMPARE(cut.exitCode, 1);
        QVERIFY2(cut.err.contains("('cut') at offset ") && cut.err.count('\n') == 1, cut.err.constData());
        const auto small = ac({"contents", data_->dataDir(), v1_.id, "--memory", "1MiB", "-q"});
        QCOMPARE(small.exitCode, 1);
        QVERIFY2(small.err.contains("window") && small.err.contains("--memory"), small.err.constData());
        const auto none = ac({"contents", data_->dataDir(), "no-such-id"});
        QCOMPARE(none.exitCode, 1);
        QVERIFY2(none.err.contains("no cache entry with id 'no-such-id'"), none.err.constData());
        QCOMPARE(ac({"contents", data_->dataDir()}).exitCode, 2);
        QCOMPARE(ac({"diff", data_->dataDir(), v1_.id}).exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestEntriesCli)
#include "tst_entries_cli.moc"
