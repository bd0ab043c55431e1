// The few pieces of S3's XML answers we read: ListObjectsV2 pages, errors,
// multipart upload ids and DeleteObjects results. S3 answers are flat and
// machine-written, so a scanner for <Tag>text</Tag> (with entity decoding)
// is enough; anything else in the document is ignored.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cs::remote::xml {

// Text of the first <tag>...</tag> at or after `from` inside doc (decoded),
// or nullopt. `end` receives the offset just past the closing tag.
std::optional<std::string> firstText(std::string_view doc, std::string_view tag, size_t from = 0,
                                     size_t* end = nullptr);
// Every <tag>...</tag> element's inner XML (not decoded), in order.
std::vector<std::string_view> elements(std::string_view doc, std::string_view tag);
std::string decodeEntities(std::string_view s);
std::string escape(std::string_view s);

} // namespace cs::remote::xml
