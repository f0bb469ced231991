//===- wirc/cuda/ModuleKernels.h - Compiling a module's kernels -----------===//
//
// Connects the kernel compiler to Wrapper IR: finds the kernel configs a
// module launches, compiles them, and stores each cubin in its config's
// artifacts, where the C++ emitter embeds it.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_CUDA_MODULEKERNELS_H
#define WIRC_CUDA_MODULEKERNELS_H

#include "wirc/cuda/KernelCompiler.h"
#include "wirc/ir/WrapperIR.h"
#include "wirc/support/Diagnostics.h"

#include <string>
#include <vector>

namespace wirc::cuda {

enum class KernelSelection : uint8_t {
  /// Only kernels the driver cannot load as they are: CUDA C++ and LLVM IR
  /// sources without compiled artifacts.
  SourcesOnly,
  /// Every launched kernel with PTX (its source or its config's artifacts),
  /// so each runs as a cubin for the chosen architecture.
  All,
};

/// One kernel image of a compiled module, as the output directory holds it.
struct KernelImage {
  std::string kernel;            ///< the kernel's name
  std::vector<unsigned> configs; ///< the launched configs this image serves
  std::string fileStem;          ///< kernels/STEM.cubin: the name, or NAME.CONFIG
  std::string language;          ///< the kernel's source language
  std::string entry;             ///< the entry point
  /// Empty when the graph carried the cubin and nothing was compiled.
  std::string arch, key, toolchain;
  std::string ptx, cubin;
  bool fromCache = false;
};

/// Compiles the kernels \p selection picks in \p module and stores their
/// cubins (base64) and PTX in the launched configs' artifacts. Reports
/// failures to \p diag, located at the kernel's source, and returns
/// ExitCode::KernelError; Success otherwise. With \p images, also lists
/// every launched image in kernel order (then config order).
ExitCode compileModuleKernels(ir::Module &module, KernelSelection selection,
                              const CompilerOptions &options, DiagnosticEngine &diag,
                              std::vector<KernelImage> *images = nullptr);

} // namespace wirc::cuda

#endif // WIRC_CUDA_MODULEKERNELS_H
