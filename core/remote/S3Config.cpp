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

S3Config S3Config::fromLocation(const std::string& location, const std::string& endpoint, const std::string& region)
{
    const std::string scheme = "s3://";
    if (location.compare(0, scheme.size(), scheme) != 0)
        fail(location, "not an S3 location; write s3://BUCKET or s3://BUCKET/PREFIX");
    const std::string rest = location.substr(scheme.size());
    const size_t slash = rest.find('/');
    S3Config c;
    c.bucket = rest.substr(0, slash);
    if (slash != std::string::npos)
        c.prefix = trimSlashes(rest.substr(slash + 1));
    if (!validBucketName(c.bucket))
        fail(location, "'" + c.bucket + "' is not a valid bucket name (3 to 63 characters: a-z, 0-9, '-', '.', '_')");
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
    return "s3://" + bucket + (prefix.empty() ? "" : "/" + prefix) + " at " + endpoint;
}

} // namespace cs::remote
