// Per-pass wall and CPU time for `graft build --time-passes` (like lld's
// --time-trace and mold's --perf): a pass opens a PassTimer for its scope;
// the report lists the passes in the order they were first timed.
//
// One PassTimes belongs to one thread. Passes that run on threads of their
// own (a target's LLVM compile) time into their own PassTimes, which the
// driver appends in target order afterwards, so the report's order does
// not depend on how the threads ran.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace graft {

class PassTimes {
public:
  struct Entry {
    std::string name; // "x86_64 x86-64-v3: lower"
    double wall = 0;  // seconds
    double cpu = 0;   // seconds of this thread, and of the processes it ran
  };

  // Adds to |name|'s entry (a pass timed twice is summed).
  void add(const std::string &name, double wall, double cpu);
  // Appends |other|'s entries (summing those already here).
  void append(const PassTimes &other);
  const std::vector<Entry> &entries() const { return entries_; }
  // The table, with a total line of |wall| and |cpu| seconds.
  void print(std::FILE *out, double wall, double cpu) const;

private:
  std::vector<Entry> entries_;
};

// Times its scope as pass |name| of |times|; does nothing when |times| is
// null (--time-passes not given).
class PassTimer {
public:
  PassTimer(PassTimes *times, std::string name);
  ~PassTimer() { stop(); }
  // Ends the pass timed so far and starts timing |name| (for passes that
  // follow each other in one function).
  void next(std::string name);
  PassTimer(const PassTimer &) = delete;
  PassTimer &operator=(const PassTimer &) = delete;

private:
  void start();
  void stop();

  PassTimes *times_;
  std::string name_;
  std::chrono::steady_clock::time_point wallStart_;
  double cpuStart_ = 0;
};

// CPU seconds of the calling thread plus those of the process's child
// processes waited for so far (clang compiling kernels: only the driver's
// own thread runs them, never the compile threads).
double threadCpuSeconds();
// CPU seconds of the whole process (every thread) and its waited children.
double processCpuSeconds();

} // namespace graft
