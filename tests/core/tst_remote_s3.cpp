// The S3 client against a real S3-compatible server (s3rver, started here)
// and libcurl's SigV4 signing against AWS's published example; for GCS
// (gs://), the request its XML API expects for an HMAC key, checked against
// GCS's V4 signing rules computed here from the request as it was sent.
#include "common/TestServers.h"
#include "common/TestSupport.h"

#include "core/remote/S3Client.h"
#include "core/util/Error.h"
#include "core/util/Sha256.h"

#include <QTcpServer>
#include <QTcpSocket>

#include <atomic>
#include <map>
#include <set>
#include <thread>

using namespace cs::remote;

namespace {

// Accepts one connection, keeps the request head, answers 200 with a body.
class CapturingServer {
public:
    CapturingServer() { server_.listen(QHostAddress::LocalHost, 0); }
    quint16 port() const { return server_.serverPort(); }
    // Serves one request (blocking, in the calling thread's event loop).
    QByteArray serveOne(const QByteArray& body)
    {
        if (!server_.waitForNewConnection(30000))
            return {};
        QTcpSocket* c = server_.nextPendingConnection();
        QByteArray head;
        while (!head.contains("\r\n\r\n") && c->waitForReadyRead(10000))
            head += c->readAll();
        c->write("HTTP/1.1 200 OK\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body);
        c->waitForBytesWritten(10000);
        c->disconnectFromHost();
        return head;
    }

private:
    QTcpServer server_;
};

S3Config configFor(const testsupport::S3TestServer& server, const QString& bucket)
{
    S3Config c;
    c.endpoint = server.endpoint().toStdString();
    c.bucket = bucket.toStdString();
    c.accessKeyId = testsupport::S3TestServer::accessKeyId().toStdString();
    c.secretAccessKey = testsupport::S3TestServer::secretAccessKey().toStdString();
    return c;
}

// HMAC-SHA256 (RFC 2104) over cs::Sha256, for checking signatures only.
std::string hmac(const std::string& key, const std::string& message)
{
    std::string k = key;
    if (k.size() > 64) {
        const auto d = cs::Sha256::of(k.data(), k.size());
        k.assign(reinterpret_cast<const char*>(d.data()), d.size());
    }
    k.resize(64, '\0');
    std::string inner(64, '\0'), outer(64, '\0');
    for (size_t i = 0; i < 64; ++i) {
        inner[i] = char(k[i] ^ 0x36);
        outer[i] = char(k[i] ^ 0x5c);
    }
    inner += message;
    const auto ih = cs::Sha256::of(inner.data(), inner.size());
    outer.append(reinterpret_cast<const char*>(ih.data()), ih.size());
    const auto oh = cs::Sha256::of(outer.data(), outer.size());
    return std::string(reinterpret_cast<const char*>(oh.data()), oh.size());
}

std::string hexOf(const std::string& raw)
{
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : raw) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

// The value of a request head's header (case-blind name), "" when absent.
std::string headerOf(const QByteArray& head, const QByteArray& name)
{
    for (const QByteArray& line : head.split('\n')) {
        const qsizetype colon = line.indexOf(':');
        if (colon > 0 && line.left(colon).trimmed().toLower() == name.toLower())
            return line.mid(colon + 1).trimmed().toStdString();
    }
    return {};
}

// GCS's V4 signature of a request as it was sent (cloud.google.com/storage/
// docs/authentication/signatures: canonical request, string to sign with
// GOOG4-HMAC-SHA256 and the scope DATE/auto/storage/goog4_request, signing
// key derived from "GOOG4" + the HMAC secret), independent of libcurl.
std::string gcsSignature(const QByteArray& head, const std::string& secret, const std::string& signedHeaders)
{
    const QByteArray requestLine = head.left(head.indexOf("\r\n"));
    const QList<QByteArray> parts = requestLine.split(' ');
    const QByteArray target = parts.value(1);
    const qsizetype q = target.indexOf('?');
    const std::string path = (q < 0 ? target : target.left(q)).toStdString();
    std::string query = q < 0 ? std::string() : target.mid(q + 1).toStdString(); // sent sorted and encoded
    std::string canonicalHeaders;
    for (const QByteArray& name : QByteArray::fromStdString(signedHeaders).split(';'))
        canonicalHeaders += name.toStdString() + ":" + headerOf(head, name) + "\n";
    const std::string payload = headerOf(head, "x-goog-content-sha256");
    const std::string canonical = parts.value(0).toStdString() + "\n" + path + "\n" + query + "\n" + canonicalHeaders
                                  + "\n" + signedHeaders + "\n" + payload;
    const std::string date = headerOf(head, "x-goog-date");
    const std::string scope = date.substr(0, 8) + "/auto/storage/goog4_request";
    const auto ch = cs::Sha256::of(canonical.data(), canonical.size());
    const std::string toSign = "GOOG4-HMAC-SHA256\n" + date + "\n" + scope + "\n" + cs::Sha256::hex(ch);
    std::string key = hmac("GOOG4" + secret, date.substr(0, 8));
    for (const char* step : {"auto", "storage", "goog4_request"})
        key = hmac(key, step);
    return hexOf(hmac(key, toSign));
}

std::string bytes(size_t n, uint64_t seed)
{
    const QByteArray b = testsupport::randomBytes(qsizetype(n), seed);
    return std::string(b.constData(), size_t(b.size()));
}

} // namespace

class TestRemoteS3 : public QObject {
    Q_OBJECT

