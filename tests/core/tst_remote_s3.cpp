// The S3 client against a real S3-compatible server (s3rver, started here)
// and libcurl's SigV4 signing against AWS's published example.
#include "common/TestServers.h"
#include "common/TestSupport.h"

#include "core/remote/S3Client.h"
#include "core/util/Error.h"

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
    }
};

QTEST_GUILESS_MAIN(TestRemoteS3)
#include "tst_remote_s3.moc"
