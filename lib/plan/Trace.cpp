//===- Trace.cpp - MiniMalloc CSV traces and `wirc plan-trace` ------------===//
#include "wirc/plan/Trace.h"

#include "wirc/plan/Checker.h"
#include "wirc/support/OutputFile.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <unordered_map>

namespace wirc::plan {

namespace {

constexpr std::string_view kHeader = "id,lower,upper,size";

/// A field of a row and the 1-based column where it starts.
struct Field {
  std::string_view text;
  unsigned column;
};

/// Shows at most a few dozen characters of user text in a message.
std::string excerpt(std::string_view text) {
  constexpr size_t kMax = 40;
  if (text.size() <= kMax)
    return std::string(text);
  return std::string(text.substr(0, kMax)) + "...";
}

/// Parses a whole field as a decimal int64: an optional '-' and digits.
std::optional<int64_t> parseInteger(const Field &field, std::string_view what, unsigned line,
                                    DiagnosticEngine &diag) {
  int64_t value = 0;
  const char *first = field.text.data();
  const char *last = first + field.text.size();
  auto [end, error] = std::from_chars(first, last, value);
  bool digitsOnly = !field.text.empty() && end == last;
  if (error == std::errc::result_out_of_range && digitsOnly) {
    diag.errorAt({line, field.column},
                 fmt::format("'{}' value {} is out of range for a 64-bit integer", what,
                             excerpt(field.text)));
    return std::nullopt;
  }
  if (error != std::errc() || !digitsOnly || field.text.front() == '+') {
    diag.errorAt({line, field.column},
                 fmt::format("expected an integer for '{}', got '{}'", what, excerpt(field.text)));
    return std::nullopt;
  }
  return value;
}

} // namespace

std::optional<Trace> readTrace(std::string_view text, DiagnosticEngine &diag, int64_t alignment) {
  const unsigned errorsBefore = diag.numErrors();
  Trace trace;
  std::vector<unsigned> rowLine;                                // by request id
  std::vector<unsigned> sizeColumn;                             // by request id
  std::unordered_map<std::string_view, unsigned> firstLineOfId; // lookups only

  unsigned line = 0;
  bool sawHeader = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t newline = text.find('\n', pos);
    std::string_view row =
        text.substr(pos, newline == std::string_view::npos ? text.npos : newline - pos);
    pos = newline == std::string_view::npos ? text.size() : newline + 1;
    ++line;
    if (!row.empty() && row.back() == '\r')
      row.remove_suffix(1);
    if (!sawHeader) {
      sawHeader = true;
      if (row != kHeader) {
        diag.errorAt({line, 1},
                     fmt::format("expected the header '{}', got '{}'", kHeader, excerpt(row)));
        return std::nullopt;
      }
      continue;
    }
    if (row.empty())
      continue;

    std::vector<Field> fields;
    size_t start = 0;
    while (true) {
      size_t comma = row.find(',', start);
      fields.push_back({row.substr(start, comma == row.npos ? row.npos : comma - start),
                        static_cast<unsigned>(start + 1)});
      if (comma == row.npos)
        break;
      start = comma + 1;
    }
    if (fields.size() != 4) {
      unsigned column =
          fields.size() > 4 ? fields[4].column : static_cast<unsigned>(row.size() + 1);
      diag.errorAt({line, column},
                   fmt::format("expected 4 fields ({}), got {}", kHeader, fields.size()));
      continue;
    }
    const Field &id = fields[0];
    if (id.text.empty()) {
      diag.errorAt({line, id.column}, "empty id");
      continue;
    }
    std::optional<int64_t> lower = parseInteger(fields[1], "lower", line, diag);
    std::optional<int64_t> upper = parseInteger(fields[2], "upper", line, diag);
    std::optional<int64_t> size = parseInteger(fields[3], "size", line, diag);
    if (!lower || !upper || !size)
      continue;
    if (*size < 0) {
      diag.errorAt({line, fields[3].column}, fmt::format("negative size {}", *size));
      continue;
    }
    if (*upper <= *lower) {
      diag.errorAt({line, fields[2].column},
                   fmt::format("'upper' ({}) must be greater than 'lower' ({})", *upper, *lower));
      continue;
    }
    if (!checkedAlignUp(*size, alignment)) {
      diag.errorAt(
          {line, fields[3].column},
          fmt::format("size {} aligned to {} overflows a 64-bit integer", *size, alignment));
      continue;
    }
    auto [it, inserted] = firstLineOfId.try_emplace(id.text, line);
    if (!inserted) {
      diag.errorAt({line, id.column}, fmt::format("duplicate id '{}'; first defined on line {}",
                                                  excerpt(id.text), it->second));
      continue;
    }
    trace.ids.emplace_back(id.text);
    trace.problem.requests.push_back({*size, *lower, *upper, alignment});
    rowLine.push_back(line);
    sizeColumn.push_back(fields[3].column);
  }
  if (!sawHeader) {
    diag.errorAt({1, 1}, fmt::format("empty trace; expected the header '{}'", kHeader));
    return std::nullopt;
  }
  if (diag.numErrors() != errorsBefore)
    return std::nullopt;

