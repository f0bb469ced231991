//===- PassManager.cpp - Registry and pipeline ----------------------------===//
#include "wirc/passes/Pass.h"

#include "wirc/ir/Verifier.h"
#include "wirc/support/Timing.h"

#include <algorithm>
#include <array>

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
  const bool timed = instrumentation.timePasses && instrumentation.print;
  std::vector<TimingRow> timings;
  for (const PassInfo *pass : pipeline) {
    ClockReading start = timed ? ClockReading::now() : ClockReading{};
    bool ok = pass->run(module, context);
    if (timed)
      timings.push_back(TimingRow::between(pass->name, start, ClockReading::now()));
    if (!ok)
      return false;
    if (instrumentation.afterPass)
      instrumentation.afterPass(pass->name);
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
  if (timed)
    instrumentation.print(formatTimingReport("wirc pass execution timing report", "pass", timings));
  return true;
}

} // namespace wirc::passes
