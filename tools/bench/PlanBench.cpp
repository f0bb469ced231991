//===- PlanBench.cpp - Memory planner benchmark ---------------------------===//
//
// Plans MiniMalloc's traces and synthetic network-shaped traces with every
// strategy and prints, per case, each plan's peak over the lower bound and
// the time it took. Every plan is checked by the independent checker; a plan
// that fails makes the tool exit non-zero.
//
//   wirc-plan-bench --minimalloc DIR [--sizes 1000,10000] [--efforts 0,1,3]
//
//===----------------------------------------------------------------------===//
#include "wirc/plan/Checker.h"
#include "wirc/plan/Planner.h"
#include "wirc/plan/Synthetic.h"
#include "wirc/plan/Trace.h"
#include "wirc/support/OutputFile.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>

using namespace wirc;
using namespace wirc::plan;

namespace {

struct Case {
  std::string name;
  std::string family; ///< "minimalloc", "inference" or "training"
  Problem problem;
};

/// Pairs of requests live at once, counted by a sweep: the greedy baseline
/// visits each such pair, so this predicts its cost.
uint64_t conflictPairs(const Problem &problem) {
  std::vector<std::pair<int64_t, int>> events;
  for (const Request &r : problem.requests) {
    if (r.size == 0)
      continue;
    events.emplace_back(r.begin, 1);
    events.emplace_back(r.end, -1);
  }
  std::sort(events.begin(), events.end());
  uint64_t pairs = 0, live = 0;
  for (const auto &[time, delta] : events) {
    if (delta > 0)
      pairs += live++;
    else
      --live;
  }
  return pairs;
}

struct Column {
  std::string title;
  PlanOptions options;
};

struct Cell {
  bool ran = false;
  double ratio = 0;
  double ms = 0;
  std::string method;
};

Cell runCell(const Problem &problem, int64_t bound, const PlanOptions &options, int repeat,
             bool &failed) {
  Cell cell;
  std::vector<double> times;
  PlanResult result;
  for (int i = 0; i < repeat; ++i) {
    auto start = std::chrono::steady_clock::now();
    result = planMemory(problem, options);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                              start)
                        .count());
  }
  if (!result.ok()) {
    fmt::print(stderr, "error: {}\n", result.error);
    failed = true;
    return cell;
  }
  CheckResult check = checkPlan(problem, result.plan);
  if (!check.ok()) {
    fmt::print(stderr, "CHECKER REJECTS {} plan: {}\n", strategyName(options.strategy),
               check.errors.front());
    failed = true;
  }
  std::sort(times.begin(), times.end());
  cell.ran = true;
  cell.ms = times[times.size() / 2];
  cell.ratio = bound == 0 ? 1.0 : static_cast<double>(result.plan.peak) / static_cast<double>(bound);
  cell.method = result.stats.method;
  return cell;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Benchmarks wirc's memory planners on lifetime traces."};
  std::string minimallocDir;
  app.add_option("--minimalloc", minimallocDir,
                 "Directory of MiniMalloc CSV traces (every *.csv in it is a case)");
  std::vector<size_t> sizes{1000, 10000, 100000, 1000000};
  app.add_option("--sizes", sizes, "Buffer counts of the synthetic traces")->delimiter(',');
  std::vector<unsigned> efforts{0, kDefaultEffort, 3};
  app.add_option("--efforts", efforts, "Arena effort levels to run")->delimiter(',');
  int repeat = 1;
  app.add_option("--repeat", repeat, "Runs per cell; the median time is printed");
  uint64_t pairLimit = 200'000'000;
  app.add_option("--greedy-pair-limit", pairLimit,
                 "Skip greedy-size where more request pairs than this are live at once");
  size_t poolLimit = 1'000'000;
  app.add_option("--pool-limit", poolLimit, "Skip pool above this many buffers");
  bool showMethod = false;
  app.add_flag("--methods", showMethod, "Print the arena's winning method per case");
  CLI11_PARSE(app, argc, argv);

  std::vector<Case> cases;
  if (!minimallocDir.empty()) {
    std::vector<std::filesystem::path> files;
    for (const auto &entry : std::filesystem::directory_iterator(minimallocDir))
      if (entry.path().extension() == ".csv")
        files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto &file : files) {
      std::string text;
      if (std::string error = readWholeFile(file.string(), text); !error.empty()) {
        fmt::print(stderr, "error: {}\n", error);
        return 1;
      }
      DiagnosticEngine diag([](const Diagnostic &d) { fmt::print(stderr, "{}\n", formatDiagnostic(d)); });
      diag.setSource(file.filename().string(), nullptr);
      std::optional<Trace> trace = readTrace(text, diag);
      if (!trace)
        return 1;
      cases.push_back({file.stem().string(), "minimalloc", std::move(trace->problem)});
    }
  }
  for (size_t n : sizes)
    cases.push_back({fmt::format("inference-{}", n), "inference", makeInferenceTrace(n)});
  for (size_t n : sizes)
    cases.push_back({fmt::format("training-{}", n), "training", makeTrainingTrace(n)});

  std::vector<Column> columns;
  columns.push_back({"greedy-size", {Strategy::GreedySize}});
  columns.push_back({"pool", {Strategy::Pool}});
  for (unsigned effort : efforts)
    columns.push_back({fmt::format("arena e{}", effort), {Strategy::Arena, effort}});

  std::string header = fmt::format("{:<16} {:>8} {:>14}", "case", "buffers", "lower bound");
  for (const Column &column : columns)
    header += fmt::format(" | {:>20}", column.title + " x LB, ms");
  fmt::print("{}\n{}\n", header, std::string(header.size(), '-'));

  bool failed = false;
  // Per column and family: sum of log ratios and count, and the worst time.
  std::map<std::pair<size_t, std::string>, std::tuple<double, int, double>> summary;
  for (const Case &c : cases) {
    const int64_t bound = lowerBound(c.problem).value_or(0);
    std::string line = fmt::format("{:<16} {:>8} {:>14}", c.name, c.problem.requests.size(), bound);
    std::string methods;
    for (size_t col = 0; col < columns.size(); ++col) {
      const Column &column = columns[col];
      bool skip = (column.options.strategy == Strategy::GreedySize &&
                   conflictPairs(c.problem) > pairLimit) ||
                  (column.options.strategy == Strategy::Pool && c.problem.requests.size() > poolLimit);
      if (skip) {
        line += fmt::format(" | {:>20}", "skipped");
        continue;
      }
      Cell cell = runCell(c.problem, bound, column.options, repeat, failed);
      line += fmt::format(" | {:>9.4f} {:>10.1f}", cell.ratio, cell.ms);
      if (column.options.strategy == Strategy::Arena)
        methods += fmt::format(" {}={}", column.title, cell.method);
      auto &[logSum, count, worst] = summary[{col, c.family}];
      logSum += std::log(cell.ratio);
      ++count;
      worst = std::max(worst, cell.ms);
    }
    fmt::print("{}\n", line);
    if (showMethod)
      fmt::print("{:<16}{}\n", "", methods);
    std::fflush(stdout);
  }

  fmt::print("\ngeomean x LB (worst ms) per family\n");
  for (const char *family : {"minimalloc", "inference", "training"}) {
    std::string line = fmt::format("{:<16} {:>8} {:>14}", family, "", "");
    bool any = false;
    for (size_t col = 0; col < columns.size(); ++col) {
      auto it = summary.find({col, family});
      if (it == summary.end()) {
        line += fmt::format(" | {:>20}", "-");
        continue;
      }
      any = true;
      auto [logSum, count, worst] = it->second;
      line += fmt::format(" | {:>9.4f} {:>10.1f}", std::exp(logSum / count), worst);
    }
    if (any)
      fmt::print("{}\n", line);
  }
  return failed ? 1 : 0;
}
