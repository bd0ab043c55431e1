// Human tables of the CLI: columns padded to the widest cell (counted in
// UTF-8 code points, so keys with accents do not shift the columns), numbers
// right-aligned, two spaces between columns, no trailing blanks.
#pragma once
#include <string>
#include <vector>

namespace cli {

class TextTable {
public:
    TextTable(std::vector<std::string> header, std::vector<bool> rightAligned);
    void add(std::vector<std::string> row);
    size_t rows() const { return rows_.size() - 1; }
    std::string text() const;  // header first
    // The rows added since the last call (the header first on the first
    // call), padded to the widest cell seen so far: a long listing is printed
    // page by page without holding every row.
    std::string takePage(bool withHeader);

    // Makes column at least `width` code points wide (a table printed page by
    // page whose later cells are known to be wider than the first page's).
    void widen(size_t column, size_t width);

    static size_t width(const std::string& s);

private:
    std::vector<std::vector<std::string>> rows_;
    std::vector<bool> right_;
    std::vector<size_t> widths_;
};

} // namespace cli
