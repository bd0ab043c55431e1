// A client for S3-compatible object storage on libcurl, which signs every
// request itself (CURLOPT_AWS_SIGV4): nothing here computes a signature.
//
// What it does: ListObjectsV2 pages with continuation tokens (and several
// prefixes listed in parallel), HEAD, ranged GET streamed to a sink, PUT,
// multipart upload for large objects, batched DeleteObjects. Connections are
// reused (one curl handle per worker, kept in a pool); at most
// S3Config::maxInFlight requests run at once; 5xx, throttling (429,
// SlowDown) and transport errors are retried with exponential backoff and
// jitter, a GET resuming where it stopped. Every failure throws cs::Error
// with one sentence naming s3://bucket/key and what the server said; the
// credentials never appear in it.
//
// Thread-safe: one client may serve several threads.
#pragma once
#include "core/remote/S3Config.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cs {
class Job;
}

namespace cs::remote {

struct S3Object {
    std::string key;        // full object key
    uint64_t size = 0;
    std::string etag;       // without quotes
};

using S3Page = std::vector<S3Object>;
using ByteSink = std::function<void(const char* data, size_t size)>;

class S3Client {
public:
    explicit S3Client(S3Config config);
    ~S3Client();
    S3Client(const S3Client&) = delete;
    S3Client& operator=(const S3Client&) = delete;

    const S3Config& config() const { return config_; }

    // Every object whose key starts with keyPrefix, a page (<= maxKeys) at a
    // time: memory is one page, whatever the bucket holds. job (optional) is
    // checked for cancel between pages and during transfers.
    void list(const std::string& keyPrefix, const std::function<void(const S3Page&)>& onPage, Job* job = nullptr,
              int maxKeys = 1000);
    // Only the first page (up to maxKeys objects): one request, whatever
    // the bucket holds (an existence and credentials check).
    S3Page listFirst(const std::string& keyPrefix, int maxKeys = 1, Job* job = nullptr);
    // Lists each prefix, up to maxInFlight of them at once. onPage(index of
    // the prefix, page) calls are serialized.
    void listMany(const std::vector<std::string>& keyPrefixes,
                  const std::function<void(size_t prefixIndex, const S3Page&)>& onPage, Job* job = nullptr,
                  int maxKeys = 1000);

    // nullopt when the object does not exist.
    std::optional<S3Object> head(const std::string& key, Job* job = nullptr);
    // Streams bytes [offset, offset + size) (size 0: to the end) to sink;
    // returns how many were delivered.
    uint64_t get(const std::string& key, const ByteSink& sink, uint64_t offset = 0, uint64_t size = 0,
                 Job* job = nullptr);
    // One PUT of a whole object (S3 takes up to 5 GiB this way).
    void put(const std::string& key, std::string_view body, Job* job = nullptr);
    // Deletes keys, 1000 per request; a key that does not exist is not an
    // error (S3 semantics). Throws naming the first key S3 refused.
    void deleteObjects(const std::vector<std::string>& keys, Job* job = nullptr);

    // Writes one large object with bounded memory: bytes are buffered to
    // partSize (>= 5 MiB, S3's minimum) and sent as multipart parts; an
    // object smaller than one part goes as one PUT. Nothing is visible under
    // the key until complete(); destroying an upload that was not completed
    // aborts it (S3 frees the parts).
    class Upload {
    public:
        ~Upload();
        void append(const void* data, size_t size);
        void complete();
        void abort();
        uint64_t bytes() const { return bytes_; }

    private:
        friend class S3Client;
        Upload(S3Client& client, std::string key, size_t partSize, Job* job);
        void sendPart();
        S3Client& client_;
        std::string key_;
        size_t partSize_;
        Job* job_;
        std::string buffer_;
        std::string uploadId_;
        std::vector<std::string> etags_;
        uint64_t bytes_ = 0;
        bool done_ = false;
    };
    std::unique_ptr<Upload> beginUpload(const std::string& key, size_t partSize = size_t(8) << 20, Job* job = nullptr);

    // Requests sent and retried since construction (for tests and benchmarks).
    uint64_t requestsSent() const;
    uint64_t retriesDone() const;
    int peakInFlight() const;
    // The same over every client of this process (a backend keeps its client
    // private; benchmarks and tests read these).
    static uint64_t processRequestsSent();
    static int processPeakInFlight();
    static void resetProcessPeakInFlight();   // tests: measure one operation
    // Seconds this process spent with n requests in flight, at index n (from
    // the first request on): the time-weighted concurrency of an operation.
    static std::vector<double> processSecondsAtInFlight();

    struct Request;
    struct Response;

private:
    Response perform(Request& request, Job* job);
    // One ListObjectsV2 request; token: in, where to start (empty: the
    // first page); out, where the next page starts (empty after the last).
    S3Page listPage(const std::string& keyPrefix, std::string& token, int maxKeys, Job* job);
    std::string location(const std::string& key) const; // "s3://bucket/key" for messages

    S3Config config_;
    struct Pool;
    std::unique_ptr<Pool> pool_;
};

// RFC 3986 percent-encoding as SigV4 wants it (unreserved kept, '/' kept
// when encodeSlash is false).
std::string uriEncode(std::string_view s, bool encodeSlash);

} // namespace cs::remote
