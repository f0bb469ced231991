//===- Driver.cpp - The wirc command line ---------------------------------===//
//
// Flags in, library calls out. Everything else lives in lib/.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"

#include "wirc/driver/Compiler.h"
#include "wirc/cuda/KernelCompiler.h"
#include "wirc/support/Names.h"
#include "wirc/plan/Trace.h"

#include <CLI/CLI.hpp>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <mutex>
#include <new>
#include <sstream>
#include <thread>

namespace wirc::driver {

namespace {

int toInt(wirc::ExitCode code) { return static_cast<int>(code); }

/// Log records in the driver's format, written where the caller's standard
/// error goes.
class LogSink final : public spdlog::sinks::base_sink<std::mutex> {
public:
  explicit LogSink(std::function<void(std::string_view)> write) : write(std::move(write)) {}

protected:
  void sink_it_(const spdlog::details::log_msg &msg) override {
    spdlog::memory_buf_t text;
    formatter_->format(msg, text);
    write(std::string_view(text.data(), text.size()));
  }
  void flush_() override {}

private:
  std::function<void(std::string_view)> write;
};

std::string emitterList() {
  std::string out;
  for (const wirc::emit::EmitterInfo *info : wirc::emit::registeredEmitters())
    out += fmt::format("  {:<20} {}\n", info->name, info->summary);
  return out;
}

std::string passList() {
  std::string out;
  for (const wirc::passes::PassInfo &pass : wirc::passes::allPasses())
    out += fmt::format("  {:<20} {}\n", pass.name, pass.summary);
  return out;
}

/// CLI11's own number checks print their range in floating point.
std::string positiveInteger(const std::string &value) {
  if (value.empty() || value.size() > 19 ||
      value.find_first_not_of("0123456789") != std::string::npos || std::stoull(value) == 0)
    return "expected a positive integer, got '" + value + "'";
  return {};
}

int run(int argc, const char *const *argv, const DriverIO &io) {
  auto printDiagnostic = [&io](const wirc::Diagnostic &diag) {
    io.err(wirc::formatDiagnostic(diag) + "\n");
  };
  // Only the first kMaxReportedErrors diagnostics are printed.
  auto noteHiddenErrors = [&io](const wirc::DiagnosticEngine &diag) {
    if (diag.numErrors() > wirc::DiagnosticEngine::kMaxReportedErrors)
      io.err(fmt::format("wirc: note: {} more errors not shown\n",
                         diag.numErrors() - wirc::DiagnosticEngine::kMaxReportedErrors));
  };
  // Logs are developer output and go to stderr; stdout carries only the
  // emitted artifact. The logger is this run's own, not spdlog's global
  // one, so that runs in one process (libwirc-c) can overlap.
  auto logger = std::make_shared<spdlog::logger>("wirc", std::make_shared<LogSink>(io.err));
  logger->set_pattern("wirc: %l: %v");
  logger->set_level(spdlog::level::warn);

  CLI::App app{"wirc: a compiler driver for PyTorch Inductor's wrapper stage.\n"
               "Reads a scheduled Inductor graph (graph format v1), builds Wrapper IR,\n"
               "runs its passes and emits FX, Python or C++.",
               "wirc"};
  app.set_version_flag("--version", wirc::versionString());
  bool listPasses = false;
  app.add_flag("--list-passes", listPasses, "List the registered passes and exit");
  bool listEmitters = false;
  app.add_flag("--list-emitters", listEmitters, "List the registered emitters and exit");
  std::string logLevel = "warn";
  app.add_option("--log-level", logLevel, "Log verbosity on stderr")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->default_str("warn");

  wirc::CompileRequest request;
  CLI::App *compile = app.add_subcommand("compile", "Compile a graph-format file");
  compile->add_option("input", request.inputPath, "Graph file ('-' for stdin)")->required();
  compile->add_option("-o,--output", request.outputPath, "Output file ('-' for stdout)")
      ->default_str("-");
  std::string emitName = "fx";
  std::vector<std::string> emitNames;
  for (const wirc::emit::EmitterInfo *info : wirc::emit::registeredEmitters())
    emitNames.push_back(info->name);
  compile->add_option("--emit", emitName, "What to emit (see --list-emitters)")
      ->check(CLI::IsMember(emitNames))
      ->default_str("fx");
  compile->add_flag("--build", request.build,
                    "cpp: also write a CMakeLists.txt next to the output that builds it into a "
                    "shared library");
  compile->add_flag("--print-ir", request.printIR,
                    "Write the Wrapper IR after the pipeline instead of emitting");
  std::vector<std::string> passNames;
  for (const wirc::passes::PassInfo &pass : wirc::passes::allPasses())
    passNames.emplace_back(pass.name);
  compile->add_option("--print-after", request.instrumentation.printAfter,
                      "Print the Wrapper IR to stderr after these passes (comma-separated)")
      ->delimiter(',')
      ->check(CLI::IsMember(passNames));
  compile->add_flag("--print-after-all", request.instrumentation.printAfterAll,
                    "Print the Wrapper IR to stderr after every pass");
  compile->add_flag("--time-passes", request.instrumentation.timePasses,
                    "Print the time each pass takes to stderr");
  compile->add_option("--max-nodes", request.limits.maxNodes,
                      "Reject documents with more nodes than this (all graphs together)")
      ->check(positiveInteger)
      ->default_str(std::to_string(request.limits.maxNodes));
  compile->add_option("--max-input-bytes", request.limits.maxInputBytes,
                      "Reject input files larger than this")
      ->check(positiveInteger)
      ->default_str(std::to_string(request.limits.maxInputBytes));
  compile->add_flag("--verify-each", request.instrumentation.verifyEach,
                    "Verify the Wrapper IR after every pass, not only at the end of the pipeline");
  compile->add_flag("--fx-legacy-grid", request.emitOptions.fxLegacyGrid,
                    "FX: print a static launch's grid as its numels, the form of PyTorch PR "
                    "146942's example graphs");
  compile->add_option("--fx-backend", request.emitOptions.fxBackend,
                      "fx-module: a backend MODULE:FUNCTION that receives the GraphModule and "
                      "returns the callable to run")
      ->check([](const std::string &value) -> std::string {
        size_t colon = value.find(':');
        if (colon == std::string::npos)
          return "expected MODULE:FUNCTION";
        std::string_view module(value.data(), colon);
        std::string_view function(value.data() + colon + 1, value.size() - colon - 1);
        while (true) {
          size_t dot = module.find('.');
          if (!wirc::isPlainIdentifier(module.substr(0, dot)))
            return "the module must be a dotted path of identifiers";
          if (dot == std::string_view::npos)
            break;
          module.remove_prefix(dot + 1);
        }
        if (!wirc::isPlainIdentifier(function))
          return "the function must be an identifier";
        return {};
      });
  std::string cppExtern = "reject";
  compile->add_option("--cpp-extern", cppExtern,
                      "cpp: extern kernels and fallbacks: reject (an error naming the op) or "
                      "hooks (run() calls the embedder's wirc::rt::ExternHooks table)")
      ->check(CLI::IsMember({"reject", "hooks"}))
      ->default_str("reject");
  std::string cppAbi = "standalone";
  compile->add_option("--cpp-abi", cppAbi,
                      "cpp: standalone (CUDA driver API and wirc's runtime only) or aoti "
                      "(PyTorch's AOTI C shim: tensor handles, extern kernels through "
                      "aoti_torch_* calls; links libtorch)")
      ->check(CLI::IsMember({"standalone", "aoti"}))
      ->default_str("standalone");
  std::string memoryPlan = "reuse";
  compile->add_option("--memory-plan", memoryPlan,
                      "How buffers are placed: none (allocate each, free at last use), reuse "
                      "(also reuse freed buffers of the same size, as Inductor does), pool "
                      "(Inductor's pool planner) or arena (wirc's arena planner)")
      ->check(CLI::IsMember({"none", "reuse", "pool", "arena"}))
      ->default_str("reuse");
  compile->add_option("--plan-effort", request.options.planEffort,
                      "Arena search effort: 0 is the portfolio alone; each level quadruples "
                      "the search budget")
      ->check(CLI::Range(0u, wirc::plan::kMaxEffort))
      ->default_str(std::to_string(wirc::plan::kDefaultEffort));
  compile->add_option("--plan-seed", request.options.planSeed, "Seed of the arena search")
      ->default_str("0");
  compile->add_flag("--verify-plan", request.options.verifyPlan,
                    "Check every memory plan with the independent plan checker");
  compile->add_flag("--stats", request.instrumentation.memoryStats,
                    "Print each function's and device's lower bound and peak memory to stderr");
  bool noSizeAsserts = false;
  compile->add_option("--output-dir", request.outputDir,
                      "cpp: write a directory: the wrapper, kernels/NAME.cubin and .ptx, "
                      "manifest.json (also -o DIR/)");
  compile->add_option("--cuda-arch", request.kernels.arch,
                      "cpp: the GPU architecture kernels are compiled for")
      ->check([](const std::string &arch) { return wirc::cuda::checkArch(arch); })
      ->default_str("sm_90");
  compile->add_option("--cuda-root", request.kernels.cudaRoot,
                      "cpp: the CUDA toolkit to compile kernels with (default: $CUDA_HOME, "
                      "$CUDA_PATH, else the configured toolkit)");
  std::string cacheDir = wirc::cuda::defaultCacheDir();
  compile->add_option("--cache-dir", cacheDir,
                      "cpp: where compiled kernels are cached (default: $XDG_CACHE_HOME/wirc "
                      "or ~/.cache/wirc)");
  bool noCache = false;
  compile->add_flag("--no-cache", noCache, "cpp: compile every kernel, reading and writing no cache");
  compile->add_option("-j,--jobs", request.kernels.threads,
                      "Threads that read a large graph, print a large Python wrapper and, for "
                      "cpp, compile kernels (0: one per core); the output does not depend on it")
      ->check(CLI::Range(0u, 1024u))
      ->default_str("0");
  compile->add_flag("--no-size-asserts", noSizeAsserts,
                    "Do not check input and extern-output sizes and strides at run time");

  wirc::plan::PlanTraceRequest traceRequest;
  CLI::App *planTrace =
      app.add_subcommand("plan-trace", "Plan the memory of a lifetime trace (MiniMalloc CSV)");
  planTrace->add_option("input", traceRequest.inputPath, "Trace file ('-' for stdin)")->required();
  std::string planName = "arena";
  std::vector<std::string> planNames;
  for (const wirc::plan::StrategyInfo &info : wirc::plan::strategies())
    planNames.emplace_back(info.name);
  planTrace->add_option("--memory-plan", planName, "Planning strategy")
      ->check(CLI::IsMember(planNames))
      ->default_str("arena");
  planTrace->add_option("--plan-effort", traceRequest.options.effort,
                        "Arena search effort: 0 is the portfolio alone; each level quadruples "
                        "the search budget")
      ->check(CLI::Range(0u, wirc::plan::kMaxEffort))
      ->default_str(std::to_string(wirc::plan::kDefaultEffort));
  planTrace->add_option("--plan-seed", traceRequest.options.seed, "Seed of the arena search")
      ->default_str("0");
  planTrace->add_option("--alignment", traceRequest.alignment,
                        "Alignment of every buffer in bytes (a power of two)")
      ->default_str("1");
  planTrace->add_flag("--emit-offsets", traceRequest.emitOffsets,
                      "Add every buffer's offset, by id in input order");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      std::ostringstream out, err;
      int code = app.exit(e, out, err);
      io.out(out.str());
      io.err(err.str());
      return code;
    }
    io.err(fmt::format("wirc: error: {}\nwirc: note: run 'wirc --help' for usage\n", e.what()));
    return toInt(wirc::ExitCode::UsageError);
  }
  logger->set_level(spdlog::level::from_str(logLevel));

