//===- wirc/driver/Compiler.h - One compilation, end to end ---------------===//
//
// The library entry point behind `wirc compile`: read and validate a graph,
// run the pipeline, emit, and write the output only if everything succeeded.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_DRIVER_COMPILER_H
#define WIRC_DRIVER_COMPILER_H

#include "wirc/cuda/KernelCompiler.h"
#include "wirc/emit/Emitter.h"
#include "wirc/graph/Reader.h"
#include "wirc/passes/Pass.h"
#include "wirc/support/Diagnostics.h"

#include <functional>
#include <string>
#include <string_view>

namespace wirc {

struct CompileRequest {
  std::string inputPath = "-";  ///< "-" is standard input
  std::string outputPath = "-"; ///< "-" is standard output
  std::string emit = "fx"; ///< a registered emitter's name (emit::registerEmitter)
  bool printIR = false; ///< write the final Wrapper IR instead of emitting
  /// --emit=cpp only: also write a CMakeLists.txt next to the output that
  /// builds it into a shared library (driver/WrapperProject.h).
  bool build = false;
  /// --emit=cpp only: write this directory (the wrapper, kernels/ and
  /// manifest.json, driver/Manifest.h) instead of one file.
  std::string outputDir;
  /// --emit=cpp: how kernels are compiled (cuda/KernelCompiler.h).
  cuda::CompilerOptions kernels;
  /// Leave the graph and the IR allocated at the end (the driver exits
  /// right after; see support/BuryPointer.h).
  bool disableFree = false;
  /// Called once the pipeline is done, before emission: the driver keeps
  /// freed pages for reuse (a page handed back costs a fault when taken
  /// again) and hands them back here, where what was freed (the graph, the
  /// passes' tables) is not what emission allocates.
  std::function<void()> releaseFreedMemory;
  /// Receives the output when outputPath is "-", by value so that a caller
  /// keeping it takes it over without a copy; unset, the output goes to the
  /// process's standard output.
  std::function<void(std::string)> standardOutput;
  /// Bounds on the input (--max-nodes, --max-input-bytes).
  graph::ReaderLimits limits;
  passes::CompileOptions options;
  emit::EmitOptions emitOptions;
  passes::PipelineInstrumentation instrumentation;
};

/// Runs one compilation, reporting problems to \p diag. Returns the exit code
/// the driver should use; InternalError propagates to the caller.
ExitCode compile(const CompileRequest &request, DiagnosticEngine &diag);

/// "wirc X.Y.Z".
std::string versionString();

} // namespace wirc

#endif // WIRC_DRIVER_COMPILER_H
