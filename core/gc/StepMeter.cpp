#include "core/gc/StepMeter.h"

namespace cs::gc {

namespace {
double seconds(const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; }

rusage threadUsage()
{
    rusage u{};
#ifdef RUSAGE_THREAD
    ::getrusage(RUSAGE_THREAD, &u);
#else
    ::getrusage(RUSAGE_SELF, &u);
#endif
    return u;
}
} // namespace

StepMeter::StepMeter(std::string name)
    : name_(std::move(name)), start_(std::chrono::steady_clock::now()), usage_(threadUsage())
{
}

StepStats StepMeter::finish() const
{
    const rusage u = threadUsage();
    rusage self{};
    ::getrusage(RUSAGE_SELF, &self);
    StepStats s;
    s.name = name_;
    s.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    s.userSeconds = seconds(u.ru_utime) - seconds(usage_.ru_utime);
    s.sysSeconds = seconds(u.ru_stime) - seconds(usage_.ru_stime);
    s.maxrssKiB = uint64_t(self.ru_maxrss);
    s.minflt = uint64_t(u.ru_minflt - usage_.ru_minflt);
    s.majflt = uint64_t(u.ru_majflt - usage_.ru_majflt);
    s.inblock = uint64_t(u.ru_inblock - usage_.ru_inblock);
    s.oublock = uint64_t(u.ru_oublock - usage_.ru_oublock);
    s.nvcsw = uint64_t(u.ru_nvcsw - usage_.ru_nvcsw);
    s.nivcsw = uint64_t(u.ru_nivcsw - usage_.ru_nivcsw);
    return s;
}

} // namespace cs::gc