    testsupport::S3TestServer server_;

private slots:
    void initTestCase()
    {
        QString why;
        QVERIFY2(server_.start({"tb", "other"}, &why), qPrintable("cannot start the S3 test server: " + why));
    }

    void signatureMatchesAwsPublishedExample()
    {
        // AWS's "Signature Calculations for the Authorization Header" example
        // (GET Object, virtual-hosted style, Range bytes=0-9): libcurl, set up
        // as S3Client sets it up, must produce exactly the published signature.
        S3Config c;
        c.endpoint = "http://s3.amazonaws.com";
        c.bucket = "examplebucket";
        c.virtualHosted = true;
        c.region = "us-east-1";
        c.accessKeyId = "AKIAIOSFODNN7EXAMPLE";
        c.secretAccessKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
        c.fixedAmzDate = "20130524T000000Z";
        c.retries = 0;
        CapturingServer capture;
        c.connectTo = "127.0.0.1:" + std::to_string(capture.port());
        S3Client client(c);
        std::string got;
        std::thread t([&] { client.get("test.txt", [&](const char* d, size_t n) { got.append(d, n); }, 0, 10); });
        const QByteArray head = capture.serveOne("0123456789");
        t.join();
        QCOMPARE(got, std::string("0123456789"));
        QVERIFY2(head.contains("Host: examplebucket.s3.amazonaws.com\r\n"), head.constData());
        QVERIFY2(head.contains("Authorization: AWS4-HMAC-SHA256 "
                               "Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                               "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                               "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"),
                 head.constData());
    }

    void putHeadGetAndRanges()
    {
        S3Client s3(configFor(server_, "tb"));
        const std::string body = bytes(300000, 1);
        s3.put("gh-actions-cache/f1/parts/0", body);
        const auto h = s3.head("gh-actions-cache/f1/parts/0");
        QVERIFY(h.has_value());
        QCOMPARE(h->size, uint64_t(body.size()));
        QVERIFY(!s3.head("gh-actions-cache/f1/parts/1").has_value());
        std::string all;
        QCOMPARE(s3.get("gh-actions-cache/f1/parts/0", [&](const char* d, size_t n) { all.append(d, n); }),
                 uint64_t(body.size()));
        QCOMPARE(all, body);
        std::string part;
        s3.get("gh-actions-cache/f1/parts/0", [&](const char* d, size_t n) { part.append(d, n); }, 1000, 777);
        QCOMPARE(part, body.substr(1000, 777));
        // Keys are data: spaces, unicode, '+', '%', '=' round-trip.
        const std::string odd = "gh-actions-cache/we ird+%=ü/parts/10";
        s3.put(odd, "x");
        QVERIFY(s3.head(odd).has_value());
    }

