// Charts for a command that links no Qt: the GUI binary next to this one
// draws them (offscreen, a child process), from a file of data this tool
// wrote. `bench --plot` and `actions-cache report --plot` both go through it.
#pragma once
#include <string>

namespace cli {

// Runs `<dir of this executable>/cachescope RENDER_OPTION DATA_FILE --output
// PLOT_PATH` with QT_QPA_PLATFORM=offscreen and waits for it. Throws
// cs::Error with the child's own sentence (or one naming the file) when it
// fails. A relative plotPath is taken from the current folder.
void drawWithGui(const std::string& renderOption, const std::string& dataFile, const std::string& plotPath);

// A temporary folder for the data file, removed with what is in it.
class TempFolder {
public:
    TempFolder();
    ~TempFolder();
    TempFolder(const TempFolder&) = delete;
    TempFolder& operator=(const TempFolder&) = delete;
    std::string file(const std::string& name);   // a path inside, removed by the destructor

private:
    std::string dir_;
    std::string files_;   // names joined by '\n'
};

} // namespace cli
