//===- Compiler.cpp -------------------------------------------------------===//
#include "wirc/driver/Compiler.h"
#include "wirc/driver/WrapperProject.h"
#include "wirc/driver/Manifest.h"
#include "wirc/cuda/ModuleKernels.h"

#include "wirc/graph/JsonLocator.h"
#include "wirc/graph/Reader.h"
#include "wirc/support/BuryPointer.h"
#include "wirc/support/OutputFile.h"
#include "wirc/support/PagePopulator.h"
#include "wirc/support/Parallel.h"
#include "wirc/support/Timing.h"

#include <filesystem>
#include <optional>

#include <fmt/format.h>

namespace wirc {

namespace {
/// The driver's phases, for --time-passes: the pass report covers only the
/// pipeline, and at scale reading and emitting weigh as much.
class PhaseTimer {
public:
  explicit PhaseTimer(bool enabled)
      : enabled(enabled), last(enabled ? ClockReading::now() : ClockReading{}) {}
  void finish(std::string_view phase) {
    if (!enabled)
      return;
    ClockReading now = ClockReading::now();
    phases.push_back(TimingRow::between(phase, last, now));
    last = now;
  }
  void report(const passes::PipelineInstrumentation &instrumentation) const {
    if (enabled && instrumentation.print)
      instrumentation.print(formatTimingReport("wirc phase timing report", "phase", phases));
  }

private:
  bool enabled;
  ClockReading last;
  std::vector<TimingRow> phases;
};
} // namespace

std::string versionString() { return fmt::format("wirc {}", WIRC_VERSION); }

/// Lines from which the final verify pass runs beside emission.
constexpr size_t kVerifyBesideFrom = 65536;

/// Reserved Python text from which its pages are faulted in ahead.
constexpr size_t kFaultTextInFrom = size_t(16) << 20;

ExitCode compile(const CompileRequest &request, DiagnosticEngine &diag) {
  if (!request.printIR && !emit::findEmitter(request.emit)) {
    diag.error(fmt::format("no emitter is registered as '{}'", request.emit));
    return ExitCode::UsageError;
  }
  if (!request.outputDir.empty() && (request.printIR || request.emit != "cpp")) {
    diag.error("an output directory needs --emit=cpp (and not --print-ir)");
    return ExitCode::UsageError;
  }
  // Before any work: a directory that cannot be written fails fast.
  if (!request.outputDir.empty()) {
    if (std::string error = checkOutputDirectory(request.outputDir); !error.empty()) {
      diag.error(error);
      return ExitCode::UserError;
    }
  }
  std::optional<WrapperProject> project;
  if (request.build && request.outputDir.empty()) {
    if (request.printIR || request.emit != "cpp" || request.outputPath == "-") {
      diag.error("--build needs --emit=cpp and an output file or directory (-o NAME.cpp or "
                 "-o DIR/)");
      return ExitCode::UsageError;
    }
    if (!(project = planWrapperProject(request.outputPath, diag)))
      return ExitCode::UserError;
  }

  PhaseTimer timer(request.instrumentation.timePasses);
  InputText input;
  if (std::string error = input.open(request.inputPath); !error.empty()) {
    diag.error(error);
    return ExitCode::UserError;
  }
  std::string_view text = input.text();
  // Diagnostics name the file as the user spelled it, so output does not
  // depend on the working directory.
  std::string displayName = request.inputPath == "-" ? "<stdin>" : request.inputPath;
  diag.setSource(displayName, [text](std::string_view pointer) {
    return graph::locateJsonPointer(text, pointer);
  });

  // A mapped text is read again from the page cache if needed: the pages
  // behind the reader need not stay in memory while it builds the graph.
  std::unique_ptr<graph::Document> document = graph::readDocument(
      text, diag, request.limits,
      [&input](size_t begin, size_t end) { input.dropResidentPages(begin, end); },
      [&timer](std::string_view step) { timer.finish(step); });
  if (!document)
    return ExitCode::UserError;
  // The graph holds what it needs; the text is read again only to locate a
  // late diagnostic.
  input.dropResidentPages();
  timer.finish("read:check");

  ir::Module module;
  passes::CompileOptions options = request.options;
  const bool statsRead = request.instrumentation.memoryStats || !request.outputDir.empty();
  options.memoryStats = statsRead || options.verifyPlan;
  options.symbolicStats |= statsRead;
  options.threads = request.emitOptions.threads;
  // The pipeline frees the document once the IR is built: at scale the two
  // together were most of the peak memory.
  passes::PassContext context{document.get(), options, diag, std::move(document)};
  // The final verify pass only reads the IR, as emission does: with a second
  // core and nothing to show between the two, it runs beside emission, and
  // the output is written only once both are done.
  std::vector<const passes::PassInfo *> pipeline = passes::buildDefaultPipeline();
  passes::PipelineInstrumentation inst = request.instrumentation;
  // The passes after build-wrapper-ir run on one core. With a second one,
  // the text's pages (python, fx, fx-module) are faulted in there meanwhile,
  // once the IR's size bounds the text's: at a million nodes emission's page
  // faults were half its time. Only what the text will fill: a page faulted
  // in and never written is memory for nothing.
  std::string textStorage;
  std::optional<PagePopulator> textPages;
  if (!request.printIR && request.emitOptions.threads > 1)
    inst.afterPass = [&](std::string_view pass) {
      if (pass != "build-wrapper-ir")
        return;
      emit::TextReserve text = emit::textReserve(request.emit, module);
      if (text.reserve < kFaultTextInFrom)
        return;
      textStorage.reserve(text.reserve);
      textPages.emplace(text.fill);
      textPages->report(0, textStorage.data(), 0, text.fill);
    };
  const passes::PassInfo *verifyBeside = nullptr;
  if (request.emitOptions.threads > 1 && !pipeline.empty() && pipeline.back()->name == "verify" &&
      !inst.timePasses && !inst.printAfterAll && !inst.verifyEach && inst.printAfter.empty()) {
    verifyBeside = pipeline.back();
    pipeline.pop_back();
  }
  if (!passes::runPipeline(pipeline, module, context, inst))
    return ExitCode::UserError;
  if (verifyBeside) {
    // A thread costs more than it saves on a small module.
    size_t lines = 0;
    for (const ir::Function &function : module.functions)
      lines += function.lines.size();
    if (lines < kVerifyBesideFrom) {
      verifyBeside->run(module, context);
      verifyBeside = nullptr;
    }
  }
  timer.finish("pipeline");
  // What the pipeline freed (the graph, the passes' tables) is not what
  // emission allocates.
  if (request.releaseFreedMemory)
    request.releaseFreedMemory();
  if (request.instrumentation.memoryStats && request.instrumentation.print)
    request.instrumentation.print(passes::formatMemoryStats(module));

  // --emit=cpp compiles the kernels the driver cannot load as they are; an
  // output directory gets every kernel as a cubin for the target.
  std::vector<cuda::KernelImage> images;
  if (!request.printIR && request.emit == "cpp") {
    auto selection = request.outputDir.empty() ? cuda::KernelSelection::SourcesOnly
                                               : cuda::KernelSelection::All;
    if (ExitCode code = cuda::compileModuleKernels(module, selection, request.kernels, diag, &images);
        code != ExitCode::Success)
      return code;
    timer.finish("kernels");
  }

  // What is not faulted in by now is faulted in as it is written.
  textPages.reset();
  emit::EmitOptions emitOptions = request.emitOptions;
  emitOptions.textStorage = &textStorage;
  std::string output;
  auto emitOutput = [&] {
    output = request.printIR ? ir::printModule(module)
                             : emit::emitModule(request.emit, module, emitOptions);
  };
  try {
    if (verifyBeside)
      // A malformed IR is reported as it would be without the overlap: the
      // verifier is part 0, whose failure comes out first.
      runParts(2, [&](size_t part) {
        if (part == 0)
          verifyBeside->run(module, context);
        else
          emitOutput();
      });
    else
      emitOutput();
  } catch (const NotImplementedError &e) {
    diag.error(e.what());
    return ExitCode::NotImplemented;
  }
  timer.finish("emit");
  if (!request.outputDir.empty()) {
    OutputFiles extra;
    if (request.build) {
      // The project goes next to the wrapper; the manifest lists it too.
      WrapperProject dirProject{"CMakeLists.txt", module.name + ".cpp", module.name,
                                request.emitOptions.cppAbi == emit::EmitOptions::CppAbi::Aoti};
      extra.emplace_back(dirProject.cmakeListsPath,
                         printWrapperCMakeLists(dirProject, module.name));
    }
    OutputFiles files =
        buildOutputDirectory(module, output, images, request.kernels.arch, std::move(extra));
    if (std::string error = writeOutputDirectory(request.outputDir, files); !error.empty()) {
      diag.error(error);
      return ExitCode::UserError;
    }
    timer.finish("write");
    timer.report(request.instrumentation);
    return ExitCode::Success;
  }
  if (request.outputPath == "-" && request.standardOutput) {
    request.standardOutput(std::move(output));
  } else if (std::string error = writeFileAtomically(request.outputPath, output);
             !error.empty()) {
    diag.error(error);
    return ExitCode::UserError;
  }
  if (project) {
    project->aoti = request.emitOptions.cppAbi == emit::EmitOptions::CppAbi::Aoti;
    if (std::string error = writeFileAtomically(project->cmakeListsPath,
                                                printWrapperCMakeLists(*project, module.name));
        !error.empty()) {
      // The wrapper and its project appear together or not at all.
      std::error_code ignored;
      std::filesystem::remove(request.outputPath, ignored);
      diag.error(error);
      return ExitCode::UserError;
    }
  }
  timer.finish("write");
  timer.report(request.instrumentation);
  if (request.disableFree) {
    buryPointer(std::move(context.ownedDocument));
    buryPointer(std::make_unique<ir::Module>(std::move(module)));
  }
  return ExitCode::Success;
}

} // namespace wirc
