// readContents(): sniff, decode, hand libarchive the tar stream through its
// read callback, walk the headers. See EntryContents.h.
#include "core/entries/EntryContents.h"

#include "core/entries/ReadAheadStream.h"

#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/util/Json.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>

namespace cs::entries {

const char* blobFormatName(BlobFormat f)
{
    switch (f) {
    case BlobFormat::TarZstd: return "tar+zstd";
    case BlobFormat::TarGzip: return "tar+gzip";
    case BlobFormat::Tar: return "tar";
    case BlobFormat::Json: return "json";
    case BlobFormat::Opaque: return "opaque";
    }
    return "opaque";
}

const char* memberTypeName(MemberType t)
{
    switch (t) {
    case MemberType::File: return "file";
    case MemberType::Folder: return "dir";
    case MemberType::Symlink: return "symlink";
    case MemberType::Hardlink: return "hardlink";
    case MemberType::Other: return "other";
    }
    return "other";
}

namespace {

constexpr size_t kHead = 4096;
constexpr uint64_t kMaxJson = uint64_t(16) << 20;
constexpr size_t kTarBuffer = size_t(256) << 10;

// The stream with its first bytes read ahead (for sniffing) and replayed.
class HeadStream final : public ByteStream {
public:
    explicit HeadStream(ByteStream& in) : in_(in)
    {
        head_.resize(kHead);
        head_.resize(readFully(in_, head_.data(), head_.size()));
    }
    const std::string& head() const { return head_; }
    size_t read(void* buf, size_t n) override
    {
        if (pos_ < head_.size()) {
            const size_t k = std::min(n, head_.size() - pos_);
            std::memcpy(buf, head_.data() + pos_, k);
            pos_ += k;
            return k;
        }
        const size_t got = in_.read(buf, n);
        pos_ += got;
        return got;
    }
    uint64_t offset() const override { return pos_; }

private:
    ByteStream& in_;
    std::string head_;
    uint64_t pos_ = 0;
};

bool startsWith(const std::string& s, std::initializer_list<uint8_t> magic)
{
    if (s.size() < magic.size())
        return false;
    size_t i = 0;
    for (uint8_t b : magic)
        if (uint8_t(s[i++]) != b)
            return false;
    return true;
}

bool isZstd(const std::string& head)
{
    if (startsWith(head, {0x28, 0xB5, 0x2F, 0xFD}))
        return true;
    // A skippable frame first (a seekable table's, pzstd's size frame).
    return head.size() >= 4 && (uint8_t(head[0]) & 0xF0) == 0x50 && uint8_t(head[1]) == 0x2A &&
           uint8_t(head[2]) == 0x4D && uint8_t(head[3]) == 0x18;
}

bool looksLikeJson(const std::string& head)
{
    for (char c : head) {
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        return c == '{' || c == '[';
    }
    return false;
}

// libarchive pulls the tar stream through this; an exception of ours (a
// read error, cancel) is kept and rethrown once libarchive gives up.
struct TarSource {
    ByteStream* in = nullptr;
    Job* job = nullptr;
    std::function<void()> progress;
    std::unique_ptr<char[]> buf{new char[kTarBuffer]};
    std::exception_ptr error;

    static la_ssize_t read(struct archive*, void* self, const void** out)
    {
        auto* s = static_cast<TarSource*>(self);
        try {
            s->job->checkCancel();
            s->progress();
            *out = s->buf.get();
            return la_ssize_t(s->in->read(s->buf.get(), kTarBuffer));
        } catch (...) {
            s->error = std::current_exception();
            return -1;
        }
    }
};

std::string normalisedPath(const char* raw)
{
    std::string p = raw ? raw : "";
    while (p.size() >= 2 && p[0] == '.' && p[1] == '/')
        p.erase(0, 2);
    while (p.size() > 1 && p.back() == '/')
        p.pop_back();
    return p;
}

class TarWalk {
public:
    TarWalk(ByteStream& tar, const std::function<uint64_t()>& storedOffset, uint64_t storedSize, std::string name,
            bool gzip, Job& job)
        : name_(std::move(name)), storedOffset_(storedOffset), a_(archive_read_new())
    {
        if (!a_)
            throw Error(name_ + ": cannot start libarchive (out of memory)");
        archive_read_support_format_tar(a_);
        if (gzip)
            archive_read_support_filter_gzip(a_);
        src_.in = &tar;
        src_.job = &job;
        src_.progress = [&job, storedOffset, storedSize] {
            if (storedSize)
                job.setStepProgress(storedOffset(), storedSize);
        };
    }
    ~TarWalk() { archive_read_free(a_); }