    void listPagesWithContinuationTokens()
    {
        S3Client s3(configFor(server_, "other"));
        std::set<std::string> want;
        for (int i = 0; i < 23; ++i) {
            const std::string k = "gh-actions-cache/list/parts/" + std::to_string(i);
            s3.put(k, std::string(size_t(i + 1), 'a'));
            want.insert(k);
        }
        s3.put("gh-actions-cache/listing-not-mine", "z");
        std::set<std::string> seen;
        int pages = 0;
        uint64_t total = 0;
        s3.list("gh-actions-cache/list/", [&](const S3Page& page) {
            ++pages;
            QVERIFY(page.size() <= 5);
            for (const auto& o : page) {
                QVERIFY2(seen.insert(o.key).second, o.key.c_str()); // every key once
                total += o.size;
                QVERIFY(!o.etag.empty());
            }
        }, nullptr, 5);
        QCOMPARE(seen, want);
        QCOMPARE(pages, 5);
        QCOMPARE(total, uint64_t(23 * 24 / 2));
    }

    void listManyRunsRequestsInParallel()
    {
        S3Config c = configFor(server_, "other");
        c.maxInFlight = 8;
        S3Client s3(c);
        std::vector<std::string> prefixes;
        for (int f = 0; f < 16; ++f) {
            const std::string prefix = "gh-actions-cache/many-" + std::to_string(f) + "/";
            prefixes.push_back(prefix);
            for (int i = 0; i < 3; ++i)
                s3.put(prefix + "parts/" + std::to_string(i), "p");
        }
        std::map<size_t, int> counts;
        s3.listMany(prefixes, [&](size_t i, const S3Page& page) { counts[i] += int(page.size()); }, nullptr, 2);
        QCOMPARE(int(counts.size()), 16);
        for (const auto& [i, n] : counts)
            QCOMPARE(n, 3);
        QVERIFY2(s3.peakInFlight() > 1, "listMany never had two requests in flight");
        QVERIFY(s3.peakInFlight() <= 8);
    }

    void multipartUploadOfALargeObject()
    {
        S3Client s3(configFor(server_, "tb"));
        const std::string body = bytes((size_t(5) << 20) * 2 + 12345, 7); // two full parts and a short one
        auto up = s3.beginUpload("gh-actions-cache/big/merged", size_t(5) << 20);
        for (size_t off = 0; off < body.size(); off += 100000)
            up->append(body.data() + off, std::min<size_t>(100000, body.size() - off));
        QVERIFY(!s3.head("gh-actions-cache/big/merged").has_value()); // nothing visible before complete
        up->complete();
        std::string back;
        s3.get("gh-actions-cache/big/merged", [&](const char* d, size_t n) { back.append(d, n); });
        QCOMPARE(back.size(), body.size());
        QVERIFY(back == body);
        // An upload dropped before complete leaves no object.
        {
            auto dropped = s3.beginUpload("gh-actions-cache/big/dropped", size_t(5) << 20);
            dropped->append(body.data(), (size_t(5) << 20) + 1);
        }
        QVERIFY(!s3.head("gh-actions-cache/big/dropped").has_value());
    }

    void deleteObjectsInBatches()
    {
        S3Client s3(configFor(server_, "tb"));
        std::vector<std::string> keys;
        for (int i = 0; i < 30; ++i) {
            keys.push_back("gh-actions-cache/del/parts/" + std::to_string(i));
            s3.put(keys.back(), "d");
        }
        keys.push_back("gh-actions-cache/del/never-existed");
        s3.deleteObjects(keys);
        int left = 0;
        s3.list("gh-actions-cache/del/", [&](const S3Page& p) { left += int(p.size()); });
        QCOMPARE(left, 0);
    }

    void errorsNameBucketAndKeyButNotTheSecret()
    {
        S3Config c = configFor(server_, "no-such-bucket");
        c.secretAccessKey = "TOPSECRET-do-not-print";
        S3Client s3(c);
        try {
            s3.put("gh-actions-cache/x/merged", "1");
            QFAIL("a PUT into a missing bucket succeeded");
        } catch (const cs::Error& e) {
            const std::string m = e.what();
            QVERIFY2(m.find("s3://no-such-bucket/gh-actions-cache/x/merged") != std::string::npos, m.c_str());
            QVERIFY2(m.find("NoSuchBucket") != std::string::npos, m.c_str());
            QVERIFY2(m.find("TOPSECRET") == std::string::npos, m.c_str());
        }
        // Missing object on GET: named.
        S3Client ok(configFor(server_, "tb"));
        try {
            ok.get("gh-actions-cache/missing/merged", [](const char*, size_t) {});
            QFAIL("GET of a missing object succeeded");
        } catch (const cs::Error& e) {
            QVERIFY2(std::string(e.what()).find("gh-actions-cache/missing/merged") != std::string::npos, e.what());
        }
    }

