#include "core/bench/Bench.h"

#include <algorithm>

namespace cs {

std::string seriesUnit(const std::string& series)
{
    const auto sp = series.rfind(' ');
    return sp == std::string::npos ? std::string() : series.substr(sp + 1);
}

SampleSink::SampleSink(Consumer consumer, PhaseConsumer phaseConsumer)
    : consumer_(std::move(consumer)), phaseConsumer_(std::move(phaseConsumer)), start_(std::chrono::steady_clock::now())
{
}

SampleSink::~SampleSink() { stopSampling(); }

double SampleSink::now() const
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void SampleSink::add(const std::string& series, double value) { add(now(), series, value); }

void SampleSink::add(double t, const std::string& series, double value)
{
    Sample s{t, series, value};
    {
        std::lock_guard lock(mutex_);
        samples_.push_back(s);
    }
    if (consumer_)
        consumer_(s);
}

std::vector<Sample> SampleSink::samples() const
{
    std::lock_guard lock(mutex_);
    return samples_;
}

size_t SampleSink::sampleCount() const
{
    std::lock_guard lock(mutex_);
    return samples_.size();
}

void SampleSink::resetPeakRss() { peakRss_.store(currentRssBytes(), std::memory_order_relaxed); }

void SampleSink::sampleOnce()
{
    std::lock_guard phaseLock(phaseMutex_);
    const double t = now();
    const double cpu = processCpuSeconds();
    const uint64_t rss = currentRssBytes();
    const uint64_t bytes = bytes_.load(std::memory_order_relaxed);
    uint64_t peak = peakRss_.load(std::memory_order_relaxed);
    while (rss > peak && !peakRss_.compare_exchange_weak(peak, rss)) {
    }
    add(t, "RSS MB", double(rss) / 1e6);
    const double dt = t - lastT_;
    if (dt > 0.005) {
        add(t, "CPU cores", std::max(0.0, (cpu - lastCpu_) / dt));
        const uint64_t delta = bytes >= lastBytes_ ? bytes - lastBytes_ : bytes;
        add(t, "throughput MB/s", double(delta) / 1e6 / dt);
    }
    add(t, "done MB", double(bytes) / 1e6);
    lastT_ = t;
    lastCpu_ = cpu;
    lastBytes_ = bytes;
}

void SampleSink::startSampling(double periodSeconds)
{
    stopSampling();
    stop_.store(false);
    std::lock_guard phaseLock(phaseMutex_);
    lastT_ = now();
    lastCpu_ = processCpuSeconds();
    lastBytes_ = bytes();
    resetPeakRss();
    const auto period = std::chrono::duration<double>(periodSeconds);
    thread_ = std::thread([this, period] {
        auto next = std::chrono::steady_clock::now();
        std::unique_lock lock(waitMutex_);
        while (!stop_.load()) {
            next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);
            wake_.wait_until(lock, next, [this] { return stop_.load(); });
            if (stop_.load())
                break;
            sampleOnce();
        }
    });
}

void SampleSink::stopSampling()
{
    if (!thread_.joinable())
        return;
    {
        std::lock_guard lock(waitMutex_);
        stop_.store(true);
    }
    wake_.notify_all();
    thread_.join();
    sampleOnce();
    endLastPhase();
}

} // namespace cs
