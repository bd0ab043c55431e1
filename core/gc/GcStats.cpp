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

uint64_t u64(const Json& j) { return uint64_t(j.toInt()); }

FileSizes readFiles(const Json& j) { return {u64(j["suffix"]), u64(j["prefix"]), u64(j["mapping"])}; }

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
        list.push(std::move(e));
    }
    j["steps"] = std::move(list);
    return j;
}

std::string GcStats::toJson() const { return toJsonValue().dump(); }

GcStats GcStats::fromJson(const std::string& text)
{
    const Json j = Json::parse(text);
    if (!j.isObject())
        throw Error("GC stats JSON is not an object");
    GcStats s;
    s.dryRun = j["dry_run"].toBool();
    s.status = j["status"].toString();
    s.error = j["error"].toString();
    s.generationBefore = u64(j["generation_before"]);
    s.generation = u64(j["generation"]);
    s.split = u64(j["split"]);
    s.roots = u64(j["roots"]);
    s.objectsVisited = u64(j["objects_visited"]);
    s.liveBytes = u64(j["live_bytes"]);
    s.reclaimedBytes = u64(j["reclaimed_bytes"]);
    s.ranges = u64(j["ranges"]);
    s.largestFrontier = u64(j["largest_frontier"]);
    s.bytesCopied = u64(j["bytes_copied"]);
    s.appendedDuringGc = u64(j["appended_during_gc"]);
    s.deadObjects = u64(j["dead_objects"]);
    s.chunkRowsDeleted = u64(j["chunk_rows_deleted"]);
    s.before = readFiles(j["files_before"]);
    s.after = readFiles(j["files_after"]);
    for (const auto& e : j["steps"].items()) {
        StepStats st;
        st.name = e["name"].toString();
        st.wallSeconds = e["wall_s"].toNumber();
        st.userSeconds = e["user_s"].toNumber();
        st.sysSeconds = e["sys_s"].toNumber();
        st.maxrssKiB = u64(e["maxrss_kib"]);
        st.minflt = u64(e["minflt"]);
        st.majflt = u64(e["majflt"]);
        st.inblock = u64(e["inblock"]);
        st.oublock = u64(e["oublock"]);
        st.nvcsw = u64(e["nvcsw"]);
        st.nivcsw = u64(e["nivcsw"]);
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