    void connectionRefusedIsRetriedThenNamed()
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        const quint16 port = probe.serverPort();
        probe.close(); // nothing listens there now
        S3Config c;
        c.endpoint = "http://127.0.0.1:" + std::to_string(port);
        c.bucket = "tb";
        c.retries = 2;
        S3Client s3(c);
        try {
            s3.head("k");
            QFAIL("HEAD against a closed port succeeded");
        } catch (const cs::Error& e) {
            QVERIFY2(std::string(e.what()).find("s3://tb/k") != std::string::npos, e.what());
        }
        QCOMPARE(s3.retriesDone(), uint64_t(2));
        QCOMPARE(s3.requestsSent(), uint64_t(3));
    }

    void locationsParse()
    {
        const S3Config c = S3Config::fromLocation("s3://my-bucket/some/prefix/", "http://127.0.0.1:9000/", "eu-west-1");
        QCOMPARE(c.bucket, std::string("my-bucket"));
        QCOMPARE(c.prefix, std::string("some/prefix"));
        QCOMPARE(c.endpoint, std::string("http://127.0.0.1:9000"));
        QCOMPARE(c.region, std::string("eu-west-1"));
        QCOMPARE(c.keyOf("gh-actions-cache/a/merged"), std::string("some/prefix/gh-actions-cache/a/merged"));
        QVERIFY_THROWS_EXCEPTION(cs::Error, S3Config::fromLocation("http://bucket"));
        QVERIFY_THROWS_EXCEPTION(cs::Error, S3Config::fromLocation("s3://A_Bad/x"));
        QCOMPARE(uriEncode("a b/ü+~", false), std::string("a%20b/%C3%BC%2B~"));
        QCOMPARE(c.scheme, std::string("s3"));
        QVERIFY(c.signing == S3Signing::Aws4);
    }

    void gcsLocationsParse()
    {
        qputenv("GOOGLE_HMAC_ACCESS_ID", "GOOGTS7C7FUP3AIRVJTE2BCD");
        qputenv("GOOGLE_HMAC_SECRET", "bGoa+V7g/yqDXvKRqq+JTFn4uQZbPiQJo4pf9RzJ");
        qputenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9");   // S3's settings do not leak into GCS
        qputenv("AWS_REGION", "eu-west-1");
        qunsetenv("CACHESCOPE_GCS_SIGNING");
        const S3Config c = S3Config::fromLocation("gs://my-bucket");
        QCOMPARE(c.scheme, std::string("gs"));
        QCOMPARE(c.bucket, std::string("my-bucket"));
        QCOMPARE(c.prefix, std::string());
        QCOMPARE(c.endpoint, std::string("https://storage.googleapis.com"));
        QCOMPARE(c.region, std::string("auto"));
        QVERIFY(c.signing == S3Signing::Goog4);
        QCOMPARE(c.accessKeyId, std::string("GOOGTS7C7FUP3AIRVJTE2BCD"));
        QCOMPARE(c.secretAccessKey, std::string("bGoa+V7g/yqDXvKRqq+JTFn4uQZbPiQJo4pf9RzJ"));
        QCOMPARE(c.describe(), std::string("gs://my-bucket at https://storage.googleapis.com"));
        QCOMPARE(c.urlOf("gh-actions-cache/1/merged"), std::string("gs://my-bucket/gh-actions-cache/1/merged"));
        const S3Config rooted = S3Config::fromLocation("gs://my-bucket/team/root/", "http://127.0.0.1:4443/");
        QCOMPARE(rooted.prefix, std::string("team/root"));
        QCOMPARE(rooted.endpoint, std::string("http://127.0.0.1:4443"));
        QCOMPARE(rooted.describe(), std::string("gs://my-bucket/team/root at http://127.0.0.1:4443"));
        qputenv("CACHESCOPE_GCS_SIGNING", "aws4");
        QVERIFY(S3Config::fromLocation("gs://my-bucket").signing == S3Signing::Aws4);
        qputenv("CACHESCOPE_GCS_SIGNING", "v2");
        QVERIFY(testsupport::errorOf([] { S3Config::fromLocation("gs://my-bucket"); }).find("CACHESCOPE_GCS_SIGNING=v2")
                != std::string::npos);
        qunsetenv("CACHESCOPE_GCS_SIGNING");
        const std::string bad = testsupport::errorOf([] { S3Config::fromLocation("gs://Not_A_Bucket"); });
        QVERIFY2(bad.find("gs://Not_A_Bucket") != std::string::npos && bad.find("bucket name") != std::string::npos,
                 bad.c_str());
        QVERIFY(testsupport::errorOf([] { S3Config::fromLocation("gs://ok-bucket", "ftp://x"); }).find("http")
                != std::string::npos);
        QVERIFY(testsupport::errorOf([] { S3Config::fromLocation("gcs://bucket"); }).find("gs://BUCKET")
                != std::string::npos);
        for (const char* v : {"GOOGLE_HMAC_ACCESS_ID", "GOOGLE_HMAC_SECRET", "AWS_ENDPOINT_URL", "AWS_REGION"})
            qunsetenv(v);
    }