  if (listPasses) {
    io.out(passList());
    return 0;
  }
  if (listEmitters) {
    io.out(emitterList());
    return 0;
  }
  if (planTrace->parsed()) {
    traceRequest.options.strategy = *wirc::plan::parseStrategy(planName);
    wirc::DiagnosticEngine diag(printDiagnostic);
    std::string json;
    wirc::ExitCode code = wirc::plan::planTrace(traceRequest, diag, json);
    noteHiddenErrors(diag);
    if (code == wirc::ExitCode::Success)
      io.out(std::move(json));
    return toInt(code);
  }
  if (!compile->parsed()) {
    io.err(app.help());
    return toInt(wirc::ExitCode::UsageError);
  }

  request.emit = emitName;
  // -o DIR/ (or an existing directory) asks for an output directory.
  if (request.outputDir.empty() && request.outputPath != "-" &&
      (request.outputPath.ends_with('/') || std::filesystem::is_directory(request.outputPath))) {
    request.outputDir = request.outputPath;
  } else if (!request.outputDir.empty() && request.outputPath != "-") {
    io.err("wirc: error: give either -o FILE or --output-dir DIR, not both\n");
    return toInt(wirc::ExitCode::UsageError);
  }
  request.kernels.cacheDir = noCache ? std::string() : cacheDir;
  request.limits.threads = request.kernels.threads
                               ? request.kernels.threads
                               : std::max(1u, std::thread::hardware_concurrency());
  request.emitOptions.threads = request.limits.threads;
  request.releaseFreedMemory = io.releaseFreedMemory;
  request.kernels.log = [logger](const std::string &line) { logger->debug("{}", line); };
  request.kernels.warn = [logger](const std::string &line) { logger->warn("{}", line); };
  request.disableFree = io.exitsAfter;
  request.options.sizeAsserts = !noSizeAsserts;
  request.emitOptions.cppExtern = cppExtern == "hooks" ? wirc::emit::EmitOptions::CppExtern::Hooks
                                                      : wirc::emit::EmitOptions::CppExtern::Reject;
  if (cppAbi == "aoti" && cppExtern == "hooks") {
    io.err("wirc: error: --cpp-extern=hooks is for the standalone ABI; with --cpp-abi=aoti "
           "extern kernels call PyTorch's C shim\n");
    return toInt(wirc::ExitCode::UsageError);
  }
  request.emitOptions.cppAbi = cppAbi == "aoti" ? wirc::emit::EmitOptions::CppAbi::Aoti
                                                : wirc::emit::EmitOptions::CppAbi::Standalone;
  request.options.memoryPlan = memoryPlan == "none"    ? wirc::passes::MemoryPlan::None
                               : memoryPlan == "pool"  ? wirc::passes::MemoryPlan::Pool
                               : memoryPlan == "arena" ? wirc::passes::MemoryPlan::Arena
                                                       : wirc::passes::MemoryPlan::Reuse;
  request.instrumentation.print = io.err;
  request.standardOutput = io.out;
  wirc::DiagnosticEngine diag(printDiagnostic);
  wirc::ExitCode code = wirc::compile(request, diag);
  noteHiddenErrors(diag);
  return toInt(code);
}

} // namespace

int runDriver(int argc, const char *const *argv, const DriverIO &io) {
  try {
    return run(argc, argv, io);
  } catch (const wirc::InternalError &e) {
    io.err(fmt::format("wirc: internal error: {}\nwirc: note: this is a bug in wirc; please "
                       "report it with the input graph\n",
                       e.what()));
  } catch (const std::bad_alloc &) {
    // Not a bug: the graph needs more memory than the process may use. No
    // output was written (outputs are renamed into place only when complete).
    io.err("wirc: error: out of memory; the graph needs more memory than this process may "
           "use\nwirc: note: see 'Limits' in docs/graph-format.md\n");
    return toInt(wirc::ExitCode::OutOfMemory);
  } catch (const std::exception &e) {
    io.err(fmt::format("wirc: internal error: {}\n", e.what()));
  }
  return toInt(wirc::ExitCode::InternalError);
}

} // namespace wirc::driver
