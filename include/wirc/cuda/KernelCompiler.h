//===- wirc/cuda/KernelCompiler.h - PTX, CUDA C++ and LLVM IR to cubin ----===//
//
// Compiles kernel sources to cubin for one GPU architecture with the CUDA
// toolkit, in process where the toolkit allows it:
//   PTX       -> cubin  nvJitLink (the ptxas binary when nvJitLink is missing)
//   CUDA C++  -> PTX    NVRTC, then as PTX
//   LLVM IR   -> PTX    LLVM 14's NVPTX backend, then as PTX
// The toolkit libraries are loaded at run time (dlopen), so wirc runs on
// machines without them and reports their absence only when asked to compile.
//
// Jobs run in parallel on a thread pool; results are indexed by job, so
// they do not depend on the number of threads or on timing. Every result is
// cached under its content hash (source, kind, entry, architecture, toolkit
// versions, options): a warm compile reads the cache and runs no compiler.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_CUDA_KERNELCOMPILER_H
#define WIRC_CUDA_KERNELCOMPILER_H

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wirc::cuda {

enum class SourceKind : uint8_t { PTX, CUDA, LLVM };

/// "ptx", "cuda" or "llvm": the graph format's language names.
std::string_view sourceKindName(SourceKind kind);

/// One kernel to compile.
struct KernelJob {
  std::string name;  ///< the kernel's name, for messages
  SourceKind kind = SourceKind::PTX;
  std::string source;
  std::string entry; ///< the entry point the compiled code must define
};

struct CompilerOptions {
  /// Target architecture, `sm_NN` with an optional `a` or `f` suffix.
  std::string arch = "sm_90";
  /// The toolkit's root directory; empty: $CUDA_HOME, else $CUDA_PATH, else
  /// the root wirc was configured with.
  std::string cudaRoot;
  /// Cache directory; empty disables the cache.
  std::string cacheDir;
  /// Worker threads; 0 uses every core.
  unsigned threads = 0;
  /// Receives developer log lines (cache hits, compilations), in job order.
  std::function<void(const std::string &)> log;
  /// Receives problems that do not stop compilation (a cache that cannot be
  /// written), at most one per call.
  std::function<void(const std::string &)> warn;
};

struct CompiledKernel {
  std::string ptx;   ///< the PTX that was assembled
  std::string cubin; ///< the ELF image for CompilerOptions::arch
  std::string key;   ///< the cache key: hex SHA-256 of everything that shapes the result
  std::string toolchain; ///< what compiled it: "nvJitLink 13.0", "NVRTC 13.0 + nvJitLink 13.0"
  bool fromCache = false;
};

/// A kernel that did not compile.
struct KernelError {
  size_t job = 0;
  std::string message; ///< lower case, names the kernel
  std::string log;     ///< the toolkit's log, possibly empty
};

struct CompileResult {
  /// The toolkit (or a part of it the jobs need) is unavailable; nothing
  /// was compiled and \c kernels is empty.
  std::string setupError;
  std::vector<CompiledKernel> kernels; ///< one per job, in job order
  std::vector<KernelError> errors;     ///< in job order
  unsigned compiled = 0;               ///< jobs that ran a compiler
  unsigned cached = 0;                 ///< jobs served from the cache

  bool ok() const { return setupError.empty() && errors.empty(); }
};

/// Compiles \p jobs. Never throws for bad sources: they are KernelErrors.
CompileResult compileKernels(std::span<const KernelJob> jobs, const CompilerOptions &options);

/// Whether this build can compile kernels at all (configured with the CUDA
/// toolkit's headers).
bool compilerBuiltIn();

/// Checks an architecture name; returns an error message, empty if valid.
std::string checkArch(std::string_view arch);

/// $XDG_CACHE_HOME/wirc, else $HOME/.cache/wirc; empty when neither is set.
std::string defaultCacheDir();

} // namespace wirc::cuda

#endif // WIRC_CUDA_KERNELCOMPILER_H
