// Where an S3-compatible bucket is and how to sign for it.
//
// A location is written s3://BUCKET[/PREFIX]; requests are path-style
// (ENDPOINT/BUCKET/KEY), so MinIO, Ceph RGW, R2 and AWS all work with the
// same code. Credentials come from the standard environment variables
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN) or are typed
// in by the user; they are never written to settings, logs or messages:
// describe() names the bucket and endpoint only.
//
// gs://BUCKET[/PREFIX] is a Google Cloud Storage bucket through its XML API,
// which speaks the S3 protocol (ListObjectsV2, ranged GET, PUT, multipart
// uploads, multi-object delete) at https://storage.googleapis.com. It signs
// with an HMAC key (GOOGLE_HMAC_ACCESS_ID, GOOGLE_HMAC_SECRET) by GCS's V4
// rules: algorithm GOOG4-HMAC-SHA256, credential scope DATE/auto/storage/
// goog4_request, x-goog-date and x-goog-content-sha256 headers. libcurl
// signs (CURLOPT_AWS_SIGV4 "goog:goog:auto:storage"); GCS also accepts an
// HMAC key's AWS4-HMAC-SHA256 signature (scope DATE/auto/s3/aws4_request,
// x-amz-* headers), which CACHESCOPE_GCS_SIGNING=aws4 selects for proxies
// and emulators that know only AWS's.
#pragma once
#include <string>

namespace cs::remote {

// How requests are signed: AWS's SigV4, or GCS's V4 for an HMAC key.
enum class S3Signing { Aws4, Goog4 };

struct S3Config {
    std::string scheme = "s3";   // "gs" for Google Cloud Storage: locations in messages
    S3Signing signing = S3Signing::Aws4;
    std::string endpoint;        // "http://127.0.0.1:9000" or "https://s3.eu-west-1.amazonaws.com"
    std::string region = "us-east-1";
    std::string bucket;
    std::string prefix;          // key prefix inside the bucket, no leading or trailing '/'
    std::string accessKeyId;
    std::string secretAccessKey;
    std::string sessionToken;    // empty unless temporary credentials
    int maxInFlight = 8;         // parallel requests of one client (listMany, verify)
    int retries = 4;             // tries after the first on 5xx, throttling and transport errors
    long connectTimeoutSeconds = 10;
    long lowSpeedSeconds = 60;   // a transfer below 1 byte/s for this long is a timeout
    // Virtual-hosted style (BUCKET.host/KEY) instead of path style (host/BUCKET/KEY).
    bool virtualHosted = false;
    // Test hooks: connect to this "HOST:PORT" whatever the URL says (the Host
    // header and so the signature stay those of the endpoint), and sign with
    // this X-Amz-Date (X-Goog-Date for GCS), so a signature can be checked
    // against AWS's published examples.
    std::string connectTo;
    std::string fixedAmzDate;

    // Parses s3://BUCKET[/PREFIX]; endpoint and region default to the
    // AWS_ENDPOINT_URL and AWS_REGION (or AWS_DEFAULT_REGION) variables, then
    // to AWS's regional endpoint. Credentials from the environment.
    // gs://BUCKET[/PREFIX]: endpoint https://storage.googleapis.com unless
    // given, region "auto", the HMAC key from GOOGLE_HMAC_ACCESS_ID and
    // GOOGLE_HMAC_SECRET, GCS's signing (S3Signing::Goog4).
    // Throws cs::Error with a sentence on a malformed location.
    static S3Config fromLocation(const std::string& location, const std::string& endpoint = {},
                                 const std::string& region = {});

    // Object key of a name below the prefix ("PREFIX/name" or "name").
    std::string keyOf(const std::string& name) const;
    // "s3://bucket/prefix at endpoint" ("gs://..."): safe to print, no credentials.
    std::string describe() const;
    // "s3://bucket/key" ("gs://bucket/key") for messages.
    std::string urlOf(const std::string& key) const;
};

// True for the locations fromLocation takes.
bool isS3Url(const std::string& location);    // s3://
bool isGcsUrl(const std::string& location);   // gs://

} // namespace cs::remote
