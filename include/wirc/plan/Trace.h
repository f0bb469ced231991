//===- wirc/plan/Trace.h - Lifetime traces and `wirc plan-trace` ----------===//
//
// A lifetime trace is MiniMalloc's CSV form: a header `id,lower,upper,size`
// and one row per buffer, live over the half-open range [lower, upper).
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_PLAN_TRACE_H
#define WIRC_PLAN_TRACE_H

#include "wirc/plan/Planner.h"
#include "wirc/support/Diagnostics.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wirc::plan {

/// A trace read from CSV: the problem and each request's id as written.
struct Trace {
  Problem problem;
  std::vector<std::string> ids; ///< by request id
};

/// Reads a trace from \p text. Every request gets \p alignment. Problems are
/// reported to \p diag at `line:column` of the file set with setSource: a
/// missing or wrong header, a wrong number of columns, an empty or duplicate
/// id, a non-integer or out-of-range number, a negative size, an upper
/// bound not above the lower one, and a padded size or live total past
/// int64. Returns nullopt if anything was reported.
std::optional<Trace> readTrace(std::string_view text, DiagnosticEngine &diag,
                               int64_t alignment = 1);

struct PlanTraceRequest {
  std::string inputPath = "-"; ///< "-" is standard input
  PlanOptions options;
  int64_t alignment = 1;    ///< the alignment of every request
  bool emitOffsets = false; ///< add every buffer's offset to the report
};

/// `wirc plan-trace`: reads the trace, plans it, checks the plan with the
/// independent checker and sets \p json to one JSON object (lower_bound,
/// peak, strategy, plan_ms, buffers and, on request, offsets by id in input
/// order). A plan the checker rejects is an InternalError.
ExitCode planTrace(const PlanTraceRequest &request, DiagnosticEngine &diag, std::string &json);

} // namespace wirc::plan

#endif // WIRC_PLAN_TRACE_H
