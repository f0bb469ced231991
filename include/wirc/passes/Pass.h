//===- wirc/passes/Pass.h - Passes, their registry and the pipeline -------===//
#ifndef WIRC_PASSES_PASS_H
#define WIRC_PASSES_PASS_H

#include "wirc/graph/Graph.h"
#include "wirc/ir/WrapperIR.h"
#include "wirc/support/Diagnostics.h"

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wirc::passes {

/// How plan-memory places buffers.
enum class MemoryPlan : uint8_t {
  None,  ///< allocate every buffer, free it after its last use
  Reuse, ///< also hand a freed buffer's storage to a later buffer of the same
         ///< device, dtype and storage size (Inductor's default)
  Pool,  ///< reuse, then carve static-size intermediates from one pool per
         ///< device placed by Inductor's pool planner
  Arena, ///< carve static-size intermediates from one arena per device placed
         ///< by wirc's arena planner; symbolic sizes keep reuse
};

/// The spelling of \p plan on the command line: none, reuse, pool, arena.
std::string_view memoryPlanName(MemoryPlan plan);

/// Options that change what passes produce.
struct CompileOptions {
  /// Emit size/stride asserts for inputs and extern outputs.
  bool sizeAsserts = true;
  MemoryPlan memoryPlan = MemoryPlan::Reuse;
  /// Arena only: the search effort and seed (see wirc::plan::PlanOptions).
  unsigned planEffort = 1;
  uint64_t planSeed = 0;
  /// Check every memory plan with the independent checker; a rejected plan
  /// is an InternalError.
  bool verifyPlan = false;
  /// Record each function's lower bound and peak (Module::memoryStats).
  /// Only --stats, the manifest and --verify-plan read them, and measuring
  /// every plan costs a tenth of a large compile: the driver turns this off
  /// when nothing will.
  bool memoryStats = true;
  /// Also derive the symbolic forms of the lower bound and peak
  /// (MemoryPlanStats::*Expr): needed by --stats and the manifest only, and
  /// costly on large dynamic graphs.
  bool symbolicStats = false;
  /// Threads a pass may use (build-wrapper-ir, plan-memory and the
  /// line-local passes split a large function into parts, a part a
  /// thread); the output does not depend on it.
  unsigned threads = 1;
  /// The fewest nodes or lines a part takes: a thread costs about as much as
  /// half as many lines. Tests lower it to split small functions.
  size_t minPerPart = 32768;
};

/// Module::memoryStats as text, one line per function and device (--stats).
std::string formatMemoryStats(const ir::Module &module);

/// What a pass sees besides the module.
struct PassContext {
  /// The graph being compiled. Only build-wrapper-ir reads it; it is null
  /// after that pass when the context owns it (\c ownedDocument).
  const graph::Document *document;
  const CompileOptions &options;
  DiagnosticEngine &diag;
  /// Set when the pipeline may free the document: build-wrapper-ir then moves
  /// the kernels into the module and frees the rest once the IR is built, so
  /// a large graph and its IR are not both alive for the rest of the pipeline.
  std::unique_ptr<graph::Document> ownedDocument = nullptr;
};

/// A pass returns false after reporting a user error to the context's
/// DiagnosticEngine. Internal invariant violations throw InternalError.
using PassFn = bool (*)(ir::Module &, PassContext &);

struct PassInfo {
  std::string_view name;
  PassFn run;
  std::string_view summary;
  std::string_view description;
};

/// Every registered pass, in registry order (Passes.def).
std::span<const PassInfo> allPasses();
/// The pass called \p name, or null.
const PassInfo *findPass(std::string_view name);
/// The default pipeline.
std::vector<const PassInfo *> buildDefaultPipeline();

#define WIRC_PASS(NAME, FN, SUMMARY, DESCRIPTION) bool FN(ir::Module &, PassContext &);
#include "wirc/passes/Passes.def"

/// Instrumentation of a pipeline run.
struct PipelineInstrumentation {
  /// Passes after which the IR is printed (by name); see printAll.
  std::vector<std::string> printAfter;
  bool printAfterAll = false;
  bool timePasses = false;
  /// Print the memory plan's figures (formatMemoryStats) after the pipeline.
  bool memoryStats = false;
  /// Run the IR verifier after every pass. The default pipeline ends with
  /// the verify pass either way; this pins a malformed IR on the pass that
  /// made it.
  bool verifyEach = false;
  /// Receives IR dumps and the timing report (the driver sends them to stderr).
  std::function<void(std::string_view)> print;
  /// Called with a pass's name after it succeeds: the driver starts work
  /// that overlaps the rest of the pipeline.
  std::function<void(std::string_view)> afterPass;
};

/// Runs \p pipeline over \p module, verifying the IR after every pass.
/// Returns false if a pass reported a user error. Throws InternalError if a
/// pass leaves the IR malformed.
bool runPipeline(const std::vector<const PassInfo *> &pipeline, ir::Module &module,
                 PassContext &context, const PipelineInstrumentation &instrumentation = {});

} // namespace wirc::passes

#endif // WIRC_PASSES_PASS_H
