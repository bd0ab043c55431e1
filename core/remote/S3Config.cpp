#include "core/remote/S3Config.h"

#include "core/util/Error.h"

#include <cstdlib>

namespace cs::remote {

namespace {

std::string env(const char* name)
{
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

std::string trimSlashes(std::string s)
{
    while (!s.empty() && s.front() == '/')
        s.erase(s.begin());
    while (!s.empty() && s.back() == '/')
        s.pop_back();
    return s;
}

bool validBucketName(const std::string& b)
{
    if (b.size() < 3 || b.size() > 63)
        return false;
    for (char c : b)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_'))
            return false;
    return true;
}

} // namespace

bool isS3Url(const std::string& location) { return location.rfind("s3://", 0) == 0; }
bool isGcsUrl(const std::string& location) { return location.rfind("gs://", 0) == 0; }

S3Config S3Config::fromLocation(const std::string& location, const std::string& endpoint, const std::string& region)
{
    const bool gcs = isGcsUrl(location);
    if (!gcs && !isS3Url(location))
        fail(location, "not a bucket location; write s3://BUCKET[/PREFIX] (S3) or gs://BUCKET[/PREFIX] (Google Cloud "
                       "Storage)");
    const std::string rest = location.substr(5);
    const size_t slash = rest.find('/');
    S3Config c;
    c.bucket = rest.substr(0, slash);
    if (slash != std::string::npos)
        c.prefix = trimSlashes(rest.substr(slash + 1));
    if (!validBucketName(c.bucket))
        fail(location, "'" + c.bucket + "' is not a valid bucket name (3 to 63 characters: a-z, 0-9, '-', '.', '_')");
    if (gcs) {
        // GCS's XML API: one global endpoint, region "auto" in the credential
        // scope (its HMAC signing docs), the key of an HMAC key pair.
        c.scheme = "gs";
        c.region = !region.empty() ? region : "auto";
        c.endpoint = !endpoint.empty() ? endpoint : "https://storage.googleapis.com";
        while (!c.endpoint.empty() && c.endpoint.back() == '/')
            c.endpoint.pop_back();
        if (c.endpoint.rfind("http://", 0) != 0 && c.endpoint.rfind("https://", 0) != 0)
            fail(c.endpoint, "the GCS endpoint must start with http:// or https://");
        const std::string signing = env("CACHESCOPE_GCS_SIGNING");
        if (signing.empty() || signing == "goog4")
            c.signing = S3Signing::Goog4;
        else if (signing == "aws4")
            c.signing = S3Signing::Aws4;
        else
            fail("CACHESCOPE_GCS_SIGNING=" + signing, "is neither goog4 (GCS's HMAC signing, the default) nor aws4");
        c.accessKeyId = env("GOOGLE_HMAC_ACCESS_ID");
        c.secretAccessKey = env("GOOGLE_HMAC_SECRET");
        return c;
    }
    c.region = !region.empty() ? region : !env("AWS_REGION").empty() ? env("AWS_REGION") : env("AWS_DEFAULT_REGION");
    if (c.region.empty())
        c.region = "us-east-1";
    c.endpoint = !endpoint.empty() ? endpoint : env("AWS_ENDPOINT_URL_S3");
    if (c.endpoint.empty())
        c.endpoint = env("AWS_ENDPOINT_URL");
    if (c.endpoint.empty())
        c.endpoint = "https://s3." + c.region + ".amazonaws.com";
    while (!c.endpoint.empty() && c.endpoint.back() == '/')
        c.endpoint.pop_back();
    if (c.endpoint.rfind("http://", 0) != 0 && c.endpoint.rfind("https://", 0) != 0)
        fail(c.endpoint, "the S3 endpoint must start with http:// or https://");
    c.accessKeyId = env("AWS_ACCESS_KEY_ID");
    c.secretAccessKey = env("AWS_SECRET_ACCESS_KEY");
    c.sessionToken = env("AWS_SESSION_TOKEN");
    return c;
}

std::string S3Config::keyOf(const std::string& name) const
{
    return prefix.empty() ? name : prefix + "/" + name;
}

std::string S3Config::describe() const
{
    return scheme + "://" + bucket + (prefix.empty() ? "" : "/" + prefix) + " at " + endpoint;
}

std::string S3Config::urlOf(const std::string& key) const
{
    return scheme + "://" + bucket + (key.empty() ? "" : "/" + key);
}

} // namespace cs::remote
