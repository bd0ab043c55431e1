#include "core/remote/S3Client.h"

#include "core/jobs/Job.h"
#include "core/remote/S3Xml.h"
#include "core/util/Error.h"
#include "core/util/Sha256.h"

#include <curl/curl.h>
#include <openssl/evp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>

namespace cs::remote {

namespace {

constexpr size_t kMaxAnswerBytes = size_t(16) << 20; // an XML answer larger than this is refused
constexpr size_t kMinPartBytes = size_t(5) << 20;    // S3's smallest multipart part (but the last)
const char* const kEmptySha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

struct CurlGlobal {
    CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

std::string base64(const unsigned char* data, size_t size)
{
    std::string out(4 * ((size + 2) / 3) + 1, '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, int(size));
    out.resize(size_t(n));
    return out;
}

std::string md5Base64(std::string_view body)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(body.data(), body.size(), md, &len, EVP_md5(), nullptr);
    return base64(md, len);
}

std::string trimQuotes(std::string s)
{
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"')
        s = s.substr(1, s.size() - 2);
    return s;
}

std::string lower(std::string s)
{
    for (char& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

} // namespace

std::string uriEncode(std::string_view s, bool encodeSlash)
{
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size() * 3);
    for (unsigned char c : s) {
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
            c == '.' || c == '~' || (c == '/' && !encodeSlash))
            out += char(c);
        else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

struct S3Client::Request {
    std::string method = "GET";
    std::string key;                      // empty: the bucket itself
    std::vector<std::pair<std::string, std::string>> query; // sorted by name before sending
    std::vector<std::string> headers;     // "Name: value"
    std::string_view body;
    const ByteSink* sink = nullptr;       // GET: stream the body here instead of buffering it
    uint64_t rangeStart = 0, rangeSize = 0; // GET: a byte range (size 0: to the end)
    bool ranged = false;
};

struct S3Client::Response {
    long status = 0;
    std::string body;                     // when not streamed; bounded by kMaxAnswerBytes
    std::string etag;
    uint64_t contentLength = 0;
    uint64_t delivered = 0;               // streamed bytes
};

namespace {
std::atomic<uint64_t> gProcessSent{0};
std::atomic<int> gProcessInFlight{0}, gProcessPeak{0};

// How long the process spent with each number of requests in flight: a peak
// can be one instant, the time at each level says how parallel a whole
// operation really was. Changes come in order under the mutex, so the
// intervals tile the time since the first request.
struct FlightClock {
    std::mutex mutex;
    int level = 0;
    std::chrono::steady_clock::time_point last{};
    std::vector<double> seconds;

    void change(int delta)
    {
        const auto now = std::chrono::steady_clock::now();
        std::lock_guard g(mutex);
        if (last != std::chrono::steady_clock::time_point{}) {
            if (seconds.size() <= size_t(level))
                seconds.resize(size_t(level) + 1, 0.0);
            seconds[size_t(level)] += std::chrono::duration<double>(now - last).count();
        }
        last = now;
        level += delta;
    }
};
FlightClock gFlightClock;

void processFlightChange(int delta)
{
    const int now = gProcessInFlight.fetch_add(delta) + delta;
    for (int seen = gProcessPeak.load(); now > seen && !gProcessPeak.compare_exchange_weak(seen, now);) {
    }
    gFlightClock.change(delta);
}
} // namespace

struct S3Client::Pool {
    std::mutex mutex;
    std::vector<CURL*> idle;
    int inFlight = 0;
    int peak = 0;
    std::atomic<uint64_t> sent{0}, retried{0};
    std::condition_variable_any freed;
    int limit = 8;

    CURL* take()
    {
        std::unique_lock lock(mutex);
        freed.wait(lock, [&] { return inFlight < limit; });
        ++inFlight;
        peak = std::max(peak, inFlight);
        processFlightChange(+1);
        if (!idle.empty()) {
            CURL* h = idle.back();
            idle.pop_back();
            return h;
        }
        lock.unlock();
        CURL* h = curl_easy_init();
        if (!h) {
            std::lock_guard g(mutex);
            --inFlight;
            processFlightChange(-1);
            freed.notify_one();
            throw Error("S3: cannot create a curl handle (out of memory)");
        }
        return h;
    }
    void give(CURL* h)
    {
        std::lock_guard g(mutex);
        curl_easy_reset(h); // keeps the handle's connection cache
        idle.push_back(h);
        --inFlight;
        processFlightChange(-1);
        freed.notify_one();
    }
    ~Pool()
    {
        for (CURL* h : idle)
            curl_easy_cleanup(h);
    }
};

S3Client::S3Client(S3Config config) : config_(std::move(config)), pool_(std::make_unique<Pool>())
{
    static CurlGlobal global;
    pool_->limit = std::max(1, config_.maxInFlight);
}

S3Client::~S3Client() = default;

uint64_t S3Client::requestsSent() const { return pool_->sent.load(); }
uint64_t S3Client::processRequestsSent() { return gProcessSent.load(); }
int S3Client::processPeakInFlight() { return gProcessPeak.load(); }
void S3Client::resetProcessPeakInFlight() { gProcessPeak.store(gProcessInFlight.load()); }
std::vector<double> S3Client::processSecondsAtInFlight()
{
    std::lock_guard g(gFlightClock.mutex);
    return gFlightClock.seconds;
}
uint64_t S3Client::retriesDone() const { return pool_->retried.load(); }
int S3Client::peakInFlight() const
{
    std::lock_guard g(pool_->mutex);
    return pool_->peak;
}

std::string S3Client::location(const std::string& key) const { return config_.urlOf(key); }

namespace {

struct Transfer {
    S3Client::Response* response;
    const ByteSink* sink;
    Job* job;
    bool tooLarge = false;
    std::string sinkError;
};

size_t onBody(char* data, size_t size, size_t count, void* user)
{
    auto* t = static_cast<Transfer*>(user);
    const size_t n = size * count;
    if (t->sink) {
        try {
            (*t->sink)(data, n);
        } catch (const std::exception& e) {
            t->sinkError = e.what();
            return 0;
        }
        t->response->delivered += n;
        return n;
    }
    if (t->response->body.size() + n > kMaxAnswerBytes) {
        t->tooLarge = true;
        return 0;
    }
    t->response->body.append(data, n);
    return n;
}

size_t onHeader(char* data, size_t size, size_t count, void* user)
{
    auto* t = static_cast<Transfer*>(user);
    const size_t n = size * count;
    std::string line(data, n);
    const size_t colon = line.find(':');
    if (colon != std::string::npos) {
        const std::string name = lower(line.substr(0, colon));
        std::string value = line.substr(colon + 1);
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
            value.erase(value.begin());
        while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
            value.pop_back();
        if (name == "etag")
            t->response->etag = trimQuotes(value);
        else if (name == "content-length")
            t->response->contentLength = std::strtoull(value.c_str(), nullptr, 10);
    }
    return n;
}

int onProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t)
{
    auto* t = static_cast<Transfer*>(user);
    return t->job && t->job->isCancelled() ? 1 : 0;
}

bool retryableStatus(long status, const std::string& body)
{
    if (status == 429 || status == 500 || status == 502 || status == 503 || status == 504)
        return true;
    if (status == 400 || status == 403) {
        const auto code = xml::firstText(body, "Code");
        return code && (*code == "RequestTimeout" || *code == "SlowDown" || *code == "RequestTimeTooSkewed");
    }
    return false;
}

bool retryableCurl(CURLcode rc)
{
    switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_COULDNT_RESOLVE_HOST:
        return true;
    default:
        return false;
    }
}

} // namespace

S3Client::Response S3Client::perform(Request& req, Job* job)
{
    std::sort(req.query.begin(), req.query.end());
    std::string url;
    if (config_.virtualHosted) {
        const size_t hostAt = config_.endpoint.find("://") + 3;
        url = config_.endpoint.substr(0, hostAt) + config_.bucket + "." + config_.endpoint.substr(hostAt) + "/" +
              uriEncode(req.key, false);
    } else
        url = config_.endpoint + "/" + uriEncode(config_.bucket, true) + "/" + uriEncode(req.key, false);
    if (!req.query.empty()) {
        std::string q;
        for (const auto& [name, value] : req.query)
            q += (q.empty() ? "" : "&") + uriEncode(name, true) + "=" + uriEncode(value, true);
        url += "?" + q;
    }
    const std::string where = location(req.key);
    // libcurl builds the algorithm from the first provider (AWS4-, GOOG4-HMAC-SHA256),
    // the x-...-date header from the second, the scope from region and service.
    const bool goog = config_.signing == S3Signing::Goog4;
    const std::string provider = goog ? "goog:goog:" + config_.region + ":storage" : "aws:amz:" + config_.region + ":s3";
    const std::string headerPrefix = goog ? "x-goog-" : "x-amz-";
    const std::string payloadHash =
        req.body.empty() ? std::string(kEmptySha256) : Sha256::hex(Sha256::of(req.body.data(), req.body.size()));
    std::mt19937_64 jitter(std::random_device{}());

    for (int attempt = 0;; ++attempt) {
        if (job)
            job->checkCancel();
        Response res;
        Transfer transfer{&res, req.sink, job, false, {}};
        curl_slist* headers = nullptr;
        headers = curl_slist_append(headers, (headerPrefix + "content-sha256: " + payloadHash).c_str());
        if (!goog && !config_.sessionToken.empty())
            headers = curl_slist_append(headers, ("x-amz-security-token: " + config_.sessionToken).c_str());
        for (const auto& h : req.headers)
            headers = curl_slist_append(headers, h.c_str());
        // An explicit content type, not libcurl's form default. Never add an
        // empty "Name:" header to suppress one of libcurl's: libcurl 7.88 signs
        // it although it does not send it, and the signature no longer matches.
        if (req.method == "PUT" || req.method == "POST")
            headers = curl_slist_append(headers, req.body.substr(0, 1) == "<" ? "Content-Type: application/xml"
                                                                                : "Content-Type: application/octet-stream");
        // A GET that failed half way resumes after what the sink already has.
        // The range goes as a header (not CURLOPT_RANGE) so that it is signed.
        if (req.sink && (req.ranged || req.rangeStart > 0)) {
            const uint64_t from = req.rangeStart;
            const std::string range =
                "Range: bytes=" + std::to_string(from) + "-" + (req.rangeSize ? std::to_string(from + req.rangeSize - 1) : "");
            headers = curl_slist_append(headers, range.c_str());
        }
        if (!config_.fixedAmzDate.empty())
            headers = curl_slist_append(headers, ((goog ? "X-Goog-Date: " : "X-Amz-Date: ") + config_.fixedAmzDate).c_str());
        curl_slist* connectTo = nullptr;
        if (!config_.connectTo.empty()) {
            const size_t hostAt = url.find("://") + 3;
            const size_t hostEnd = url.find('/', hostAt);
            std::string host = url.substr(hostAt, hostEnd - hostAt);
            if (host.find(':') == std::string::npos)
                host += url.rfind("https", 0) == 0 ? ":443" : ":80";
            connectTo = curl_slist_append(nullptr, (host + ":" + config_.connectTo).c_str());
        }

        CURL* h = pool_->take();
        curl_easy_setopt(h, CURLOPT_URL, url.c_str());
        curl_easy_setopt(h, CURLOPT_AWS_SIGV4, provider.c_str());
        curl_easy_setopt(h, CURLOPT_USERNAME, config_.accessKeyId.c_str());
        curl_easy_setopt(h, CURLOPT_PASSWORD, config_.secretAccessKey.c_str());
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, onBody);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &transfer);
        curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, onHeader);
        curl_easy_setopt(h, CURLOPT_HEADERDATA, &transfer);
        curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, onProgress);
        curl_easy_setopt(h, CURLOPT_XFERINFODATA, &transfer);
        curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, config_.connectTimeoutSeconds);
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, config_.lowSpeedSeconds);
        curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        if (connectTo)
            curl_easy_setopt(h, CURLOPT_CONNECT_TO, connectTo);
        if (req.method == "HEAD")
            curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
        else if (req.method != "GET")
            curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
        if (req.method == "PUT" || req.method == "POST") {
            // POSTFIELDS (not a read callback) so that libcurl's SigV4 hashes the body.
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(req.body.size()));
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.data());
        }
        char errbuf[CURL_ERROR_SIZE] = {0};
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
        pool_->sent.fetch_add(1);
        gProcessSent.fetch_add(1);
        const CURLcode rc = curl_easy_perform(h);
        long status = 0;
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
        res.status = status;
        pool_->give(h);
        curl_slist_free_all(headers);
        curl_slist_free_all(connectTo);

        if (rc == CURLE_ABORTED_BY_CALLBACK && job && job->isCancelled())
            throw Cancelled();
        if (!transfer.sinkError.empty())
            throw Error(transfer.sinkError);
        if (transfer.tooLarge)
            fail(where, "the server's answer is larger than " + std::to_string(kMaxAnswerBytes >> 20) +
                            " MiB; refusing to hold it");
        const bool ok = rc == CURLE_OK && status >= 200 && status < 300;
        if (ok || (rc == CURLE_OK && req.method == "HEAD" && status == 404))
            return res;
        // A streamed GET that failed after delivering bytes cannot hand the
        // error body to us (it went to the sink); only transport errors are
        // retried there, resuming after what was delivered.
        const bool retry =
            (rc != CURLE_OK && retryableCurl(rc)) || (rc == CURLE_OK && retryableStatus(status, res.body));
        if (retry && attempt < config_.retries) {
            pool_->retried.fetch_add(1);
            if (req.sink && res.delivered) {
                req.rangeStart += res.delivered;
                if (req.rangeSize)
                    req.rangeSize -= res.delivered;
                req.ranged = true;
            }
            const double base = 0.1 * double(1u << std::min(attempt, 6));
            std::uniform_real_distribution<double> d(0.5, 1.5);
            std::this_thread::sleep_for(std::chrono::duration<double>(std::min(5.0, base * d(jitter))));
            continue;
        }
        if (rc != CURLE_OK)
            fail(where, std::string(req.method) + " failed at " + config_.endpoint + ": " +
                            (errbuf[0] ? errbuf : curl_easy_strerror(rc)));
        const auto code = xml::firstText(res.body, "Code");
        const auto message = xml::firstText(res.body, "Message");
        fail(where, req.method + " answered HTTP " + std::to_string(status) + (code ? " " + *code : "") +
                        (message ? ": " + *message : ""));
    }
}

