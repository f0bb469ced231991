//===- wirc/support/Timing.h - Clocks for --time-passes ---------*- C++ -*-===//
//
// A phase's wall time alone does not say whether it kept the machine's cores
// busy or waited on the kernel: --time-passes also reports the process's CPU
// time (user and system, all threads together) and page faults over the same
// span, as LLVM's -time-passes reports user and system time beside wall time.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_SUPPORT_TIMING_H
#define WIRC_SUPPORT_TIMING_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wirc {

/// The process's clocks at one moment.
struct ClockReading {
  double wallMs = 0;
  double userMs = 0;   ///< CPU time in user mode, every thread of the process
  double systemMs = 0; ///< CPU time in the kernel (page faults, mostly)
  uint64_t faults = 0; ///< page faults served without I/O (ru_minflt)

  /// Now. Where getrusage fails, CPU time and faults read 0.
  static ClockReading now();
};

/// One row of a timing report: what the clocks advanced by over a span.
struct TimingRow {
  std::string_view name;
  double wallMs = 0;
  double userMs = 0;
  double systemMs = 0;
  uint64_t faults = 0;

  /// The row named \p name for the span from \p begin to \p end.
  static TimingRow between(std::string_view name, const ClockReading &begin,
                           const ClockReading &end);
};

/// A --time-passes report under \p title: per row, wall time and its share of
/// the total, user and system CPU time, page faults and \p column (the row's
/// name); then the totals.
std::string formatTimingReport(std::string_view title, std::string_view column,
                               const std::vector<TimingRow> &rows);

} // namespace wirc

#endif // WIRC_SUPPORT_TIMING_H
