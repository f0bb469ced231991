//===- wirc/passes/Pass.h - Passes, their registry and the pipeline -------===//
#ifndef WIRC_PASSES_PASS_H
#define WIRC_PASSES_PASS_H

#include "wirc/graph/Graph.h"
#include "wirc/ir/WrapperIR.h"
#include "wirc/support/Diagnostics.h"

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wirc::passes {

/// Options that change what passes produce.
/// How plan-memory places buffers.
enum class MemoryPlan : uint8_t {
  None,  ///< allocate every buffer, free it after its last use
  Reuse, ///< also hand a freed buffer's storage to a later buffer of the same
         ///< device, dtype and storage size (Inductor's default)
};

struct CompileOptions {
  /// Emit size/stride asserts for inputs and extern outputs.
  bool sizeAsserts = true;
  MemoryPlan memoryPlan = MemoryPlan::Reuse;
};

/// What a pass sees besides the module.
struct PassContext {
  const graph::Document &document;
  const CompileOptions &options;
  DiagnosticEngine &diag;
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
  /// Receives IR dumps and the timing report (the driver sends them to stderr).
  std::function<void(std::string_view)> print;
};

/// Runs \p pipeline over \p module, verifying the IR after every pass.
/// Returns false if a pass reported a user error. Throws InternalError if a
/// pass leaves the IR malformed.
bool runPipeline(const std::vector<const PassInfo *> &pipeline, ir::Module &module,
                 PassContext &context, const PipelineInstrumentation &instrumentation = {});

} // namespace wirc::passes

#endif // WIRC_PASSES_PASS_H
