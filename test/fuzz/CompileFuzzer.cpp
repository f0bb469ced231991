//===- CompileFuzzer.cpp - libFuzzer target over `wirc compile` -----------===//
//
// Feeds arbitrary bytes through the library path of `wirc compile`: read and
// validate, run the default pipeline, then print the IR and emit every
// implemented kind. Bad input must end in diagnostics; anything else (an
// InternalError or other exception, a crash, a sanitizer report, a leak, a
// hang) is a finding. Built only with -DWIRC_BUILD_FUZZERS=ON and clang; run
// it with tools/fuzz.sh.
//
//===----------------------------------------------------------------------===//
#include "wirc/emit/Emitter.h"
#include "wirc/graph/JsonLocator.h"
#include "wirc/graph/Reader.h"
#include "wirc/ir/WrapperIR.h"
#include "wirc/passes/Pass.h"
#include "wirc/support/Diagnostics.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

using namespace wirc;

namespace {

[[noreturn]] void finding(std::string_view what) {
  std::fprintf(stderr, "wirc fuzz finding: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

/// Runs the pipeline with \p options and emits every implemented kind. The
/// input is valid here, so a pipeline failure must come with an error.
void compileAndEmit(const graph::Document &document, const passes::CompileOptions &options,
                    std::string_view text) {
  DiagnosticEngine diag;
  diag.setSource("<fuzz>", [text](std::string_view pointer) {
    return graph::locateJsonPointer(text, pointer);
  });
  ir::Module module;
  passes::PassContext context{&document, options, diag};
  if (!passes::runPipeline(passes::buildDefaultPipeline(), module, context)) {
    if (!diag.hasErrors())
      finding("the pipeline failed without reporting an error");
    return;
  }
  (void)ir::printModule(module);
  // Every emit option that changes output, one at a time.
  std::vector<emit::EmitOptions> variants(5);
  variants[1].fxLegacyGrid = true;
  variants[2].fxBackend = "backends.example:compile";
  variants[3].cppExtern = emit::EmitOptions::CppExtern::Hooks;
  variants[4].cppAbi = emit::EmitOptions::CppAbi::Aoti; // schemas parsed from the input
  for (const emit::EmitterInfo *info : emit::registeredEmitters()) {
    for (const emit::EmitOptions &emitOptions : variants) {
      try {
        std::string first = info->emit(module, emitOptions);
        // Output must be a function of the module alone.
        if (info->emit(module, emitOptions) != first)
          finding("emitting the same module twice gave different text");
      } catch (const NotImplementedError &) {
        // A construct this target cannot express: exit code 3, not a bug.
      }
    }
  }
}

void fuzzOne(std::string_view text) {
  DiagnosticEngine diag;
  diag.setSource("<fuzz>", [text](std::string_view pointer) {
    return graph::locateJsonPointer(text, pointer);
  });
  std::unique_ptr<graph::Document> document = graph::readDocument(text, diag);
  if (!document) {
    if (!diag.hasErrors())
      finding("the reader rejected the input without reporting an error");
    return;
  }
  if (diag.hasErrors())
    finding("the reader accepted an input it reported errors for");
  passes::CompileOptions options;
  compileAndEmit(*document, options, text);
  // The other value of every option that changes the pipeline.
  options.sizeAsserts = false; // --no-size-asserts
  options.memoryPlan = passes::MemoryPlan::None;
  compileAndEmit(*document, options, text);
  // The pool and arena plans, each checked by the independent plan checker.
  options.verifyPlan = true;
  for (passes::MemoryPlan plan : {passes::MemoryPlan::Pool, passes::MemoryPlan::Arena}) {
    options.memoryPlan = plan;
    compileAndEmit(*document, options, text);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  try {
    fuzzOne(text);
  } catch (const InternalError &e) {
    finding(std::string("InternalError: ") + e.what());
  } catch (const NotImplementedError &e) {
    finding(std::string("NotImplementedError outside emission: ") + e.what());
  } catch (const std::exception &e) {
    // The driver reports these as internal errors (exit code 70).
    finding(std::string("uncaught exception: ") + e.what());
  }
  return 0;
}
