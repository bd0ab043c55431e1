#include "core/util/Sha256.h"

#include "core/util/Error.h"
#include "core/util/Sha256Compact.h"
#include "core/util/File.h"

#include <openssl/evp.h>

#include <vector>

namespace cs {

struct Sha256::State {
    EVP_MD_CTX* ctx = nullptr;
};

Sha256::Sha256() : state_(std::make_unique<State>())
{
    state_->ctx = EVP_MD_CTX_new();
    if (!state_->ctx || EVP_DigestInit_ex(state_->ctx, EVP_sha256(), nullptr) != 1)
        throw Error("SHA-256: OpenSSL could not initialise a digest");
}

Sha256::~Sha256()
{
    EVP_MD_CTX_free(state_->ctx);
}

void Sha256::update(const void* data, size_t size)
{
    if (size)
        EVP_DigestUpdate(state_->ctx, data, size);
}

Digest Sha256::finish()
{
    Digest d{};
    unsigned int len = 0;
    EVP_DigestFinal_ex(state_->ctx, d.data(), &len);
    EVP_DigestInit_ex(state_->ctx, EVP_sha256(), nullptr);
    return d;
}

Digest Sha256::of(const void* data, size_t size)
{
    if (size <= kCompactSha256Limit)
        return compactSha256(data, size);   // no libcrypto for a short record
    Sha256 h;
    h.update(data, size);
    return h.finish();
}

Digest Sha256::ofFile(const std::string& path)
{
    File f = File::openRead(path);
    Sha256 h;
    std::vector<uint8_t> buf(1 << 20);
    for (;;) {
        const size_t n = f.readSome(buf.data(), buf.size());
        if (n == 0)
            break;
        h.update(buf.data(), n);
    }
    return h.finish();
}

std::string Sha256::hex(const Digest& d)
{
    static const char* digits = "0123456789abcdef";
    std::string s;
    s.reserve(64);
    for (uint8_t b : d) {
        s.push_back(digits[b >> 4]);
        s.push_back(digits[b & 15]);
    }
    return s;
}

bool Sha256::fromHex(std::string_view hex, Digest& out)
{
    if (hex.size() != 64)
        return false;
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    for (size_t i = 0; i < 32; ++i) {
        const int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = uint8_t(hi << 4 | lo);
    }
    return true;
}

} // namespace cs
