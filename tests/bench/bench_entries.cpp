// Benchmark: what is inside a cache entry (issue 26), ours beside the
// reference tools in the same run, medians of --runs runs after a warm-up.
//
//  1. `actions-cache contents` of a tar+zstd --long=30 entry of SIZE bytes
//     in FILES files (default 1 GiB, 20,480 files), made as @actions/cache
//     makes it (`tar --posix -cf - DIR | zstd -T0 --long=30`), against
//     `zstd -dc --long=31 BLOB | tar -tvf -`: wall time and peak RSS (target
//     >= 0.9x the pipeline's speed, RSS <= the pipeline's + 32 MiB).
//  2. The same tree as zstd-without-long (`zstd -T0`) and gzip entries:
//     peak RSS (target <= 64 MiB) beside `zstd -dc | tar -tvf -` and
//     `tar -tzvf`.
//  3. `actions-cache diff` of that entry and a second version (every 16th
//     file rewritten) against decoding both with `zstd -dc` one after the
//     other (target <= 1.3x).
// Each child runs through posix_spawn + wait4, so its own rusage is read
// (a pipeline's is its shell's and the children the shell waited for: the
// largest of them). Files go under --dir (default /tmp) and are removed.
//
// usage: bench_entries [--size BYTES] [--files N] [--runs N] [--dir DIR]
#include "bench/EntryBenchTree.h"
#include "common/EntryArchives.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

extern char** environ;

namespace {

struct Run {
    double seconds = 0;
    long maxRssKiB = 0;
    bool ok = false;
};

Run spawn(const std::vector<std::string>& args)
{
    std::vector<char*> argv;
    for (const auto& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    QElapsedTimer t;
    t.start();
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    int status = 0;
    rusage ru{};
    Run r;
    r.ok = rc == 0 && wait4(pid, &status, 0, &ru) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    r.seconds = double(t.nsecsElapsed()) / 1e9;
    r.maxRssKiB = ru.ru_maxrss;
    return r;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

struct Figures {
    double seconds = 0;
    double rssMiB = 0;
};

Figures measure(const std::vector<std::string>& args, int runs)
{
    spawn(args); // warm-up: both read from the page cache
    std::vector<double> s, m;
    for (int i = 0; i < runs; ++i) {
        const Run r = spawn(args);
        if (!r.ok) {
            std::fprintf(stderr, "bench_entries: failed: %s ...\n", args.back().c_str());
            std::exit(1);
        }
        s.push_back(r.seconds);
        m.push_back(double(r.maxRssKiB) / 1024.0);
    }
    return {median(s), median(m)};
}

bool sh(const std::string& command)
{
    return spawn({"sh", "-c", command}).ok;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    uint64_t size = uint64_t(1) << 30;
    int files = 20480, runs = 3;
    std::string dir = "/tmp";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) {
            std::fprintf(stderr, "usage: bench_entries [--size BYTES] [--files N] [--runs N] [--dir DIR]\n");
            return 2;
        }
        if (a == "--size")
            size = std::stoull(argv[++i]);
        else if (a == "--files")
            files = std::stoi(argv[++i]);
        else if (a == "--runs")
            runs = std::stoi(argv[++i]);
        else if (a == "--dir")
            dir = argv[++i];
        else {
            std::fprintf(stderr, "usage: bench_entries [--size BYTES] [--files N] [--runs N] [--dir DIR]\n");
            return 2;
        }
    }
    const std::string work = dir + "/bench_entries." + std::to_string(getpid());
    testsupport::mkdirs(work + "/v1");
    testsupport::mkdirs(work + "/v2");
    std::printf("making two trees of %d files, %.0f MiB each, under %s\n", files, double(size) / 1048576.0, work.c_str());
    std::fflush(stdout);
    benchtree::makeTree(work + "/v1/tree", size, files, 1);
    benchtree::makeTree(work + "/v2/tree", size, files, 2);

    testsupport::EntryDataDir data(QString::fromStdString(work + "/data"));
    const auto addEntry = [&](const std::string& key, const std::string& tree, const std::string& filter) {
        const auto e = data.add(QString::fromStdString(key), QByteArray(), true);
        const std::string merged = data.storage().toStdString() + "/" + e.folder.toStdString() + "/merged";
        if (!sh("tar --posix -cf - -C " + tree + " tree | " + filter + " > " + merged))
            std::exit(1);
        return std::make_pair(e.id.toStdString(), merged);
    };
    const auto [long1, long1Blob] = addEntry("long-v1", work + "/v1", "zstd -q -T0 --long=30");
    const auto [long2, long2Blob] = addEntry("long-v2", work + "/v2", "zstd -q -T0 --long=30");
    const auto [plain, plainBlob] = addEntry("plain", work + "/v1", "zstd -q -T0");
    const auto [gzip, gzipBlob] = addEntry("gzip", work + "/v1", "gzip -1");
    sh("rm -rf " + work + "/v1 " + work + "/v2");
    const std::string cli = CACHESCOPE_CLI;
    const std::string dataDir = data.dataDir().toStdString();

    const auto contents = [&](const std::string& id) {
        return measure({cli, "actions-cache", "contents", dataDir, id, "--json", "-q"}, runs);
    };
    std::printf("\n%-44s %9s %9s\n", ("run (medians of " + std::to_string(runs) + ")").c_str(), "wall s", "RSS MiB");
    const auto row = [](const std::string& name, const Figures& f) {
        std::printf("%-44s %9.3f %9.1f\n", name.c_str(), f.seconds, f.rssMiB);
    };
    const Figures ours = contents(long1);
    const Figures ref = measure({"sh", "-c", "zstd -dc --long=31 " + long1Blob + " | tar -tvf -"}, runs);
    row("contents, tar+zstd --long=30", ours);
    row("zstd -dc --long=31 | tar -tvf -", ref);
    std::printf("  speed %.2fx the pipeline (target >= 0.9x); RSS %+.1f MiB (target <= +32)\n",
                ref.seconds / ours.seconds, ours.rssMiB - ref.rssMiB);
    const Figures oursPlain = contents(plain);
    const Figures refPlain = measure({"sh", "-c", "zstd -dc " + plainBlob + " | tar -tvf -"}, runs);
    row("contents, tar+zstd (without long)", oursPlain);
    row("zstd -dc | tar -tvf -", refPlain);
    const Figures oursGzip = contents(gzip);
    const Figures refGzip = measure({"tar", "-tzvf", gzipBlob}, runs);
    row("contents, tar+gzip", oursGzip);
    row("tar -tzvf", refGzip);
    std::printf("  RSS without long %.1f MiB, gzip %.1f MiB (target <= 64)\n", oursPlain.rssMiB, oursGzip.rssMiB);
    const Figures oursDiff = measure({cli, "actions-cache", "diff", dataDir, long1, long2, "--json", "-q"}, runs);
    const Figures refDiff =
        measure({"sh", "-c", "zstd -dc --long=31 " + long1Blob + " && zstd -dc --long=31 " + long2Blob}, runs);
    row("diff of the two --long=30 entries", oursDiff);
    row("zstd -dc A; zstd -dc B", refDiff);
    std::printf("  diff %.2fx the decodes (target <= 1.3x)\n", oursDiff.seconds / refDiff.seconds);
    sh("rm -rf " + work);
    return 0;
}
