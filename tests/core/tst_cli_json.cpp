// Every --json output of cachescope-cli, checked against its JSON Schema in
// docs/cli.md (section "JSON schemas"): types, required and unexpected keys,
// enums, the documented key order, and integers written exactly (GC byte
// counts above 2^53 included).
#include "common/JsonSchema.h"
#include "common/TestSupport.h"

#include "core/util/Error.h"
#include "core/util/Json.h"

#include <sqlite3.h>

using testsupport::cli;

class TestCliJson : public QObject {
    Q_OBJECT
    QTemporaryDir tmp;
    testsupport::SchemaMap schemas;

    QString path(const QString& name) const { return tmp.path() + QLatin1Char('/') + name; }

    // Runs the command, expects exit 0 and output that matches the schema.
    nlohmann::ordered_json check(const QStringList& args, const std::string& schema)
    {
        const auto r = cli(args);
        if (r.exitCode != 0)
            qFatal("%s: exit %d: %s", qPrintable(args.join(' ')), r.exitCode, r.err.constData());
        const auto it = schemas.find(schema);
        if (it == schemas.end())
            qFatal("docs/cli.md has no schema '%s'", schema.c_str());
        const auto value = nlohmann::ordered_json::parse(r.out.toStdString());
        const std::string problem = testsupport::validateJson(value, it->second, schemas);
        if (!problem.empty())
            qFatal("%s: does not match schema '%s': %s", qPrintable(args.join(' ')), schema.c_str(), problem.c_str());
        return value;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(tmp.isValid());
        schemas = testsupport::schemasFromDoc(CACHESCOPE_SOURCE_DIR "/docs/cli.md");
        QVERIFY(schemas.size() >= 3);
    }