S3Page S3Client::listPage(const std::string& keyPrefix, std::string& token, int maxKeys, Job* job)
{
    Request req;
    req.query = {{"list-type", "2"}, {"max-keys", std::to_string(maxKeys)}, {"prefix", keyPrefix}};
    if (!token.empty())
        req.query.push_back({"continuation-token", token});
    const Response res = perform(req, job);
    S3Page page;
    for (std::string_view c : xml::elements(res.body, "Contents")) {
        S3Object o;
        o.key = xml::firstText(c, "Key").value_or("");
        const std::string size = xml::firstText(c, "Size").value_or("0");
        o.size = std::strtoull(size.c_str(), nullptr, 10);
        o.etag = trimQuotes(xml::firstText(c, "ETag").value_or(""));
        page.push_back(std::move(o));
    }
    const bool truncated = xml::firstText(res.body, "IsTruncated").value_or("false") == "true";
    if (!truncated) {
        token.clear();
        return page;
    }
    const auto next = xml::firstText(res.body, "NextContinuationToken");
    if (!next || next->empty() || *next == token)
        fail(location(keyPrefix), "the listing is truncated but gives no new continuation token");
    token = *next;
    return page;
}

void S3Client::list(const std::string& keyPrefix, const std::function<void(const S3Page&)>& onPage, Job* job,
                    int maxKeys)
{
    std::string token;
    do {
        onPage(listPage(keyPrefix, token, maxKeys, job));
    } while (!token.empty());
}