    void gcsRequestsAreSignedTheWayGcsWantsForAnHmacKey()
    {
        // A listing and a PUT as GCS's XML API gets them, recorded by a
        // listener standing in for storage.googleapis.com (the URL, and so
        // the Host header and the signature, stay GCS's).
        S3Config c = S3Config::fromLocation("gs://my-bucket/root", "http://storage.googleapis.com");
        c.accessKeyId = "GOOGTS7C7FUP3AIRVJTE2BCD";
        c.secretAccessKey = "bGoa+V7g/yqDXvKRqq+JTFn4uQZbPiQJo4pf9RzJ";
        c.fixedAmzDate = "20261202T120000Z";
        c.retries = 0;
        CapturingServer capture;
        c.connectTo = "127.0.0.1:" + std::to_string(capture.port());
        S3Client client(c);
        S3Page page;
        std::thread t([&] { page = client.listFirst(c.keyOf("gh-actions-cache/"), 1); });
        const QByteArray list = capture.serveOne(
            "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>root/gh-actions-cache/1/merged</Key>"
            "<Size>7</Size><ETag>\"e\"</ETag></Contents></ListBucketResult>");
        t.join();
        QCOMPARE(int(page.size()), 1);
        QCOMPARE(page[0].key, std::string("root/gh-actions-cache/1/merged"));
        QVERIFY2(list.startsWith("GET /my-bucket/?list-type=2&max-keys=1&prefix=root%2Fgh-actions-cache%2F HTTP/1.1\r\n"),
                 list.constData());
        QCOMPARE(headerOf(list, "Host"), std::string("storage.googleapis.com"));
        QCOMPARE(headerOf(list, "x-goog-date"), std::string("20261202T120000Z"));
        QCOMPARE(headerOf(list, "x-goog-content-sha256"),
                 std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
        QVERIFY2(!list.toLower().contains("x-amz-"), list.constData());
        const std::string auth = headerOf(list, "Authorization");
        const std::string signedHeaders = "host;x-goog-content-sha256;x-goog-date";
        QCOMPARE(auth, "GOOG4-HMAC-SHA256 Credential=GOOGTS7C7FUP3AIRVJTE2BCD/20261202/auto/storage/goog4_request, "
                       "SignedHeaders=" + signedHeaders + ", Signature="
                           + gcsSignature(list, c.secretAccessKey, signedHeaders));

        const std::string body = "merged bytes";
        std::thread put([&] { client.put(c.keyOf("gh-actions-cache/1/merged"), body); });
        const QByteArray head = capture.serveOne("");
        put.join();
        QVERIFY2(head.startsWith("PUT /my-bucket/root/gh-actions-cache/1/merged HTTP/1.1\r\n"), head.constData());
        QCOMPARE(headerOf(head, "x-goog-content-sha256"), cs::Sha256::hex(cs::Sha256::of(body.data(), body.size())));
        const std::string putHeaders = "content-type;host;x-goog-content-sha256;x-goog-date";
        QCOMPARE(headerOf(head, "Authorization"),
                 "GOOG4-HMAC-SHA256 Credential=GOOGTS7C7FUP3AIRVJTE2BCD/20261202/auto/storage/goog4_request, "
                 "SignedHeaders=" + putHeaders + ", Signature=" + gcsSignature(head, c.secretAccessKey, putHeaders));
    }
};

QTEST_GUILESS_MAIN(TestRemoteS3)
#include "tst_remote_s3.moc"