    // The checker itself rejects what it should.
    void checkerRejects()
    {
        const auto schema = schemas.at("snapshot-restore");
        auto ok = nlohmann::ordered_json::parse(R"({"snapshot": "a", "output": "b", "threads": 1, "input_bytes": 1,
            "output_bytes": 18446744073709551615, "zstd_frames": 1, "skippable_frames": 0, "sized_frames": 1,
            "streamed_frames": 0, "hole_bytes": 0, "seek_table": false, "wall_seconds": 0.5, "cpu_seconds": 1})");
        QCOMPARE(testsupport::validateJson(ok, schema, schemas), std::string());
        QCOMPARE(ok["output_bytes"].get<uint64_t>(), UINT64_MAX);
        auto asDouble = ok;
        asDouble["input_bytes"] = 1.0;
        QVERIFY(!testsupport::validateJson(asDouble, schema, schemas).empty());
        auto extra = ok;
        extra["surprise"] = 1;
        QVERIFY(!testsupport::validateJson(extra, schema, schemas).empty());
        auto missing = ok;
        missing.erase("threads");
        QVERIFY(!testsupport::validateJson(missing, schema, schemas).empty());
        auto reordered = nlohmann::ordered_json::object();
        reordered["output"] = ok["output"];
        for (auto it = ok.begin(); it != ok.end(); ++it)
            if (it.key() != "output")
                reordered[it.key()] = it.value();
        QVERIFY(!testsupport::validateJson(reordered, schema, schemas).empty());
    }

    // The stack's edges: bytes that are not UTF-8 (a hostile key) print as
    // U+FFFD, so the output stays JSON; a bad document is one sentence with
    // the offset.
    void stackEdges()
    {
        QCOMPARE(cs::dumpJson(cs::Json{{"key", std::string("k\xff\xfe")}}), std::string("{\"key\":\"k\xEF\xBF\xBD\xEF\xBF\xBD\"}"));
        QCOMPARE(cs::dumpJson(cs::Json(UINT64_MAX)), std::string("18446744073709551615"));
        QCOMPARE(cs::dumpJson(cs::Json(int64_t(-9007199254740993LL))), std::string("-9007199254740993"));
        try {
            cs::parseJson("{\"a\": [1, 2", "doc.json");
            QFAIL("parsed a truncated document");
        } catch (const cs::Error& e) {
            QVERIFY2(std::string(e.what()).rfind("doc.json: not JSON at byte 12", 0) == 0, e.what());
        }
        QCOMPARE(cs::integer(cs::field(cs::parseJson("{\"n\": 9223372036854775807}", "n"), "n")), INT64_MAX);
        QCOMPARE(cs::text(cs::field(cs::parseJson("[1]", "a"), "missing"), "fallback"), std::string("fallback"));
    }

    void framesAndSnapshots()
    {
        const QString src = path(QStringLiteral("in.bin"));
        QVERIFY(testsupport::writeFile(src, testsupport::textBytes(3 << 20, 5)));
        const QString snap = path(QStringLiteral("in.zst"));
        const auto c = check({"snapshot", "create", src, snap, "--chunk", "1MiB", "--seek-table", "--threads", "2", "--json"},
                             "snapshot-create");
        QCOMPARE(c["input_bytes"].get<uint64_t>(), uint64_t(3 << 20));
        QCOMPARE(c["data_frames"].get<uint64_t>(), 3u);
        const auto r = check({"snapshot", "restore", snap, path(QStringLiteral("out.bin")), "--json"}, "snapshot-restore");
        QCOMPARE(r["output_bytes"].get<uint64_t>(), uint64_t(3 << 20));
        const auto f = check({"frames", snap, "--json"}, "frames");
        QVERIFY(!f["seek_table"].is_null());
        QCOMPARE(f["summary"]["zstd_frames"].get<uint64_t>(), 3u);
        check({"frames", snap, "--json", "--blocks"}, "frames");
        // A stock zstd stream without a declared size: nulls where documented.
        const QString unsized = path(QStringLiteral("unsized.zst"));
        QCOMPARE(testsupport::zstd({"-q", "-c"}, testsupport::textBytes(100000, 1)).exitCode, 0);
        QVERIFY(testsupport::writeFile(unsized, testsupport::zstd({"-q", "-c"}, testsupport::textBytes(100000, 1)).out));
        const auto u = check({"frames", unsized, "--json"}, "frames");
        QVERIFY(u["summary"]["content_size"].is_null());
    }

    void store()
    {
        const QString dir = path(QStringLiteral("store"));
        const QString a = path(QStringLiteral("a.bin")), b = path(QStringLiteral("b.bin"));
        QVERIFY(testsupport::writeFile(a, testsupport::randomBytes(3 << 20, 1)));
        QVERIFY(testsupport::writeFile(b, testsupport::textBytes(2 << 20, 2)));
        QCOMPARE(cli({"store", "init", dir}).exitCode, 0);
        const auto put = check({"store", "put", "--wait", dir, "key-a", a, "--version", "v1", "--json"}, "entry");
        QCOMPARE(put["size"].get<uint64_t>(), uint64_t(3 << 20));
        QVERIFY(put.contains("merge"));
        check({"store", "put", dir, "key-b", b, "--no-merge", "--part-size", "512KiB", "--json"}, "entry");
        const auto ls = check({"store", "ls", dir, "--json"}, "store-ls");
        QCOMPARE(ls.size(), size_t(2));
        const auto get = check({"store", "get", "--wait", dir, "key", path(QStringLiteral("a.out")), "--restore-key", "key-a",
                                "--version", "v1", "--json"}, "entry");
        QCOMPARE(QString::fromStdString(get["matched_by"].get<std::string>()), QStringLiteral("key-prefix"));
        QCOMPARE(testsupport::sha256OfFile(path(QStringLiteral("a.out"))), testsupport::sha256OfFile(a));
        const auto merged = check({"store", "merge", dir, "--all", "--json"}, "store-merge");
        QCOMPARE(merged.size(), size_t(1));
        check({"store", "evict", dir, "--key", "key-b", "--dry-run", "--json"}, "store-evict");
        check({"store", "fsck", dir, "--json"}, "store-fsck");
        check({"store", "fsck", dir, "--repair", "--json"}, "store-fsck");
        check({"store", "stats", dir, "--json"}, "store-stats");
        check({"store", "evict", dir, "--key", "key-b", "--json"}, "store-evict");
        const auto gc = check({"store", "gc", dir, "--json", "--ranges"}, "gc-stats");
        QVERIFY(gc["reclaimed_bytes"].get<uint64_t>() > 0);
        check({"store", "gc", dir, "--dry-run", "--json"}, "gc-stats");
        const auto history = check({"store", "gc-history", dir, "--json"}, "gc-history");
        QCOMPARE(history["runs"].size(), size_t(2));
        check({"store", "gc-compare", dir, "1", "2", "--json"}, "gc-compare");

        // Byte counts above 2^53 (a double would print 9007199254740992) come
        // back from the catalog and out of the CLI exactly.
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open((dir + QStringLiteral("/catalog.db")).toUtf8().constData(), &db), SQLITE_OK);
        const char* grow = "UPDATE gc_runs SET stats_json = json_set(stats_json, '$.live_bytes', 9007199254740993, "
                           "'$.reclaimed_bytes', 9223372036854775807) WHERE id = 1";
        QCOMPARE(sqlite3_exec(db, grow, nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
        const auto big = cli({"store", "gc-history", dir, "--json"});
        QCOMPARE(big.exitCode, 0);
        QVERIFY2(big.out.contains("\"live_bytes\": 9007199254740993,"), big.out.constData());
        QVERIFY2(big.out.contains("\"reclaimed_bytes\": 9223372036854775807,"), big.out.constData());
        const auto again = check({"store", "gc-history", dir, "--json"}, "gc-history");
        uint64_t seen = 0;
        for (const auto& run : again["runs"])
            if (run["id"] == 1)
                seen = run["stats"]["live_bytes"].get<uint64_t>();
        QCOMPARE(seen, uint64_t(9007199254740993ull));
    }
};

QTEST_GUILESS_MAIN(TestCliJson)
#include "tst_cli_json.moc"
