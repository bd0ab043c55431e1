// The demo dataset of `cachescope-cli demo DIR`: a list of items, each made
// by the core itself into DIR. Another part of the tool adds an item with one
// static registration in its own file, e.g.
//   static cli::DemoItemRegistration storeDemo({"store", 100,
//       [](const std::string& dir) { /* make dir + "/store" */ return std::string("store: ..."); }});
// Items run in increasing `order`; each returns one line saying what it made
// and throws std::exception on failure.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace cli {

struct DemoItem {
    std::string name;                                       // "sized-frames.zst", "store"
    int order = 0;
    std::function<std::string(const std::string& dir)> create;
};

void registerDemoItem(DemoItem item);
std::vector<DemoItem> demoItems();                          // sorted by order

struct DemoItemRegistration {
    explicit DemoItemRegistration(DemoItem item) { registerDemoItem(std::move(item)); }
};

} // namespace cli
