//===- Diagnostics.cpp ----------------------------------------------------===//
#include "wirc/support/Diagnostics.h"

#include <fmt/format.h>

namespace wirc {

static std::string_view severityName(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  }
  return "error";
}

std::string formatDiagnostic(const Diagnostic &diag) {
  std::string out;
  if (diag.file.empty())
    out = fmt::format("wirc: {}: {}", severityName(diag.severity), diag.message);
  else if (diag.pos.line == 0)
    out = fmt::format("{}: {}: {}", diag.file, severityName(diag.severity), diag.message);
  else
    out = fmt::format("{}:{}:{}: {}: {}", diag.file, diag.pos.line, diag.pos.column,
                      severityName(diag.severity), diag.message);
  if (!diag.pointer.empty())
    out += fmt::format(" (at {})", diag.pointer);
  return out;
}

void DiagnosticEngine::setSource(std::string newFile, Locator newLocator) {
  file = std::move(newFile);
  locator = std::move(newLocator);
}

void DiagnosticEngine::error(std::string_view pointer, std::string message) {
  report(Severity::Error, pointer, std::move(message), true);
}
void DiagnosticEngine::warning(std::string_view pointer, std::string message) {
  report(Severity::Warning, pointer, std::move(message), true);
}
void DiagnosticEngine::note(std::string_view pointer, std::string message) {
  report(Severity::Note, pointer, std::move(message), true);
}

void DiagnosticEngine::errorAt(SourcePos pos, std::string message) {
  if (++errorCount > kMaxReportedErrors)
    return;
  Diagnostic diag;
  diag.file = file;
  diag.pos = pos;
  diag.message = std::move(message);
  if (sink)
    sink(diag);
  all.push_back(std::move(diag));
}

void DiagnosticEngine::report(Severity severity, std::string_view pointer,
                              std::string message, bool located) {
  if (severity == Severity::Error && ++errorCount > kMaxReportedErrors)
    return;
  Diagnostic diag;
  diag.severity = severity;
  diag.message = std::move(message);
  if (located) {
    diag.file = file;
    diag.pointer = std::string(pointer);
    if (locator && !file.empty())
      diag.pos = locator(pointer);
    // The empty pointer is the whole document: print it as "/" so the
    // location is never ambiguous.
    if (diag.pointer.empty())
      diag.pointer.assign(1, '/'); // (not = "/": GCC 12 warns falsely, -Wrestrict)
  }
  if (sink)
    sink(diag);
  all.push_back(std::move(diag));
}

} // namespace wirc
