//===- Toolkit.h - The CUDA toolkit and LLVM, loaded at run time -*- C++ -*-===//
//
// Private to lib/cuda. Each tool is loaded once per compilation, on the
// calling thread, before any worker starts; its methods are then safe to
// call from several threads at once (each call uses its own handles).
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_LIB_CUDA_TOOLKIT_H
#define WIRC_LIB_CUDA_TOOLKIT_H

#include <memory>
#include <string>
#include <string_view>

namespace wirc::cuda::detail {

/// The outcome of one tool run: its output, or its log on failure.
struct ToolResult {
  bool ok = false;
  std::string output;
  std::string log;
  /// A one-line account of the failure when the tool gives one.
  std::string summary;
};

inline ToolResult failure(std::string log) { return {false, {}, std::move(log), {}}; }
inline ToolResult success(std::string output, std::string log) {
  return {true, std::move(output), std::move(log), {}};
}

/// PTX to cubin.
class PtxAssembler {
public:
  virtual ~PtxAssembler() = default;
  /// "nvJitLink 13.0" or "ptxas 13.0.88": part of every cache key.
  virtual const std::string &version() const = 0;
  virtual ToolResult assemble(std::string_view ptx, const std::string &arch) const = 0;
};

/// CUDA C++ to PTX.
class CudaFrontend {
public:
  virtual ~CudaFrontend() = default;
  virtual const std::string &version() const = 0;
  virtual ToolResult compile(const std::string &name, std::string_view source,
                             const std::string &arch) const = 0;
};

/// LLVM IR (text or bitcode) to PTX.
class LlvmBackend {
public:
  virtual ~LlvmBackend() = default;
  virtual const std::string &version() const = 0;
  virtual ToolResult compile(const std::string &name, std::string_view ir,
                             const std::string &arch) const = 0;
};

/// The toolkit root compilations use (see CompilerOptions::cudaRoot).
std::string resolveCudaRoot(const std::string &requested);

/// The file loadPtxAssembler would use under \p root (nvJitLink's library,
/// else the ptxas binary), found without loading it; empty when none.
std::string ptxAssemblerFile(const std::string &root);
/// The file loadCudaFrontend would load (NVRTC's library); empty when none.
std::string cudaFrontendFile(const std::string &root);
/// "LLVM 14.0.6", or empty with \p error set when wirc was built without it.
std::string llvmVersion(std::string &error);
/// The processor LLVM compiles for when asked for \p arch: LLVM 14 knows
/// GPUs up to sm_86, whose PTX newer GPUs run.
std::string llvmProcessorFor(const std::string &arch);

/// nvJitLink from \p root/lib64, else the ptxas binary from \p root/bin or
/// PATH. Null with \p error set when neither is usable.
std::unique_ptr<PtxAssembler> loadPtxAssembler(const std::string &root, std::string &error);
std::unique_ptr<CudaFrontend> loadCudaFrontend(const std::string &root, std::string &error);
std::unique_ptr<LlvmBackend> loadLlvmBackend(std::string &error);

} // namespace wirc::cuda::detail

#endif // WIRC_LIB_CUDA_TOOLKIT_H
