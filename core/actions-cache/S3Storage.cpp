// ActionsStorage over an S3-compatible bucket, as the server's S3 adapter
// lays it out (lib/storage.ts): <root>/<folderName>/parts/<index> and
// <root>/<folderName>/merged, root "gh-actions-cache" unless the location
// names another (s3://BUCKET/ROOT). A GCS bucket (gs://BUCKET[/ROOT],
// through its XML API) is the same code: the server's GCS adapter writes
// the same object names, gh-actions-cache/<folderName>/..., with
// @google-cloud/storage (STORAGE_DRIVER=gcs, STORAGE_GCS_BUCKET).
//
// A folder is listed with ONE paged ListObjectsV2 (memory: one page plus the
// folder's part sizes), parts are read with ranged GETs of a bounded window,
// and a merged object is written as a multipart upload that becomes visible
// only when completed: publish() is CompleteMultipartUpload, so a crash
// before it leaves no merged object (S3 drops the parts of an abandoned
// upload; a lifecycle rule reaps them on AWS).
#include "core/actions-cache/ActionsBackend.h"
#include "core/actions-cache/RemoteBackends.h"

#include "core/remote/S3Client.h"
#include "core/util/Error.h"

#include <algorithm>

namespace cs::actions {

namespace {

constexpr uint64_t kReadWindow = uint64_t(8) << 20;

std::optional<uint64_t> partIndexOf(const std::string& name)
{
    if (name.empty() || name.size() > 18 || (name.size() > 1 && name[0] == '0'))
        return std::nullopt;
    uint64_t v = 0;
    for (char c : name) {
        if (c < '0' || c > '9')
            return std::nullopt;
        v = v * 10 + uint64_t(c - '0');
    }
    return v;
}

class S3ObjectReader final : public ObjectReader {
public:
    S3ObjectReader(remote::S3Client& s3, std::string key, uint64_t size) : s3_(s3), key_(std::move(key)), size_(size) {}
    uint64_t size() const override { return size_; }
    size_t read(void* buf, size_t n) override
    {
        if (pos_ == buffer_.size()) {
            if (offset_ >= size_)
                return 0;
            buffer_.clear();
            pos_ = 0;
            const uint64_t want = std::min(kReadWindow, size_ - offset_);
            s3_.get(key_, [&](const char* d, size_t k) { buffer_.append(d, k); }, offset_, want);
            if (buffer_.size() != want)
                fail(s3_.config().urlOf(key_),
                     "the object ended at " + std::to_string(offset_ + buffer_.size()) + " bytes; its listing said " +
                         std::to_string(size_));
            offset_ += want;
        }
        const size_t k = std::min(n, buffer_.size() - pos_);
        std::copy_n(buffer_.data() + pos_, k, static_cast<char*>(buf));
        pos_ += k;
        return k;
    }
    void skip(uint64_t n) override
    {
        const size_t inBuffer = std::min<uint64_t>(n, buffer_.size() - pos_);
        pos_ += inBuffer;
        n -= inBuffer;
        if (n > 0) {
            // The next read starts its ranged GET past the skipped bytes.
            buffer_.clear();
            pos_ = 0;
            offset_ = std::min(size_, offset_ + n);
        }
    }

private:
    remote::S3Client& s3_;
    std::string key_;
    uint64_t size_ = 0;
    uint64_t offset_ = 0;
    std::string buffer_;
    size_t pos_ = 0;
};

class S3MergedWriter final : public MergedWriter {
public:
    explicit S3MergedWriter(std::unique_ptr<remote::S3Client::Upload> upload) : upload_(std::move(upload)) {}
    void write(const void* buf, size_t n) override { upload_->append(buf, n); }
    // Parts are durable in S3 once each UploadPart answered.
    void finish() override {}
    void publish() override { upload_->complete(); }

private:
    std::unique_ptr<remote::S3Client::Upload> upload_; // aborted when destroyed uncompleted
};

class S3Storage final : public ActionsStorage {
public:
    S3Storage(const remote::S3Config& config, Job* job) : s3_(config)
    {
        root_ = config.prefix.empty() ? std::string(kServerKeyPrefix) : config.prefix;
        // The bucket must exist: one request for one key says so (and checks
        // the credentials). Only the first page: a walk of max-keys=1 pages
        // cost one request per object (100,000 requests to open a bucket).
        s3_.listFirst(root_ + "/", 1, job);
    }

    std::string describe() const override { return s3_.config().urlOf(root_); }
    std::string objectName(const std::string& folder, const std::string& relative) const override
    {
        return s3_.config().urlOf(key(folder, relative));
    }

    // From a plain paged listing of everything below the root, not a
    // delimiter listing: s3rver (the test server) prunes nested keys under a
    // delimiter and returns no CommonPrefixes at all, and one code path that
    // works on every server is worth the extra pages. Memory: one name per folder.
    std::vector<std::string> folders() override
    {
        std::vector<std::string> out;
        const std::string base = root_ + "/";
        s3_.list(base, [&](const remote::S3Page& page) {
            for (const auto& o : page) {
                const size_t slash = o.key.find('/', base.size());
                if (slash == std::string::npos)
                    continue; // an object directly under the root is no folder
                std::string name = o.key.substr(base.size(), slash - base.size());
                if (out.empty() || out.back() != name)
                    out.push_back(std::move(name)); // keys come sorted, so a folder's keys are adjacent
            }
        });
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return out;
    }

