#include "core/util/LazyLibrary.h"

#include "core/util/Error.h"

#include <dlfcn.h>

#include <map>
#include <mutex>
#include <string>

namespace cs {

void* lazySymbol(const LazyLibrary& library, const char* symbol)
{
    static std::mutex mutex;
    static std::map<std::string, void*> handles;
    const std::lock_guard lock(mutex);
    void*& handle = handles[library.soname];
    if (!handle) {
        handle = dlopen(library.soname, RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char* why = dlerror();
            throw Error(std::string(library.soname) + " cannot be loaded: " + (why ? why : "dlopen failed") +
                        " (install the Debian package " + library.package + ")");
        }
    }
    void* f = dlsym(handle, symbol);
    if (!f)
        throw Error(std::string(library.soname) + " has no " + symbol + " (install the Debian package " +
                    library.package + " of your release)");
    return f;
}

} // namespace cs