S3Page S3Client::listFirst(const std::string& keyPrefix, int maxKeys, Job* job)
{
    std::string token;
    return listPage(keyPrefix, token, maxKeys, job);
}

void S3Client::listMany(const std::vector<std::string>& keyPrefixes,
                        const std::function<void(size_t, const S3Page&)>& onPage, Job* job, int maxKeys)
{
    std::atomic<size_t> next{0};
    std::mutex m;
    std::exception_ptr error;
    std::atomic<bool> stop{false};
    auto worker = [&] {
        while (!stop) {
            const size_t i = next.fetch_add(1);
            if (i >= keyPrefixes.size())
                return;
            try {
                list(keyPrefixes[i], [&](const S3Page& page) {
                    std::lock_guard g(m);
                    onPage(i, page);
                }, job, maxKeys);
            } catch (...) {
                std::lock_guard g(m);
                if (!error)
                    error = std::current_exception();
                stop = true;
            }
        }
    };
    const size_t n = std::min<size_t>(size_t(std::max(1, config_.maxInFlight)), keyPrefixes.size());
    std::vector<std::thread> threads;
    for (size_t t = 1; t < n; ++t)
        threads.emplace_back(worker);
    worker();
    for (auto& t : threads)
        t.join();
    if (error)
        std::rethrow_exception(error);
}

