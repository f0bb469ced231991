//===- wirc/support/Diagnostics.h - User-facing diagnostics ---------------===//
//
// Diagnostics are a product surface, separate from logging: they are what a
// user reads when their graph is wrong. Every located diagnostic names the
// file, line and column and the JSON Pointer of the offending value.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_SUPPORT_DIAGNOSTICS_H
#define WIRC_SUPPORT_DIAGNOSTICS_H

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace wirc {

/// Process exit codes of the wirc driver. Documented in docs/cli.md; tools and
/// CI scripts depend on them, so values never change meaning.
enum class ExitCode : int {
  Success = 0,
  UserError = 1,      ///< the input is invalid; diagnostics were printed
  UsageError = 2,     ///< the command line is invalid
  NotImplemented = 3, ///< a valid request that this build cannot serve yet
  KernelError = 4,    ///< a kernel did not compile, or the toolkit is unavailable
  OutOfMemory = 5,    ///< the process ran out of memory (a graph beyond the machine)
  InternalError = 70, ///< a bug in wirc (sysexits EX_SOFTWARE)
};

enum class Severity { Error, Warning, Note };

/// A line and column (both 1-based) in an input file; 0 when unknown.
struct SourcePos {
  unsigned line = 0;
  unsigned column = 0;
};

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string file;    ///< empty for diagnostics without a file
  SourcePos pos;       ///< 0:0 when the position is unknown
  std::string pointer; ///< JSON Pointer of the offending value, or empty
  std::string message; ///< lower-case, no final period
};

/// Formats a diagnostic as `file:line:col: error: message (at /json/pointer)`,
/// or `wirc: error: message` when it has no file.
std::string formatDiagnostic(const Diagnostic &diag);

/// Collects diagnostics. Positions of JSON Pointers are resolved through a
/// locator supplied by whoever holds the source text, so passes far from the
/// reader can still report `file:line:col`.
class DiagnosticEngine {
public:
  using Locator = std::function<SourcePos(std::string_view pointer)>;
  using Sink = std::function<void(const Diagnostic &)>;

  /// Diagnostics go to \p sink as they are reported (default: kept only).
  explicit DiagnosticEngine(Sink sink = {}) : sink(std::move(sink)) {}

  /// Sets the file name and locator used for pointer-located diagnostics.
  void setSource(std::string file, Locator locator);

  void error(std::string_view pointer, std::string message);
  void warning(std::string_view pointer, std::string message);
  void note(std::string_view pointer, std::string message);
  /// An error at a known position of the input file that has no pointer
  /// (malformed JSON).
  void errorAt(SourcePos pos, std::string message);
  /// An error that concerns no particular value of the input.
  void error(std::string message) { report(Severity::Error, {}, std::move(message), false); }

  bool hasErrors() const { return errorCount != 0; }
  unsigned numErrors() const { return errorCount; }
  const std::vector<Diagnostic> &diagnostics() const { return all; }

  /// Errors past this many are counted but not reported, so a pathological
  /// input cannot flood the terminal.
  static constexpr unsigned kMaxReportedErrors = 20;

private:
  void report(Severity severity, std::string_view pointer, std::string message,
              bool located);

  Sink sink;
  std::string file;
  Locator locator;
  std::vector<Diagnostic> all;
  unsigned errorCount = 0;
};

/// Thrown for violated internal invariants: a bug in wirc, never bad input.
class InternalError : public std::logic_error {
public:
  using std::logic_error::logic_error;
};

/// Thrown when the input is valid but asks for something this build of wirc
/// does not implement yet.
class NotImplementedError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace wirc

#endif // WIRC_SUPPORT_DIAGNOSTICS_H
