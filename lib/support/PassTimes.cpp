#include "support/PassTimes.h"

#include <sys/resource.h>
#include <time.h>

namespace graft {

namespace {

double clockSeconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double childrenSeconds() {
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  auto seconds = [](const timeval &tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6;
  };
  return seconds(ru.ru_utime) + seconds(ru.ru_stime);
}

} // namespace

double threadCpuSeconds() { return clockSeconds(CLOCK_THREAD_CPUTIME_ID) + childrenSeconds(); }

double processCpuSeconds() { return clockSeconds(CLOCK_PROCESS_CPUTIME_ID) + childrenSeconds(); }

void PassTimes::add(const std::string &name, double wall, double cpu) {
  for (Entry &e : entries_) {
    if (e.name == name) {
      e.wall += wall;
      e.cpu += cpu;
      return;
    }
  }
  entries_.push_back({name, wall, cpu});
}

void PassTimes::append(const PassTimes &other) {
  for (const Entry &e : other.entries_)
    add(e.name, e.wall, e.cpu);
}

void PassTimes::print(std::FILE *out, double wall, double cpu) const {
  std::fprintf(out, "%10s %10s  %s\n", "wall (s)", "CPU (s)", "pass");
  for (const Entry &e : entries_)
    std::fprintf(out, "%10.4f %10.4f  %s\n", e.wall, e.cpu, e.name.c_str());
  std::fprintf(out, "%10.4f %10.4f  %s\n", wall, cpu, "total");
}

PassTimer::PassTimer(PassTimes *times, std::string name)
    : times_(times), name_(std::move(name)) {
  start();
}

void PassTimer::next(std::string name) {
  stop();
  name_ = std::move(name);
  start();
}

void PassTimer::start() {
  if (!times_)
    return;
  wallStart_ = std::chrono::steady_clock::now();
  cpuStart_ = threadCpuSeconds();
}

void PassTimer::stop() {
  if (!times_ || name_.empty())
    return;
  std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wallStart_;
  times_->add(name_, wall.count(), threadCpuSeconds() - cpuStart_);
  name_.clear();
}

} // namespace graft
