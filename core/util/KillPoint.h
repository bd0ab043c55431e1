// Crash-test kill points driven by an environment variable: with
// VARIABLE=point[:n] set, the n-th (default 1st) pass of `point` raises
// SIGKILL, so tests can crash a CLI process at a named place (the GC uses
// CACHESCOPE_GC_KILL_AT, the store CACHESCOPE_STORE_KILL_AT). Unset: a
// getenv and nothing else.
#pragma once
#include <atomic>

namespace cs {

// `seen` counts passes of the named point; each variable keeps its own.
void killPointFromEnv(const char* variable, const char* point, std::atomic<int>& seen);

} // namespace cs
