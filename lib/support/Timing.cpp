//===- Timing.cpp - Clocks for --time-passes
//-------------------------------===//
#include "wirc/support/Timing.h"

#include <chrono>

#include <fmt/format.h>

#include <sys/resource.h>

namespace wirc {

namespace {
double milliseconds(const timeval &tv) {
  return double(tv.tv_sec) * 1e3 + double(tv.tv_usec) / 1e3;
}
} // namespace

ClockReading ClockReading::now() {
  ClockReading reading;
  reading.wallMs = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now().time_since_epoch())
                       .count();
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    reading.userMs = milliseconds(usage.ru_utime);
    reading.systemMs = milliseconds(usage.ru_stime);
    reading.faults = uint64_t(usage.ru_minflt);
  }
  return reading;
}

TimingRow TimingRow::between(std::string_view name, const ClockReading &begin,
                             const ClockReading &end) {
  // The process's CPU time, sampled over its threads, can step back by a
  // tick between two readings: such a span is empty, never negative.
  auto span = [](double a, double b) { return b > a ? b - a : 0.0; };
  return {name, span(begin.wallMs, end.wallMs), span(begin.userMs, end.userMs),
          span(begin.systemMs, end.systemMs),
          end.faults > begin.faults ? end.faults - begin.faults : 0};
}

std::string formatTimingReport(std::string_view title, std::string_view column,
                               const std::vector<TimingRow> &rows) {
  TimingRow total{"total"};
  for (const TimingRow &row : rows) {
    total.wallMs += row.wallMs;
    total.userMs += row.userMs;
    total.systemMs += row.systemMs;
    total.faults += row.faults;
  }
  std::string report =
      fmt::format("===-------------------------------------------===\n"
                  "  {}\n"
                  "===-------------------------------------------===\n",
                  title);
  report +=
      fmt::format("  {:>10}  {:>6}  {:>10}  {:>10}  {:>9}  {}\n", "wall (ms)",
                  "%", "user (ms)", "sys (ms)", "faults", column);
  auto line = [&](const TimingRow &row, double share) {
    report += fmt::format(
        "  {:>10.3f}  {:>5.1f}%  {:>10.3f}  {:>10.3f}  {:>9}  {}\n", row.wallMs,
        share, row.userMs, row.systemMs, row.faults, row.name);
  };
  for (const TimingRow &row : rows)
    line(row, total.wallMs > 0 ? 100 * row.wallMs / total.wallMs : 0.0);
  line(total, 100.0);
  return report;
}

} // namespace wirc
