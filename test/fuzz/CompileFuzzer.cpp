//===- CompileFuzzer.cpp - libFuzzer target over `wirc compile` -----------===//
//
// Feeds arbitrary bytes through the library path of `wirc compile`: read and
// validate, run the default pipeline, then print the IR and emit every
// implemented kind; read and print on threads too, which must change
// nothing. Bad input must end in diagnostics; anything else (an InternalError
// or other exception, a crash, a sanitizer report, a leak, a hang, a
// difference made by threads or by memory statistics) is a finding. Built only with -DWIRC_BUILD_FUZZERS=ON and clang; run
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

/// Reuse and pool put the frees and the reuse plan in place in one pass, or,
/// when memory statistics are asked for, one after the other: the IR must be
/// the same either way.
void checkPlanPaths(const graph::Document &document, std::string_view text) {
  for (passes::MemoryPlan plan : {passes::MemoryPlan::Reuse, passes::MemoryPlan::Pool}) {
    std::string printed[2];
    bool ok[2];
    for (int stats = 0; stats < 2; ++stats) {
      DiagnosticEngine diag;
      diag.setSource("<fuzz>", [text](std::string_view pointer) {
        return graph::locateJsonPointer(text, pointer);
      });
      passes::CompileOptions options;
      options.memoryPlan = plan;
      options.memoryStats = stats == 1;
      ir::Module module;
      passes::PassContext context{&document, options, diag};
      ok[stats] = passes::runPipeline(passes::buildDefaultPipeline(), module, context);
      if (ok[stats])
        printed[stats] = ir::printModule(module);
    }
    if (ok[0] != ok[1] || printed[0] != printed[1])
      finding("memory statistics changed the memory plan");
  }
}

std::string formatAll(const DiagnosticEngine &diag) {
  std::string out;
  for (const Diagnostic &d : diag.diagnostics())
    out += formatDiagnostic(d) + "\n";
  return out;
}

std::string printPython(const ir::Module &module, unsigned threads) {
  emit::EmitOptions options;
  options.threads = threads;
  options.minLinesPerThread = 1;
  try {
    return emit::emitPython(module, options);
  } catch (const NotImplementedError &e) {
    return std::string("NotImplementedError: ") + e.what();
  }
}

/// Reading, compiling and printing on threads (one node and one line per
/// thread at least, the text parsed in parts of a few hundred bytes) must
/// give what one thread gives: the same diagnostics, document, IR and text.
void checkThreads(std::string_view text, const DiagnosticEngine &oneDiag,
                  const graph::Document *one) {
  DiagnosticEngine diag;
  diag.setSource("<fuzz>", [text](std::string_view pointer) {
    return graph::locateJsonPointer(text, pointer);
  });
  graph::ReaderLimits limits;
  limits.threads = 4; // from four, the text is parsed and the buffers read in parts
  limits.minNodesPerThread = 1;
  limits.partsFrom = 0;
  std::unique_ptr<graph::Document> many = graph::readDocument(text, diag, limits);
  if (bool(many) != bool(one))
    finding("reading on threads changed whether the document is accepted");
  if (formatAll(diag) != formatAll(oneDiag))
    finding("reading on threads changed the diagnostics");
  if (!one)
    return;
  // The document read on threads is also compiled on threads, in parts of
  // one node and one line at least, the pipeline taking it over as the
  // driver does (build-wrapper-ir splits only a document it may consume;
  // passes split from four threads).
  passes::CompileOptions options, manyOptions;
  manyOptions.threads = 4;
  manyOptions.minPerPart = 1;
  ir::Module oneModule, manyModule;
  DiagnosticEngine oneCompile, manyCompile;
  passes::PassContext oneContext{one, options, oneCompile};
  const graph::Document *manyDocument = many.get();
  passes::PassContext manyContext{manyDocument, manyOptions, manyCompile, std::move(many)};
  bool oneOk = passes::runPipeline(passes::buildDefaultPipeline(), oneModule, oneContext);
  bool manyOk = passes::runPipeline(passes::buildDefaultPipeline(), manyModule, manyContext);
  if (oneOk != manyOk || formatAll(oneCompile) != formatAll(manyCompile))
    finding("a document read on threads compiles differently");
  if (!oneOk)
    return;
  std::string oneText = ir::printModule(oneModule);
  if (ir::printModule(manyModule) != oneText)
    finding("a document read on threads gives different IR");
  if (printPython(oneModule, 3) != printPython(oneModule, 1))
    finding("printing Python on threads gives different text");
}

void fuzzOne(std::string_view text) {
  DiagnosticEngine diag;
  diag.setSource("<fuzz>", [text](std::string_view pointer) {
    return graph::locateJsonPointer(text, pointer);
  });
  std::unique_ptr<graph::Document> document = graph::readDocument(text, diag);
  checkThreads(text, diag, document.get());
  if (!document) {
    if (!diag.hasErrors())
      finding("the reader rejected the input without reporting an error");
    return;
  }
  if (diag.hasErrors())
    finding("the reader accepted an input it reported errors for");
  passes::CompileOptions options;
  compileAndEmit(*document, options, text);
  checkPlanPaths(*document, text);
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