    // False when the stream is no tar archive at all (nothing was listed).
    bool run(const ContentsOptions& options, ContentsSummary& summary, const MemberSink& onMember)
    {
        if (archive_read_open(a_, &src_, nullptr, &TarSource::read, nullptr) != ARCHIVE_OK) {
            check();
            return false;
        }
        Member m;
        Sha256 sha;
        for (;;) {
            archive_entry* e = nullptr;
            const int r = archive_read_next_header(a_, &e);
            if (r == ARCHIVE_EOF)
                return true;
            if (r < ARCHIVE_WARN) {
                check();
                // No format bid for the first header: not a tar archive.
                const char* why = archive_error_string(a_);
                if (summary.members == 0 && why && std::strstr(why, "Unrecognized archive format"))
                    return false;
                failHere("cannot read the header of member " + std::to_string(summary.members + 1));
            }
            fill(m, e);
            if (m.type == MemberType::File && options.hashMembers) {
                hashData(sha, m);
            } else if (archive_read_data_skip(a_) < ARCHIVE_WARN) {
                check();
                failHere("member '" + m.path + "' runs past the end of the archive");
            }
            ++summary.members;
            if (m.type != MemberType::Folder)
                ++summary.files;
            summary.bytes += m.size;
            onMember(m);
        }
    }
    uint64_t tarOffset() { return uint64_t(std::max<la_int64_t>(0, archive_filter_bytes(a_, 0))); }

private:
    void fill(Member& m, archive_entry* e)
    {
        m.path = normalisedPath(archive_entry_pathname(e));
        m.linkTarget.clear();
        m.sha256.reset();
        m.mode = uint32_t(archive_entry_perm(e)) & 07777;
        m.mtime = int64_t(archive_entry_mtime(e));
        m.size = 0;
        if (const char* hard = archive_entry_hardlink(e)) {
            m.type = MemberType::Hardlink;
            m.linkTarget = normalisedPath(hard);
            return;
        }
        switch (archive_entry_filetype(e)) {
        case AE_IFREG:
            m.type = MemberType::File;
            m.size = archive_entry_size_is_set(e) ? uint64_t(std::max<la_int64_t>(0, archive_entry_size(e))) : 0;
            break;
        case AE_IFDIR: m.type = MemberType::Folder; break;
        case AE_IFLNK:
            m.type = MemberType::Symlink;
            m.linkTarget = archive_entry_symlink(e) ? archive_entry_symlink(e) : "";
            break;
        default: m.type = MemberType::Other; break;
        }
    }

    // Sparse files hand out data blocks at offsets: the holes hash as zeros,
    // as the extracted file reads.
    void hashData(Sha256& sha, Member& m)
    {
        static const char zeros[4096] = {};
        uint64_t at = 0;
        for (;;) {
            const void* buf = nullptr;
            size_t size = 0;
            la_int64_t offset = 0;
            const int r = archive_read_data_block(a_, &buf, &size, &offset);
            if (r == ARCHIVE_EOF)
                break;
            if (r < ARCHIVE_WARN) {
                check();
                failHere("member '" + m.path + "' runs past the end of the archive");
            }
            for (; at < uint64_t(offset); at += std::min<uint64_t>(sizeof zeros, uint64_t(offset) - at))
                sha.update(zeros, size_t(std::min<uint64_t>(sizeof zeros, uint64_t(offset) - at)));
            sha.update(buf, size);
            at = uint64_t(offset) + size;
        }
        for (; at < m.size; at += std::min<uint64_t>(sizeof zeros, m.size - at))
            sha.update(zeros, size_t(std::min<uint64_t>(sizeof zeros, m.size - at)));
        m.sha256 = sha.finish();
    }

