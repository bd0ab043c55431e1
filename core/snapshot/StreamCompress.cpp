// One zstd frame without a declared content size, from the streaming API with
// no pledged size: what `zstd < in > out` writes. Used for demo data and tests
// of the decoder's serial path.
#include "core/snapshot/Snapshot.h"
#include "core/snapshot/SnapshotInternal.h"

#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/util/InputFile.h"

#include <zstd.h>

namespace cs {
using namespace snapshot;

StreamCompressResult compressStreamUnsized(const std::string& src, const std::string& out, int level, Job& job)
{
    if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
        fail(out, "compression level " + std::to_string(level) + " is outside the zstd range");
    job.beginStep("compress stream", src);
    InputFile in = InputFile::open(src, [&job] { job.checkCancel(); });
    const uint64_t total = in.size();
    OutputFile temp = OutputFile::open(out, [&job] { job.checkCancel(); });
    std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
    if (!cctx)
        fail(out, "cannot create a compression context (out of memory)");
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
    const size_t inSize = ZSTD_CStreamInSize(), outSize = ZSTD_CStreamOutSize();
    Buffer inBuf, outBuf;
    inBuf.reserve(inSize);
    outBuf.reserve(outSize);
    StreamCompressResult r;
    for (;;) {
        job.checkCancel();
        const size_t n = in.readSome(inBuf.data(), inSize);
        const ZSTD_EndDirective mode = n == 0 ? ZSTD_e_end : ZSTD_e_continue;
        ZSTD_inBuffer input{inBuf.data(), n, 0};
        r.inputBytes += n;
        for (;;) {
            ZSTD_outBuffer output{outBuf.data(), outSize, 0};
            const size_t left = ZSTD_compressStream2(cctx.get(), &output, &input, mode);
            if (ZSTD_isError(left))
                failAt(src, r.inputBytes, std::string("compression failed: ") + ZSTD_getErrorName(left));
            temp.writeAll(outBuf.data(), output.pos);
            r.outputBytes += output.pos;
            if (mode == ZSTD_e_end ? left == 0 : input.pos == input.size)
                break;
        }
        if (total)
            job.setStepProgress(r.inputBytes, total);
        if (n == 0)
            break;
    }
    temp.commit();
    return r;
}

} // namespace cs
