//===- wirc/emit/Emitter.h - One emitter per target -----------------------===//
#ifndef WIRC_EMIT_EMITTER_H
#define WIRC_EMIT_EMITTER_H

#include "wirc/ir/WrapperIR.h"

#include <span>
#include <string>
#include <string_view>

namespace wirc::emit {

enum class EmitKind : uint8_t { Fx, FxModule, Python, Cpp };

/// The table of emit kinds: the --emit= name, the output's usual file
/// extension, and whether this build implements it.
struct EmitKindInfo {
  EmitKind kind;
  std::string_view name;
  std::string_view extension;
  bool implemented;
  std::string_view summary;
};

std::span<const EmitKindInfo> emitKinds();

struct EmitOptions {
  /// FX only: print a static launch's grid as Inductor's pre-147583 grid
  /// argument, the tuple of its x/y/z numels, as PyTorch PR 146942's example
  /// graphs do. Dynamic launches always print their launch grid.
  bool fxLegacyGrid = false;
  /// fx-module only: "module:function", a backend that receives the
  /// GraphModule and returns the callable to run; empty runs the graph.
  std::string fxBackend;
};
const EmitKindInfo *findEmitKind(std::string_view name);

/// Renders \p module as the target's text. Throws NotImplementedError for a
/// kind this build does not implement, or for IR the target cannot express.
std::string emitModule(EmitKind kind, const ir::Module &module, const EmitOptions &options = {});

/// The Inductor-style output-code module of --emit=python (emit/PythonEmitter.cpp).
std::string emitPython(const ir::Module &module);

/// The standalone C++ wrapper of --emit=cpp (emit/CppEmitter.cpp).
std::string emitCpp(const ir::Module &module);

/// The runnable GraphModule module of --emit=fx-module (emit/FxModuleEmitter.cpp).
std::string emitFxModule(const ir::Module &module, const EmitOptions &options = {});

/// The FX graph text of --emit=fx (emit/FxEmitter.cpp).
std::string emitFx(const ir::Module &module, const EmitOptions &options = {});

} // namespace wirc::emit

#endif // WIRC_EMIT_EMITTER_H