    // Our own error (read, decode, cancel) wins over libarchive's sentence.
    void check()
    {
        if (src_.error)
            std::rethrow_exception(src_.error);
    }
    [[noreturn]] void failHere(const std::string& what)
    {
        const char* why = archive_error_string(a_);
        failAt(name_, storedOffset_(),
               what + " at offset " + std::to_string(tarOffset()) + " of the tar stream: " + (why ? why : "unknown error"));
    }

    std::string name_;
    std::function<uint64_t()> storedOffset_;
    struct archive* a_;
    TarSource src_;
};

void drain(ByteStream& in)
{
    std::unique_ptr<char[]> buf(new char[kTarBuffer]);
    while (in.read(buf.get(), kTarBuffer) > 0) {
    }
}

} // namespace

ContentsSummary readContents(ByteStream& source, uint64_t size, const std::string& name,
                             const ContentsOptions& options, Job& job, const MemberSink& onMember)
{
    ContentsSummary summary;
    // The stored bytes are read on a thread of their own while this one
    // decodes: taking turns cost 17 % against `zstd -dc | tar -tvf -`,
    // whose zstd reads asynchronously (docs/benchmarks.md, issue 26).
    ReadAheadStream stored(source);
    HeadStream head(stored);
    const std::string& h = head.head();
    const auto storedOffset = [&stored] { return stored.offset(); };
    if (h.empty()) {
        summary.detail = "the blob is empty";
        return summary;
    }
    if (looksLikeJson(h)) {
        if (size > kMaxJson) {
            summary.detail = "it starts like JSON but is larger than 16 MiB, so it was not parsed";
            return summary;
        }
        std::string all(h);
        std::string buf(64 * 1024, '\0');
        while (size_t n = stored.read(buf.data(), buf.size())) {
            all.append(buf.data(), n);
            if (all.size() > kMaxJson) {
                summary.detail = "it starts like JSON but is larger than 16 MiB, so it was not parsed";
                return summary;
            }
        }
        summary.blobBytes = summary.decodedBytes = all.size();
        if (Json::accept(all)) {
            summary.format = BlobFormat::Json;
        } else {
            summary.detail = "it starts like JSON but does not parse as JSON";
        }
        return summary;
    }
    const bool zstd = isZstd(h);
    const bool gzip = startsWith(h, {0x1F, 0x8B});
    std::optional<ZstdStream> decoded;
    if (zstd)
        decoded.emplace(head, name, options.memoryBudget);
    ByteStream& tar = decoded ? static_cast<ByteStream&>(*decoded) : head;
    TarWalk walk(tar, storedOffset, size, name, gzip, job);
    const BlobFormat tarFormat = zstd ? BlobFormat::TarZstd : gzip ? BlobFormat::TarGzip : BlobFormat::Tar;
    bool announced = false;
    const bool isTar = walk.run(options, summary, [&](const Member& m) {
        if (!announced && options.onFormat)
            options.onFormat(tarFormat);
        announced = true;
        onMember(m);
    });
    if (isTar)
        drain(tar); // the end-of-archive padding, and zstd's last checksums
    summary.window = decoded ? decoded->largestWindow() : 0;
    summary.blobBytes = stored.offset();
    summary.decodedBytes = decoded ? decoded->offset() : gzip ? walk.tarOffset() : head.offset();
    if (isTar) {
        summary.format = tarFormat;
    } else {
        summary.detail = zstd   ? "a zstd stream holding no tar archive"
                         : gzip ? "a gzip stream holding no tar archive"
                                : "no zstd, gzip, tar or JSON signature at its start";
    }
    job.setStepProgress(1.0);
    return summary;
}

ContentsSummary readContents(const EntryBlob& blob, const ContentsOptions& options, Job& job,
                             const MemberSink& onMember)
{
    auto reader = blob.open();
    return readContents(*reader, blob.size(), blob.name(), options, job, onMember);
}

} // namespace cs::entries
