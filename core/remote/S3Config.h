// Where an S3-compatible bucket is and how to sign for it.
//
// A location is written s3://BUCKET[/PREFIX]; requests are path-style
// (ENDPOINT/BUCKET/KEY), so MinIO, Ceph RGW, R2 and AWS all work with the
// same code. Credentials come from the standard environment variables
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN) or are typed
// in by the user; they are never written to settings, logs or messages:
// describe() names the bucket and endpoint only.
#pragma once
#include <string>

namespace cs::remote {

struct S3Config {
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
    // this X-Amz-Date, so a signature can be checked against AWS's published
    // examples.
    std::string connectTo;
    std::string fixedAmzDate;

    // Parses s3://BUCKET[/PREFIX]; endpoint and region default to the
    // AWS_ENDPOINT_URL and AWS_REGION (or AWS_DEFAULT_REGION) variables, then
    // to AWS's regional endpoint. Credentials from the environment.
    // Throws cs::Error with a sentence on a malformed location.
    static S3Config fromLocation(const std::string& location, const std::string& endpoint = {},
                                 const std::string& region = {});

    // Object key of a name below the prefix ("PREFIX/name" or "name").
    std::string keyOf(const std::string& name) const;
    // "s3://bucket/prefix at endpoint": safe to print, no credentials.
    std::string describe() const;
};

} // namespace cs::remote
