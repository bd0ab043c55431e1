// The libcrypto functions of the core (Sha256.cpp), from libcrypto.so.3
// opened on the first hash (core/util/LazyLibrary.h): --version, frames and
// the other commands that hash nothing never load it. The S3 module links
// libcrypto itself.
#include "core/util/LazyLibrary.h"

#include <openssl/evp.h>

namespace {
constexpr cs::LazyLibrary kLibcrypto{"libcrypto.so.3", "libssl3"};
}

CS_LAZY_FUNCTION(kLibcrypto, EVP_MD_CTX*, EVP_MD_CTX_new, (void), ())
CS_LAZY_FUNCTION(kLibcrypto, void, EVP_MD_CTX_free, (EVP_MD_CTX * ctx), (ctx))
CS_LAZY_FUNCTION(kLibcrypto, const EVP_MD*, EVP_sha256, (void), ())
CS_LAZY_FUNCTION(kLibcrypto, int, EVP_DigestInit_ex, (EVP_MD_CTX * ctx, const EVP_MD* type, ENGINE* impl),
                 (ctx, type, impl))
CS_LAZY_FUNCTION(kLibcrypto, int, EVP_DigestUpdate, (EVP_MD_CTX * ctx, const void* d, size_t cnt), (ctx, d, cnt))
CS_LAZY_FUNCTION(kLibcrypto, int, EVP_DigestFinal_ex, (EVP_MD_CTX * ctx, unsigned char* md, unsigned int* s),
                 (ctx, md, s))
