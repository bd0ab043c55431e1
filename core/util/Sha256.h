// SHA-256 (OpenSSL EVP), incremental. Every restore is checked with it.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace cs {

using Digest = std::array<uint8_t, 32>;

class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;

    void update(const void* data, size_t size);
    Digest finish();                 // resets the state afterwards

    static Digest of(const void* data, size_t size);
    static Digest ofFile(const std::string& path); // throws cs::Error
    static std::string hex(const Digest& d);
    static bool fromHex(std::string_view hex, Digest& out);

private:
    struct State;
    std::unique_ptr<State> state_;
};

} // namespace cs
