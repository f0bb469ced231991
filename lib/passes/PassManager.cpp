//===- PassManager.cpp - Registry and pipeline ----------------------------===//
#include "wirc/passes/Pass.h"

#include "wirc/ir/Verifier.h"

#include <algorithm>
#include <array>
#include <chrono>

#include <fmt/format.h>

namespace wirc::passes {

namespace {
constexpr std::array kPasses = {
#define WIRC_PASS(NAME, FN, SUMMARY, DESCRIPTION) PassInfo{NAME, &FN, SUMMARY, DESCRIPTION},
#include "wirc/passes/Passes.def"
};
} // namespace

std::span<const PassInfo> allPasses() { return kPasses; }

const PassInfo *findPass(std::string_view name) {
  for (const PassInfo &pass : kPasses)
    if (pass.name == name)
      return &pass;
  return nullptr;
}

/// The order in which a graph becomes a wrapper. Reads top to bottom.
std::vector<const PassInfo *> buildDefaultPipeline() {
  return {
      findPass("build-wrapper-ir"),  // graph -> Wrapper IR, allocations at first write
      findPass("name-kernel-args"),  // in_ptrN / out_ptrN / in_out_ptrN / ksN
      findPass("plan-memory"),       // frees at last use
      findPass("fold-launch-grids"), // per-config launch grids
      findPass("verify"),
  };
}

bool verify(ir::Module &module, PassContext &) {
  std::vector<std::string> errors = ir::verifyModule(module);
  if (errors.empty())
    return true;
  std::string message = "malformed Wrapper IR:";
  for (const std::string &error : errors)
    message += "\n  " + error;
  throw InternalError(message);
}

bool runPipeline(const std::vector<const PassInfo *> &pipeline, ir::Module &module,
                 PassContext &context, const PipelineInstrumentation &instrumentation) {
  using Clock = std::chrono::steady_clock;
  std::vector<std::pair<std::string_view, double>> timings;
  for (const PassInfo *pass : pipeline) {
    auto start = Clock::now();
    bool ok = pass->run(module, context);
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    timings.emplace_back(pass->name, ms);
    if (!ok)
      return false;
    // Without verifyEach the pipeline's own verify pass checks the final IR.
    if (instrumentation.verifyEach) {
      if (std::vector<std::string> errors = ir::verifyModule(module); !errors.empty()) {
        std::string message = fmt::format("pass '{}' produced malformed Wrapper IR:", pass->name);
        for (const std::string &error : errors)
          message += "\n  " + error;
        throw InternalError(message);
      }
    }
    bool print = instrumentation.printAfterAll ||
                 std::find(instrumentation.printAfter.begin(), instrumentation.printAfter.end(),
                           pass->name) != instrumentation.printAfter.end();
    if (print && instrumentation.print)
      instrumentation.print(fmt::format("// -----// IR after {} //----- //\n{}\n", pass->name,
                                        ir::printModule(module)));
  }
  if (instrumentation.timePasses && instrumentation.print)
    instrumentation.print(formatTimingReport("wirc pass execution timing report", "pass", timings));
  return true;
}

std::string formatTimingReport(std::string_view title, std::string_view column,
                               const std::vector<std::pair<std::string_view, double>> &rows) {
  double total = 0;
  for (const auto &[name, ms] : rows)
    total += ms;
  std::string report = fmt::format("===-------------------------------------------===\n"
                                   "  {}\n"
                                   "===-------------------------------------------===\n",
                                   title);
  report += fmt::format("  {:>10}  {:>6}  {}\n", "wall (ms)", "%", column);
  for (const auto &[name, ms] : rows)
    report += fmt::format("  {:>10.3f}  {:>5.1f}%  {}\n", ms, total > 0 ? 100 * ms / total : 0.0,
                          name);
  report += fmt::format("  {:>10.3f}  {:>5.1f}%  total\n", total, 100.0);
  return report;
}

} // namespace wirc::passes
