// A command that hands its result over before all of its work is done
// (`store get` of an unmerged entry, `store put`, `actions-cache import`):
// the user gets the file, or the committed entries, and the merge behind
// goes on in a process of its own, the way `git gc --auto` detaches.
//
// begin() forks. The parent only waits: it never returns from begin(). It
// exits with release()'s status once the child calls it (0 unless told),
// or with the child's own status when the child ends first (an error, a cancel: exactly what the command
// without the split would have printed and returned, since until release()
// the child writes to the same terminal and stays in its process group, so
// Ctrl-C reaches it and cancels it as before). The parent relays SIGINT,
// SIGTERM and SIGHUP sent to it alone. After release() the child has left
// the session, its standard streams point at /dev/null (nothing is printed
// after the command returned) and its exit status is nobody's.
//
// Call begin() before the process starts a thread or opens a database
// connection (fork keeps neither safely). When fork fails, begin() returns
// in the only process and release() does nothing: the command then simply
// waits for its work, as with --wait.
#pragma once

namespace cli {

class Handover {
public:
    static Handover begin();
    // The output is safe and said: the caller's command returns now, with
    // exitStatus (0-255: what it would have returned; the work behind it
    // changes it no more).
    void release(int exitStatus = 0);
    // This is the child of a fork that worked (false: the only process).
    bool detached() const { return detached_; }
    bool released() const { return released_; }

    Handover(Handover&& o) noexcept;
    Handover& operator=(Handover&&) = delete;
    Handover(const Handover&) = delete;
    ~Handover();

private:
    explicit Handover(int fd) : fd_(fd), detached_(fd >= 0) {}
    int fd_ = -1;   // child: write end of the pipe the parent waits on
    bool detached_ = false;
    bool released_ = false;
};

} // namespace cli
