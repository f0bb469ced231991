//===- Driver.h - The wirc command line, for a process or a caller --------===//
//
// The `wirc` command line as a function: the executable calls it with its
// own standard streams, the C API (include/wirc-c/wirc.h) with buffers.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_TOOLS_DRIVER_H
#define WIRC_TOOLS_DRIVER_H

#include <functional>
#include <string>
#include <string_view>

namespace wirc::driver {

struct DriverIO {
  /// Receives what `wirc` writes to standard output: the emitted text
  /// without -o, listings, --help and --version. By value: the emitted text
  /// is handed over, not copied.
  std::function<void(std::string)> out;
  /// Receives diagnostics, logs and --time-passes reports.
  std::function<void(std::string_view)> err;
  /// The process ends right after: the graph and the IR are left allocated
  /// (CompileRequest::disableFree).
  bool exitsAfter = false;
  /// See CompileRequest::releaseFreedMemory.
  std::function<void()> releaseFreedMemory;
};

/// Runs `wirc` with \p argv (argv[0] is the program name) and returns its exit
/// code. Internal errors and exhausted memory become messages and exit codes
/// as in the executable; nothing is thrown.
int runDriver(int argc, const char *const *argv, const DriverIO &io);

} // namespace wirc::driver

#endif // WIRC_TOOLS_DRIVER_H
