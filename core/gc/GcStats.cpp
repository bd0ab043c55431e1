// GcStats <-> the JSON stored in gc_runs.stats_json and printed by
// `cachescope-cli store gc --json`; and the side-by-side comparison of runs.
#include "core/gc/Gc.h"

#include "core/util/Error.h"
#include "core/util/Json.h"

namespace cs::gc {

namespace {

Json files(const FileSizes& f)
{
    Json j = Json::object();
    j["suffix"] = f.suffix;
    j["prefix"] = f.prefix;
    j["mapping"] = f.mapping;
    j["total"] = f.total();
    return j;
}

uint64_t u64(const Json& j) { return unsignedInteger(j); }

FileSizes readFiles(const Json& j)
{
    return {u64(field(j, "suffix")), u64(field(j, "prefix")), u64(field(j, "mapping"))};
}

} // namespace

Json GcStats::toJsonValue() const
{
    Json j = Json::object();
    j["dry_run"] = dryRun;
    j["status"] = status;
    if (!error.empty())
        j["error"] = error;
    j["generation_before"] = generationBefore;
    j["generation"] = generation;
    j["split"] = split;
    j["roots"] = roots;
    j["objects_visited"] = objectsVisited;
    j["live_bytes"] = liveBytes;
    j["reclaimed_bytes"] = reclaimedBytes;
    j["ranges"] = ranges;
    j["largest_frontier"] = largestFrontier;
    j["bytes_copied"] = bytesCopied;
    j["appended_during_gc"] = appendedDuringGc;
    j["dead_objects"] = deadObjects;
    j["chunk_rows_deleted"] = chunkRowsDeleted;
    j["pack_bytes_before"] = packBytesBefore();
    j["pack_bytes_after"] = packBytesAfter();
    j["files_before"] = files(before);
    j["files_after"] = files(after);
    Json list = Json::array();
    for (const auto& s : steps) {
        Json e = Json::object();
        e["name"] = s.name;
        e["wall_s"] = s.wallSeconds;
        e["user_s"] = s.userSeconds;
        e["sys_s"] = s.sysSeconds;
        e["maxrss_kib"] = s.maxrssKiB;
        e["minflt"] = s.minflt;
        e["majflt"] = s.majflt;
        e["inblock"] = s.inblock;
        e["oublock"] = s.oublock;
        e["nvcsw"] = s.nvcsw;
        e["nivcsw"] = s.nivcsw;
        list.push_back(std::move(e));
    }
    j["steps"] = std::move(list);
    return j;
}

std::string GcStats::toJson() const { return dumpJson(toJsonValue()); }

GcStats GcStats::fromJson(const std::string& text)
{
    const Json j = parseJson(text, "GC stats");
    if (!j.is_object())
        throw Error("GC stats JSON is not an object");
    GcStats s;
    s.dryRun = boolean(field(j, "dry_run"));
    s.status = cs::text(field(j, "status"));
    s.error = cs::text(field(j, "error"));
    s.generationBefore = u64(field(j, "generation_before"));
    s.generation = u64(field(j, "generation"));
    s.split = u64(field(j, "split"));
    s.roots = u64(field(j, "roots"));
    s.objectsVisited = u64(field(j, "objects_visited"));
    s.liveBytes = u64(field(j, "live_bytes"));
    s.reclaimedBytes = u64(field(j, "reclaimed_bytes"));
    s.ranges = u64(field(j, "ranges"));
    s.largestFrontier = u64(field(j, "largest_frontier"));
    s.bytesCopied = u64(field(j, "bytes_copied"));
    s.appendedDuringGc = u64(field(j, "appended_during_gc"));
    s.deadObjects = u64(field(j, "dead_objects"));
    s.chunkRowsDeleted = u64(field(j, "chunk_rows_deleted"));
    s.before = readFiles(field(j, "files_before"));
    s.after = readFiles(field(j, "files_after"));
    for (const auto& e : elements(field(j, "steps"))) {
        StepStats st;
        st.name = cs::text(field(e, "name"));
        st.wallSeconds = number(field(e, "wall_s"));
        st.userSeconds = number(field(e, "user_s"));
        st.sysSeconds = number(field(e, "sys_s"));
        st.maxrssKiB = u64(field(e, "maxrss_kib"));
        st.minflt = u64(field(e, "minflt"));
        st.majflt = u64(field(e, "majflt"));
        st.inblock = u64(field(e, "inblock"));
        st.oublock = u64(field(e, "oublock"));
        st.nvcsw = u64(field(e, "nvcsw"));
        st.nivcsw = u64(field(e, "nivcsw"));
        s.steps.push_back(std::move(st));
    }
    return s;
}

std::vector<GcCompareRow> compareGcRuns(const GcStats& a, const GcStats& b)
{
    std::vector<GcCompareRow> rows;
    auto add = [&](const std::string& figure, double va, double vb) {
        rows.push_back({figure, va, vb, va != 0 ? 100.0 * vb / va : -1.0});
    };
    add("objects_visited", double(a.objectsVisited), double(b.objectsVisited));
    add("live_bytes", double(a.liveBytes), double(b.liveBytes));
    add("reclaimed_bytes", double(a.reclaimedBytes), double(b.reclaimedBytes));
    add("ranges", double(a.ranges), double(b.ranges));
    add("largest_frontier", double(a.largestFrontier), double(b.largestFrontier));
    add("bytes_copied", double(a.bytesCopied), double(b.bytesCopied));
    add("pack_bytes_before", double(a.packBytesBefore()), double(b.packBytesBefore()));
    add("pack_bytes_after", double(a.packBytesAfter()), double(b.packBytesAfter()));
    auto stepOf = [](const GcStats& s, const std::string& name) -> const StepStats* {
        for (const auto& st : s.steps)
            if (st.name == name)
                return &st;
        return nullptr;
    };
    double wallA = 0, wallB = 0;
    for (const auto& name : gcStepNames()) {
        const StepStats* sa = stepOf(a, name);
        const StepStats* sb = stepOf(b, name);
        if (!sa && !sb)
            continue;
        const StepStats za, zb;
        const StepStats& x = sa ? *sa : za;
        const StepStats& y = sb ? *sb : zb;
        wallA += x.wallSeconds;
        wallB += y.wallSeconds;
        add(name + ".wall_s", x.wallSeconds, y.wallSeconds);
        add(name + ".user_s", x.userSeconds, y.userSeconds);
        add(name + ".sys_s", x.sysSeconds, y.sysSeconds);
        add(name + ".maxrss_kib", double(x.maxrssKiB), double(y.maxrssKiB));
        add(name + ".minflt", double(x.minflt), double(y.minflt));
        add(name + ".majflt", double(x.majflt), double(y.majflt));
        add(name + ".inblock", double(x.inblock), double(y.inblock));
        add(name + ".oublock", double(x.oublock), double(y.oublock));
        add(name + ".nvcsw", double(x.nvcsw), double(y.nvcsw));
        add(name + ".nivcsw", double(x.nivcsw), double(y.nivcsw));
    }
    add("total.wall_s", wallA, wallB);
    return rows;
}

} // namespace cs::gc
