//===- Emitter.cpp - The emitter registry ---------------------------------===//
#include "wirc/emit/Emitter.h"

#include "wirc/support/Diagnostics.h"

#include <deque>
#include <mutex>

#include <fmt/format.h>

namespace wirc::emit {

namespace {

bool isEmitterName(std::string_view name) {
  if (name.empty() || name.size() > 64 || name.front() < 'a' || name.front() > 'z')
    return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
      return false;
  return true;
}

bool isExtension(std::string_view extension) {
  if (extension.empty())
    return true;
  if (extension.size() < 2 || extension.size() > 16 || extension.front() != '.')
    return false;
  for (char c : extension.substr(1))
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
      return false;
  return true;
}

class Registry {
public:
  // The built-in emitters go through the same checks as any other, so the
  // registry is never without them, whatever the static initialization order.
  Registry() {
    auto builtin = [this](std::string name, std::string extension, std::string summary,
                          EmitFunction emit, TextEstimate estimate = {}) {
      if (std::string error = add(std::move(name), std::move(extension), std::move(summary),
                                  std::move(emit), std::move(estimate));
          !error.empty())
        throw InternalError("built-in emitter: " + error);
    };
    // The Python estimate allows about twice what lines take; FX's two to
    // four times, since it counts lines that make no node (comments, kernel
    // definitions); the FX module's about what they take.
    builtin("fx", ".txt", "the wrapper as a printed torch.fx graph", emitFx,
            [](const ir::Module &module) -> TextReserve {
              size_t reserve = fxTextReserve(module);
              return {reserve, reserve / 4};
            });
    builtin("fx-module", ".py",
            "a Python module that rebuilds the FX graph as a runnable GraphModule",
            emitFxModule, [](const ir::Module &module) -> TextReserve {
              size_t reserve = fxModuleTextReserve(module);
              return {reserve, reserve / 2};
            });
    builtin(
        "python", ".py", "an Inductor-style Python output-code module",
        [](const ir::Module &module, const EmitOptions &options) {
          return emitPython(module, options);
        },
        [](const ir::Module &module) -> TextReserve {
          size_t reserve = pythonTextReserve(module);
          return {reserve, reserve / 2};
        });
    builtin("cpp", ".cpp", "a standalone C++ wrapper over the CUDA driver API",
            [](const ir::Module &module, const EmitOptions &options) {
              return emitCpp(module, options);
            });
  }

  std::string add(std::string name, std::string extension, std::string summary,
                  EmitFunction emit, TextEstimate estimate) {
    if (!isEmitterName(name))
      return fmt::format("invalid emitter name '{}': expected lowercase letters, digits and "
                         "'-', starting with a letter (at most 64)",
                         name);
    if (!isExtension(extension))
      return fmt::format("invalid extension '{}' for emitter '{}': expected '' or '.' and "
                         "letters or digits",
                         extension, name);
    if (!emit)
      return fmt::format("emitter '{}' has no emit function", name);
    std::lock_guard<std::mutex> lock(mutex);
    if (findLocked(name))
      return fmt::format("an emitter named '{}' is already registered", name);
    // A deque keeps every EmitterInfo at its address as the registry grows.
    emitters.push_back({std::move(name), std::move(extension), std::move(summary),
                        std::move(emit), std::move(estimate)});
    return {};
  }

  std::vector<const EmitterInfo *> all() {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<const EmitterInfo *> result;
    result.reserve(emitters.size());
    for (const EmitterInfo &info : emitters)
      result.push_back(&info);
    return result;
  }

  const EmitterInfo *find(std::string_view name) {
    std::lock_guard<std::mutex> lock(mutex);
    return findLocked(name);
  }

private:
  const EmitterInfo *findLocked(std::string_view name) const {
    for (const EmitterInfo &info : emitters)
      if (info.name == name)
        return &info;
    return nullptr;
  }

  std::mutex mutex;
  std::deque<EmitterInfo> emitters;
};

Registry &registry() {
  static Registry instance;
  return instance;
}

} // namespace

std::string registerEmitter(std::string name, std::string extension, std::string summary,
                            EmitFunction emit, TextEstimate textEstimate) {
  return registry().add(std::move(name), std::move(extension), std::move(summary),
                        std::move(emit), std::move(textEstimate));
}

std::vector<const EmitterInfo *> registeredEmitters() { return registry().all(); }

const EmitterInfo *findEmitter(std::string_view name) { return registry().find(name); }

std::string emitModule(std::string_view name, const ir::Module &module,
                       const EmitOptions &options) {
  const EmitterInfo *info = findEmitter(name);
  if (!info)
    throw InternalError(fmt::format("no emitter is registered as '{}'", name));
  return info->emit(module, options);
}

TextReserve textReserve(std::string_view emit, const ir::Module &module) {
  const EmitterInfo *info = findEmitter(emit);
  return info && info->textEstimate ? info->textEstimate(module) : TextReserve{};
}

bool takeTextStorage(const EmitOptions &options, size_t reserve, std::string &out) {
  if (!options.textStorage || options.textStorage->capacity() < reserve / 2)
    return false;
  out = std::move(*options.textStorage);
  out.clear();
  return true;
}

} // namespace wirc::emit
