//===- wirc/emit/Emitter.h - Emitters and their registry ------------------===//
//
// An emitter turns the Wrapper IR after the pipeline into one target's text.
// Emitters live in a registry keyed by their --emit= name: the four built-in
// ones, and any an embedding program registers (docs/library.md).
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_EMIT_EMITTER_H
#define WIRC_EMIT_EMITTER_H

#include "wirc/ir/WrapperIR.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace wirc::emit {

struct EmitOptions {
  /// FX only: print a static launch's grid as Inductor's pre-147583 grid
  /// argument, the tuple of its x/y/z numels, as PyTorch PR 146942's example
  /// graphs do. Dynamic launches always print their launch grid.
  bool fxLegacyGrid = false;
  /// fx-module only: "module:function", a backend that receives the
  /// GraphModule and returns the callable to run; empty runs the graph.
  std::string fxBackend;
  /// cpp only: what the standalone wrapper does with extern kernels and
  /// fallbacks. Reject: a compile-time error naming the op. Hooks: run() takes
  /// a wirc::rt::ExternHooks table and calls the embedder's implementation
  /// (wirc/runtime/Extern.h).
  enum class CppExtern : uint8_t { Reject, Hooks };
  CppExtern cppExtern = CppExtern::Reject;
  /// cpp only: the wrapper's tensor ABI. Standalone: device pointers and
  /// wirc/runtime/Runtime.h only. Aoti: tensors are PyTorch AtenTensorHandles
  /// and extern kernels call PyTorch's C shim (wirc/runtime/Aoti.h), as
  /// Inductor's cpp_wrapper does; needs libtorch.
  enum class CppAbi : uint8_t { Standalone, Aoti };
  CppAbi cppAbi = CppAbi::Standalone;
  /// python only: threads that print a large function's lines (1: only the
  /// calling thread), each at least minLinesPerThread of them. The text
  /// does not depend on either.
  unsigned threads = 1;
  size_t minLinesPerThread = 32768;
  /// python, fx and fx-module: storage the emitter takes for its text if
  /// its capacity is at least half of textReserve(); the driver reserves it
  /// and faults it in on an idle core while the pipeline runs. The text does
  /// not depend on it.
  std::string *textStorage = nullptr;
};

/// Renders a module as one target's text. Throws NotImplementedError for IR
/// the target cannot express (compile() reports it with exit code 3).
using EmitFunction = std::function<std::string(const ir::Module &, const EmitOptions &)>;

/// Storage for an emitter's text, sized from the IR.
struct TextReserve {
  size_t reserve = 0; ///< what the emitter reserves: an upper estimate
  size_t fill = 0;    ///< what the text will fill, about: no more than it takes
};

/// An emitter's estimate of its text's size for a module, which the driver
/// uses to prepare EmitOptions::textStorage while the pipeline runs.
using TextEstimate = std::function<TextReserve(const ir::Module &)>;

/// A registered emitter.
struct EmitterInfo {
  std::string name;      ///< the --emit= name
  std::string extension; ///< the output's usual file extension, with its dot
  std::string summary;   ///< one line for --help and --list-emitters
  EmitFunction emit;
  /// Set where the emitter takes EmitOptions::textStorage.
  TextEstimate textEstimate;
};

/// Registers an emitter under \p name, making it available to emitModule(),
/// compile() and the driver's --emit. The built-in emitters (fx, fx-module,
/// python, cpp) are registered through this function before any other. A name
/// is lowercase ASCII letters, digits and '-', starting with a letter; an
/// extension is empty or a dot followed by letters and digits. Returns an
/// empty string on success, else why nothing was registered (a malformed or
/// taken name, a malformed extension, an empty function). \p textEstimate is
/// for an emitter that takes EmitOptions::textStorage. Thread-safe.
[[nodiscard]] std::string registerEmitter(std::string name, std::string extension,
                                          std::string summary, EmitFunction emit,
                                          TextEstimate textEstimate = {});

/// Every registered emitter: the built-in ones first, then the others in
/// registration order. The pointers stay valid until the program exits.
std::vector<const EmitterInfo *> registeredEmitters();

/// The emitter registered as \p name, or null.
const EmitterInfo *findEmitter(std::string_view name);

/// Renders \p module with the emitter registered as \p name. Throws
/// NotImplementedError for IR the emitter cannot express, and InternalError
/// for a name no emitter is registered under (check with findEmitter()).
std::string emitModule(std::string_view name, const ir::Module &module,
                       const EmitOptions &options = {});

/// The Inductor-style output-code module of --emit=python (emit/PythonEmitter.cpp).
std::string emitPython(const ir::Module &module, const EmitOptions &options = {});

/// The bytes emitPython() reserves for \p module's text: an upper estimate.
size_t pythonTextReserve(const ir::Module &module);

/// The bytes emitFx() reserves for \p module's text: an upper estimate.
size_t fxTextReserve(const ir::Module &module);

/// The bytes emitFxModule() reserves for \p module's text: about what it
/// takes.
size_t fxModuleTextReserve(const ir::Module &module);

/// The storage the emitter registered as \p emit reserves for \p module's
/// text where it takes EmitOptions::textStorage (its TextEstimate), else
/// none.
TextReserve textReserve(std::string_view emit, const ir::Module &module);

/// Moves EmitOptions::textStorage into \p out, emptied, if its capacity is
/// at least half of \p reserve (the text will likely fit: growing once costs
/// less than faulting fresh room in). Returns whether it did.
bool takeTextStorage(const EmitOptions &options, size_t reserve, std::string &out);

/// The standalone C++ wrapper of --emit=cpp (emit/CppEmitter.cpp).
std::string emitCpp(const ir::Module &module, const EmitOptions &options = {});

/// The runnable GraphModule module of --emit=fx-module (emit/FxModuleEmitter.cpp).
std::string emitFxModule(const ir::Module &module, const EmitOptions &options = {});

/// The FX graph text of --emit=fx (emit/FxEmitter.cpp).
std::string emitFx(const ir::Module &module, const EmitOptions &options = {});

} // namespace wirc::emit

#endif // WIRC_EMIT_EMITTER_H