  // The bytes live at once must fit in int64; report the row whose
  // allocation first overflows.
  struct Event {
    int64_t time;
    int64_t delta;
    uint32_t id;
  };
  std::vector<Event> events;
  for (uint32_t id = 0; id < trace.problem.requests.size(); ++id) {
    const Request &r = trace.problem.requests[id];
    int64_t padded = paddedSize(r);
    events.push_back({r.begin, padded, id});
    events.push_back({r.end, -padded, id});
  }
  std::sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
    if (a.time != b.time)
      return a.time < b.time;
    if (a.delta != b.delta)
      return a.delta < b.delta;
    return a.id < b.id;
  });
  int64_t live = 0;
  for (const Event &event : events) {
    std::optional<int64_t> next = checkedAdd(live, event.delta);
    if (!next) {
      diag.errorAt({rowLine[event.id], sizeColumn[event.id]},
                   fmt::format("the bytes live at time {} overflow a 64-bit integer", event.time));
      return std::nullopt;
    }
    live = *next;
  }
  return trace;
}

ExitCode planTrace(const PlanTraceRequest &request, DiagnosticEngine &diag, std::string &json) {
  if (request.alignment <= 0 || (request.alignment & (request.alignment - 1)) != 0) {
    diag.error(fmt::format("alignment {} is not a power of two", request.alignment));
    return ExitCode::UsageError;
  }
  std::string text;
  if (std::string error = readWholeFile(request.inputPath, text); !error.empty()) {
    diag.error(error);
    return ExitCode::UserError;
  }
  diag.setSource(request.inputPath == "-" ? "<stdin>" : request.inputPath, nullptr);
  std::optional<Trace> trace = readTrace(text, diag, request.alignment);
  if (!trace)
    return ExitCode::UserError;

  auto start = std::chrono::steady_clock::now();
  PlanResult result = planMemory(trace->problem, request.options);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!result.ok()) {
    diag.error(result.error);
    return ExitCode::UserError;
  }
  CheckResult check = checkPlan(trace->problem, result.plan);
  if (!check.ok())
    throw InternalError(fmt::format("the {} plan fails the plan checker: {}",
                                    strategyName(request.options.strategy), check.errors.front()));
  const int64_t bound = *lowerBound(trace->problem);

  nlohmann::ordered_json out;
  out["strategy"] = strategyName(request.options.strategy);
  if (request.options.strategy == Strategy::Arena)
    out["effort"] = request.options.effort;
  out["method"] = result.stats.method;
  out["buffers"] = trace->problem.requests.size();
  out["alignment"] = request.alignment;
  out["lower_bound"] = bound;
  out["peak"] = result.plan.peak;
  out["ratio"] =
      bound == 0
          ? 1.0
          : std::round(static_cast<double>(result.plan.peak) / static_cast<double>(bound) * 1e4) /
                1e4;
  out["plan_ms"] = std::round(ms * 1e3) / 1e3;
  if (request.emitOffsets) {
    nlohmann::ordered_json offsets = nlohmann::ordered_json::object();
    for (size_t id = 0; id < trace->ids.size(); ++id)
      offsets[trace->ids[id]] = result.plan.offsets[id];
    out["offsets"] = std::move(offsets);
  }
  json = out.dump() + "\n";
  return ExitCode::Success;
}

} // namespace wirc::plan
