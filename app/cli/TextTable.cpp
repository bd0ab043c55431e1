#include "TextTable.h"

#include "core/util/Escape.h"
#include <algorithm>

namespace cli {

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> rightAligned)
    : right_(std::move(rightAligned))
{
    right_.resize(header.size(), false);
    rows_.push_back(std::move(header));
}

void TextTable::add(std::vector<std::string> row)
{
    // Cells hold data (keys, scopes, paths): a newline or an escape sequence
    // in one must not forge a row or reach the terminal (cs::escapeControl).
    for (auto& cell : row)
        cell = cs::escapeControl(cell);
    row.resize(right_.size());
    rows_.push_back(std::move(row));
}

void TextTable::widen(size_t column, size_t width)
{
    widths_.resize(right_.size(), 0);
    if (column < widths_.size())
        widths_[column] = std::max(widths_[column], width);
}

size_t TextTable::width(const std::string& s)
{
    size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80)
            ++n;
    return n;
}

std::string TextTable::text() const
{
    TextTable copy = *this;
    return copy.takePage(true);
}

std::string TextTable::takePage(bool withHeader)
{
    widths_.resize(right_.size(), 0);
    for (const auto& r : rows_)
        for (size_t c = 0; c < r.size(); ++c)
            widths_[c] = std::max(widths_[c], width(r[c]));
    const auto& widths = widths_;
    std::string out;
    for (size_t i = withHeader ? 0 : 1; i < rows_.size(); ++i) {
        const auto& r = rows_[i];
        std::string line;
        for (size_t c = 0; c < r.size(); ++c) {
            if (c)
                line += "  ";
            const std::string pad(widths[c] - width(r[c]), ' ');
            line += right_[c] ? pad + r[c] : r[c] + pad;
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out += line + "\n";
    }
    rows_.resize(1);
    return out;
}

} // namespace cli
