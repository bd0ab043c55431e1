// A shared library that only some commands use, opened on the first call
// into it rather than at every start. Each library a program links costs
// every run its mapping, relocations and symbol lookups: libarchive (with
// libxml2, ICU, nettle, acl, lzma, lz4, bz2) was the largest share of
// `cachescope-cli --version`, libcrypto and SQLite next. A forwarding file
// (core/entries/LazyLibarchive.cpp, core/util/LazyLibcrypto.cpp,
// core/util/LazySqlite.cpp) defines
// the library's functions we call, each forwarding to the library's own,
// looked up once with dlsym; the program then names the library in no
// DT_NEEDED entry, and the library's headers still check every call.
#pragma once

namespace cs {

struct LazyLibrary {
    const char* soname;    // "libarchive.so.13"
    const char* package;   // the Debian package holding it, for the error
};

// The library's symbol, the library opened on the first call (thread-safe;
// never closed). Throws cs::Error naming the library and the package to
// install when it cannot be opened or lacks the symbol.
void* lazySymbol(const LazyLibrary& library, const char* symbol);

} // namespace cs

// Defines extern "C" function `name` (declared by the library's header)
// forwarding to the library's: CS_LAZY_FUNCTION(kLib, int, f, (int a), (a)).
#define CS_LAZY_FUNCTION(library, ret, name, params, args)                                       \
    extern "C" ret name params                                                                   \
    {                                                                                            \
        static const auto real = reinterpret_cast<decltype(&name)>(cs::lazySymbol(library, #name)); \
        return real args;                                                                        \
    }