    // The root's list pages once (1,000 keys a request), cut into folders:
    // keys come sorted, so a folder's keys are adjacent and one folder's
    // listing is held at a time.
    void forEachFolder(const std::function<void(const std::string&, const FolderListing&, const std::string&)>& onFolder,
                       Job* job) override
    {
        const std::string base = root_ + "/";
        std::string current;
        FolderListing listing;
        auto flush = [&] {
            if (current.empty())
                return;
            sortParts(listing);
            onFolder(current, listing, std::string());
            listing = FolderListing();
        };
        s3_.list(base, [&](const remote::S3Page& page) {
            for (const auto& o : page) {
                const size_t slash = o.key.find('/', base.size());
                if (slash == std::string::npos)
                    continue; // an object directly under the root is no folder
                const std::string name = o.key.substr(base.size(), slash - base.size());
                if (name != current) {
                    flush();
                    current = name;
                }
                addObject(listing, base + name + "/", o);
            }
        }, job);
        flush();
    }

    FolderListing listFolder(const std::string& folder) override
    {
        checkFolder(folder);
        FolderListing out;
        const std::string base = root_ + "/" + folder + "/";
        s3_.list(base, [&](const remote::S3Page& page) { addPage(out, base, page); });
        sortParts(out);
        return out;
    }

    // One ListObjectsV2 walk per folder, up to S3Config::maxInFlight folders
    // at once (S3Client::listMany): latency, not bandwidth, bounds a listing.
    std::vector<FolderListing> listFolders(const std::vector<std::string>& folders, std::vector<std::string>& errors,
                                           Job* job) override
    {
        std::vector<FolderListing> out(folders.size());
        errors.assign(folders.size(), std::string());
        std::vector<std::string> prefixes;
        std::vector<size_t> which;
        for (size_t i = 0; i < folders.size(); ++i) {
            if (folders[i].empty()) {
                errors[i] = "the location names no folder";
                continue;
            }
            if (!plainFolderName(folders[i])) {
                errors[i] = describe() + ": folder name '" + folders[i] + "' from the catalog is not a plain folder name";
                continue;
            }
            prefixes.push_back(root_ + "/" + folders[i] + "/");
            which.push_back(i);
        }
        s3_.listMany(prefixes, [&](size_t k, const remote::S3Page& page) { addPage(out[which[k]], prefixes[k], page); },
                     job);
        for (size_t i : which)
            sortParts(out[i]);
        return out;
    }

    std::unique_ptr<ObjectReader> openPart(const std::string& folder, uint64_t index) override
    {
        return open(folder, "parts/" + std::to_string(index));
    }
    std::unique_ptr<ObjectReader> openMerged(const std::string& folder) override { return open(folder, "merged"); }

    std::unique_ptr<MergedWriter> beginMerged(const std::string& folder) override
    {
        checkFolder(folder);
        return std::make_unique<S3MergedWriter>(s3_.beginUpload(key(folder, "merged")));
    }

    void deletePart(const std::string& folder, uint64_t index) override
    {
        checkFolder(folder);
        s3_.deleteObjects({key(folder, "parts/" + std::to_string(index))});
    }
    void deletePartsFolder(const std::string& folder) override { deleteBelow(folder, "parts/"); }
    void deleteFolder(const std::string& folder) override { deleteBelow(folder, ""); }

private:
    std::string key(const std::string& folder, const std::string& relative) const
    {
        return root_ + "/" + folder + "/" + relative;
    }
    static bool plainFolderName(const std::string& folder)
    {
        return !(folder.empty() || folder == "." || folder == ".." || folder.find('/') != std::string::npos);
    }
    void checkFolder(const std::string& folder) const
    {
        if (!plainFolderName(folder))
            fail(describe(), "folder name '" + folder + "' from the catalog is not a plain folder name");
    }
    static void addObject(FolderListing& out, const std::string& base, const remote::S3Object& o)
    {
        out.exists = true;
        const std::string rel = o.key.substr(base.size());
        if (rel == "merged") {
            out.mergedSize = o.size;
        } else if (rel.rfind("parts/", 0) == 0) {
            out.hasPartsFolder = true;
            if (const auto i = partIndexOf(rel.substr(6)))
                out.parts.push_back({*i, o.size});
            else
                out.strays.push_back(rel);
        } else {
            out.strays.push_back(rel);
        }
    }
    static void addPage(FolderListing& out, const std::string& base, const remote::S3Page& page)
    {
        for (const auto& o : page)
            addObject(out, base, o);
    }
    static void sortParts(FolderListing& out)
    {
        std::sort(out.parts.begin(), out.parts.end(),
                  [](const PartObject& a, const PartObject& b) { return a.index < b.index; });
    }
    std::unique_ptr<ObjectReader> open(const std::string& folder, const std::string& relative)
    {
        checkFolder(folder);
        const std::string k = key(folder, relative);
        const auto head = s3_.head(k);
        if (!head)
            fail(objectName(folder, relative), "no such object");
        return std::make_unique<S3ObjectReader>(s3_, k, head->size);
    }
    // Deletes page by page, so memory stays one page whatever the folder holds.
    void deleteBelow(const std::string& folder, const std::string& relative)
    {
        checkFolder(folder);
        s3_.list(key(folder, relative), [&](const remote::S3Page& page) {
            std::vector<std::string> keys;
            for (const auto& o : page)
                keys.push_back(o.key);
            s3_.deleteObjects(keys); // the continuation token is past these keys, deleted or not
        });
    }

    remote::S3Client s3_;
    std::string root_;
};

} // namespace

std::unique_ptr<ActionsStorage> openS3Storage(const remote::S3Config& config, Job* job)
{
    return std::make_unique<S3Storage>(config, job);
}

} // namespace cs::actions
