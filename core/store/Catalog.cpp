#include "core/store/Catalog.h"

#include <chrono>

namespace cs::store {

double nowSeconds()
{
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

} // namespace cs::store