std::optional<S3Object> S3Client::head(const std::string& key, Job* job)
{
    Request req;
    req.method = "HEAD";
    req.key = key;
    const Response res = perform(req, job);
    if (res.status == 404)
        return std::nullopt;
    return S3Object{key, res.contentLength, res.etag};
}

uint64_t S3Client::get(const std::string& key, const ByteSink& sink, uint64_t offset, uint64_t size, Job* job)
{
    Request req;
    req.key = key;
    req.sink = &sink;
    req.rangeStart = offset;
    req.rangeSize = size;
    req.ranged = offset > 0 || size > 0;
    uint64_t total = 0;
    const ByteSink counting = [&](const char* d, size_t n) {
        total += n;
        sink(d, n);
    };
    req.sink = &counting;
    perform(req, job);
    return total;
}

void S3Client::put(const std::string& key, std::string_view body, Job* job)
{
    Request req;
    req.method = "PUT";
    req.key = key;
    req.body = body;
    perform(req, job);
}

void S3Client::deleteObjects(const std::vector<std::string>& keys, Job* job)
{
    for (size_t start = 0; start < keys.size(); start += 1000) {
        const size_t end = std::min(keys.size(), start + 1000);
        std::string body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Delete><Quiet>true</Quiet>";
        for (size_t i = start; i < end; ++i)
            body += "<Object><Key>" + xml::escape(keys[i]) + "</Key></Object>";
        body += "</Delete>";
        Request req;
        req.method = "POST";
        req.query = {{"delete", ""}};
        req.body = body;
        req.headers.push_back("Content-MD5: " + md5Base64(body));
        const Response res = perform(req, job);
        for (std::string_view e : xml::elements(res.body, "Error")) {
            const std::string k = xml::firstText(e, "Key").value_or("");
            const std::string code = xml::firstText(e, "Code").value_or("error");
            const std::string message = xml::firstText(e, "Message").value_or("");
            fail(location(k), "DeleteObjects refused it: " + code + (message.empty() ? "" : ": " + message));
        }
    }
}

std::unique_ptr<S3Client::Upload> S3Client::beginUpload(const std::string& key, size_t partSize, Job* job)
{
    return std::unique_ptr<Upload>(new Upload(*this, key, std::max(partSize, kMinPartBytes), job));
}

S3Client::Upload::Upload(S3Client& client, std::string key, size_t partSize, Job* job)
    : client_(client), key_(std::move(key)), partSize_(partSize), job_(job)
{
    buffer_.reserve(partSize_);
}

S3Client::Upload::~Upload()
{
    if (!done_) {
        try {
            abort();
        } catch (...) {
            // Best effort: S3 lifecycle rules reap abandoned uploads.
        }
    }
}

void S3Client::Upload::append(const void* data, size_t size)
{
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
        const size_t n = std::min(size, partSize_ - buffer_.size());
        buffer_.append(p, n);
        p += n;
        size -= n;
        bytes_ += n;
        if (buffer_.size() == partSize_)
            sendPart();
    }
}

void S3Client::Upload::sendPart()
{
    if (uploadId_.empty()) {
        Request req;
        req.method = "POST";
        req.key = key_;
        req.query = {{"uploads", ""}};
        const Response res = client_.perform(req, job_);
        const auto id = xml::firstText(res.body, "UploadId");
        if (!id || id->empty())
            fail(client_.location(key_), "CreateMultipartUpload answered without an UploadId");
        uploadId_ = *id;
    }
    Request req;
    req.method = "PUT";
    req.key = key_;
    req.query = {{"partNumber", std::to_string(etags_.size() + 1)}, {"uploadId", uploadId_}};
    req.body = buffer_;
    const Response res = client_.perform(req, job_);
    if (res.etag.empty())
        fail(client_.location(key_), "UploadPart " + std::to_string(etags_.size() + 1) + " answered without an ETag");
    etags_.push_back(res.etag);
    buffer_.clear();
}

void S3Client::Upload::complete()
{
    if (done_)
        return;
    if (uploadId_.empty()) { // smaller than one part: a plain PUT
        client_.put(key_, buffer_, job_);
        done_ = true;
        return;
    }
    if (!buffer_.empty())
        sendPart();
    std::string body = "<CompleteMultipartUpload>";
    for (size_t i = 0; i < etags_.size(); ++i)
        body += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>\"" + etags_[i] + "\"</ETag></Part>";
    body += "</CompleteMultipartUpload>";
    Request req;
    req.method = "POST";
    req.key = key_;
    req.query = {{"uploadId", uploadId_}};
    req.body = body;
    const Response res = client_.perform(req, job_);
    // S3 may answer 200 with an <Error> body when the completion failed late.
    if (const auto code = xml::firstText(res.body, "Code"); code && res.body.find("<Error>") != std::string::npos)
        fail(client_.location(key_), "CompleteMultipartUpload failed: " + *code);
    done_ = true;
}

void S3Client::Upload::abort()
{
    done_ = true;
    if (uploadId_.empty())
        return;
    Request req;
    req.method = "DELETE";
    req.key = key_;
    req.query = {{"uploadId", uploadId_}};
    client_.perform(req, nullptr);
}

} // namespace cs::remote
