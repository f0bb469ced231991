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

/// The arena search's options, which `compile` and `plan-trace` share.
void addArenaSearchOptions(CLI::App &command, unsigned &effort, uint64_t &seed) {
  command
      .add_option("--plan-effort", effort,
                  "Arena search effort: 0 is the portfolio alone; each level quadruples "
                  "the search budget")
      ->check(CLI::Range(0u, wirc::plan::kMaxEffort))
      ->default_str(std::to_string(wirc::plan::kDefaultEffort));
  command.add_option("--plan-seed", seed, "Seed of the arena search")->default_str("0");
}

/// What the command line sets, at its defaults.
struct Options {
  bool listPasses = false;
  bool listEmitters = false;
  std::string logLevel = "warn";
  wirc::CompileRequest request;
  std::string emitName = "fx";
  std::string cppExtern = "reject";
  std::string cppAbi = "standalone";
  std::string memoryPlan = "reuse";
  bool noSizeAsserts = false;
  std::string cacheDir;
  bool noCache = false;
  wirc::plan::PlanTraceRequest traceRequest;
  std::string planName = "arena";
};

/// The CLI11 app and the options it fills. Building the app costs more than
/// parsing a command line with it, and libwirc-c runs many command lines in
/// one process: apps are built once and reused (see takeCommandLine), with
/// the options put back to their defaults before each parse (CLI11 clears
/// its own results).
class CommandLine {
public:
  Options o;
  std::unique_ptr<CLI::App> app;
  CLI::App *compile = nullptr;
  CLI::App *planTrace = nullptr;

  CommandLine() {
    app = std::make_unique<CLI::App>(
        "wirc: a compiler driver for PyTorch Inductor's wrapper stage.\n"
        "Reads a scheduled Inductor graph (graph format v1), builds Wrapper IR,\n"
        "runs its passes and emits FX, Python or C++.",
        "wirc");
    app->set_version_flag("--version", wirc::versionString());
    app->add_flag("--list-passes", o.listPasses, "List the registered passes and exit");
    app->add_flag("--list-emitters", o.listEmitters, "List the registered emitters and exit");
    app->add_option("--log-level", o.logLevel, "Log verbosity on stderr")
        ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
        ->default_str("warn");

    compile = app->add_subcommand("compile", "Compile a graph-format file");
    compile->add_option("input", o.request.inputPath, "Graph file ('-' for stdin)")->required();
    compile->add_option("-o,--output", o.request.outputPath, "Output file ('-' for stdout)")
        ->default_str("-");
    std::vector<std::string> emitNames;
    for (const wirc::emit::EmitterInfo *info : wirc::emit::registeredEmitters())
      emitNames.push_back(info->name);
    compile->add_option("--emit", o.emitName, "What to emit (see --list-emitters)")
        ->check(CLI::IsMember(emitNames))
        ->default_str("fx");
    compile->add_flag("--build", o.request.build,
                      "cpp: also write a CMakeLists.txt next to the output that builds it into a "
                      "shared library");
    compile->add_flag("--print-ir", o.request.printIR,
                      "Write the Wrapper IR after the pipeline instead of emitting");
    std::vector<std::string> passNames;
    for (const wirc::passes::PassInfo &pass : wirc::passes::allPasses())
      passNames.emplace_back(pass.name);
    compile
        ->add_option("--print-after", o.request.instrumentation.printAfter,
                     "Print the Wrapper IR to stderr after these passes (comma-separated)")
        ->delimiter(',')
        ->check(CLI::IsMember(passNames));
    compile->add_flag("--print-after-all", o.request.instrumentation.printAfterAll,
                      "Print the Wrapper IR to stderr after every pass");
    compile->add_flag("--time-passes", o.request.instrumentation.timePasses,
                      "Print the time each pass takes to stderr");
    compile
        ->add_option("--max-nodes", o.request.limits.maxNodes,
                     "Reject documents with more nodes than this (all graphs together)")
        ->check(positiveInteger)
        ->default_str(std::to_string(o.request.limits.maxNodes));
    compile
        ->add_option("--max-input-bytes", o.request.limits.maxInputBytes,
                     "Reject input files larger than this")
        ->check(positiveInteger)
        ->default_str(std::to_string(o.request.limits.maxInputBytes));
    compile->add_flag(
        "--verify-each", o.request.instrumentation.verifyEach,
        "Verify the Wrapper IR after every pass, not only at the end of the pipeline");
    compile->add_flag("--fx-legacy-grid", o.request.emitOptions.fxLegacyGrid,
                      "FX: print a static launch's grid as its numels, the form of PyTorch PR "
                      "146942's example graphs");
    compile
        ->add_option("--fx-backend", o.request.emitOptions.fxBackend,
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
    compile
        ->add_option("--cpp-extern", o.cppExtern,
                     "cpp: extern kernels and fallbacks: reject (an error naming the op) or "
                     "hooks (run() calls the embedder's wirc::rt::ExternHooks table)")
        ->check(CLI::IsMember({"reject", "hooks"}))
        ->default_str("reject");
    compile
        ->add_option("--cpp-abi", o.cppAbi,
                     "cpp: standalone (CUDA driver API and wirc's runtime only) or aoti "
                     "(PyTorch's AOTI C shim: tensor handles, extern kernels through "
                     "aoti_torch_* calls; links libtorch)")
        ->check(CLI::IsMember({"standalone", "aoti"}))
        ->default_str("standalone");
    compile
        ->add_option("--memory-plan", o.memoryPlan,
                     "How buffers are placed: none (allocate each, free at last use), reuse "
                     "(also reuse freed buffers of the same size, as Inductor does), pool "
                     "(Inductor's pool planner) or arena (wirc's arena planner)")
        ->check(CLI::IsMember({"none", "reuse", "pool", "arena"}))
        ->default_str("reuse");
    addArenaSearchOptions(*compile, o.request.options.planEffort, o.request.options.planSeed);
    compile->add_flag("--verify-plan", o.request.options.verifyPlan,
                      "Check every memory plan with the independent plan checker");
    compile->add_flag("--stats", o.request.instrumentation.memoryStats,
                      "Print each function's and device's lower bound and peak memory to stderr");
    compile->add_option("--output-dir", o.request.outputDir,
                        "cpp: write a directory: the wrapper, kernels/NAME.cubin and .ptx, "
                        "manifest.json (also -o DIR/)");
    compile
        ->add_option("--cuda-arch", o.request.kernels.arch,
                     "cpp: the GPU architecture kernels are compiled for")
        ->check([](const std::string &arch) { return wirc::cuda::checkArch(arch); })
        ->default_str("sm_90");
    compile->add_option("--cuda-root", o.request.kernels.cudaRoot,
                        "cpp: the CUDA toolkit to compile kernels with (default: $CUDA_HOME, "
                        "$CUDA_PATH, else the configured toolkit)");
    compile->add_option("--cache-dir", o.cacheDir,
                        "cpp: where compiled kernels are cached (default: $XDG_CACHE_HOME/wirc "
                        "or ~/.cache/wirc)");
    compile->add_flag("--no-cache", o.noCache,
                      "cpp: compile every kernel, reading and writing no cache");
    compile
        ->add_option("-j,--jobs", o.request.kernels.threads,
                     "Threads that read a large graph, print a large Python wrapper and, for "
                     "cpp, compile kernels (0: one per core); the output does not depend on it")
        ->check(CLI::Range(0u, 1024u))
        ->default_str("0");
    compile->add_flag("--no-size-asserts", o.noSizeAsserts,
                      "Do not check input and extern-output sizes and strides at run time");

    planTrace =
        app->add_subcommand("plan-trace", "Plan the memory of a lifetime trace (MiniMalloc CSV)");
    planTrace->add_option("input", o.traceRequest.inputPath, "Trace file ('-' for stdin)")
        ->required();
    std::vector<std::string> planNames;
    for (const wirc::plan::StrategyInfo &info : wirc::plan::strategies())
      planNames.emplace_back(info.name);
    planTrace->add_option("--memory-plan", o.planName, "Planning strategy")
        ->check(CLI::IsMember(planNames))
        ->default_str("arena");
    addArenaSearchOptions(*planTrace, o.traceRequest.options.effort,
                          o.traceRequest.options.seed);
    planTrace
        ->add_option("--alignment", o.traceRequest.alignment,
                     "Alignment of every buffer in bytes (a power of two)")
        ->default_str("1");
    planTrace->add_flag("--emit-offsets", o.traceRequest.emitOffsets,
                        "Add every buffer's offset, by id in input order");
  }

  /// The options at their defaults, without a temporary of them all (whose
  /// defaults allocate nothing, so this cannot throw).
  void reset() noexcept {
    std::destroy_at(&o);
    std::construct_at(&o);
  }
};

/// Command lines built and not in use. A run takes one, or builds one if
/// none is idle, and gives it back: a process builds as many as it runs at
/// once. Never destroyed, so that no run can outlive it at exit.
struct IdleCommandLines {
  std::mutex mutex;
  std::vector<std::unique_ptr<CommandLine>> lines;
};
IdleCommandLines &idleCommandLines() {
  static auto *idle = new IdleCommandLines;
  return *idle;
}

std::unique_ptr<CommandLine> takeCommandLine() {
  IdleCommandLines &idle = idleCommandLines();
  {
    std::lock_guard<std::mutex> lock(idle.mutex);
    if (!idle.lines.empty()) {
      std::unique_ptr<CommandLine> commandLine = std::move(idle.lines.back());
      idle.lines.pop_back();
      return commandLine;
    }
  }
  return std::make_unique<CommandLine>();
}

void giveBack(std::unique_ptr<CommandLine> commandLine) noexcept {
  commandLine->reset();
  IdleCommandLines &idle = idleCommandLines();
  std::lock_guard<std::mutex> lock(idle.mutex);
  try {
    idle.lines.push_back(std::move(commandLine));
  } catch (const std::bad_alloc &) {
    // Not kept: the next run builds another.
  }
}

int run(int argc, const char *const *argv, const DriverIO &io) {
  // Given back at the end with its options reset: nothing of this run (its
  // streams, its logger) outlives it.
  struct Lease {
    std::unique_ptr<CommandLine> commandLine = takeCommandLine();
    ~Lease() { giveBack(std::move(commandLine)); }
  } lease;
  Options &o = lease.commandLine->o;
  o.cacheDir = wirc::cuda::defaultCacheDir();
  CLI::App &app = *lease.commandLine->app;
  CLI::App *compile = lease.commandLine->compile;
  CLI::App *planTrace = lease.commandLine->planTrace;
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
  logger->set_level(spdlog::level::from_str(o.logLevel));

  if (o.listPasses) {
    io.out(passList());
    return 0;
  }
  if (o.listEmitters) {
    io.out(emitterList());
    return 0;
  }
  if (planTrace->parsed()) {
    o.traceRequest.options.strategy = *wirc::plan::parseStrategy(o.planName);
    wirc::DiagnosticEngine diag(printDiagnostic);
    std::string json;
    wirc::ExitCode code = wirc::plan::planTrace(o.traceRequest, diag, json);
    noteHiddenErrors(diag);
    if (code == wirc::ExitCode::Success)
      io.out(std::move(json));
    return toInt(code);
  }
  if (!compile->parsed()) {
    io.err(app.help());
    return toInt(wirc::ExitCode::UsageError);
  }

  o.request.emit = o.emitName;
  // -o DIR/ (or an existing directory) asks for an output directory.
  if (o.request.outputDir.empty() && o.request.outputPath != "-" &&
      (o.request.outputPath.ends_with('/') ||
       std::filesystem::is_directory(o.request.outputPath))) {
    o.request.outputDir = o.request.outputPath;
  } else if (!o.request.outputDir.empty() && o.request.outputPath != "-") {
    io.err("wirc: error: give either -o FILE or --output-dir DIR, not both\n");
    return toInt(wirc::ExitCode::UsageError);
  }
  o.request.kernels.cacheDir = o.noCache ? std::string() : o.cacheDir;
  o.request.limits.threads = o.request.kernels.threads
                                 ? o.request.kernels.threads
                                 : std::max(1u, std::thread::hardware_concurrency());
  o.request.emitOptions.threads = o.request.limits.threads;
  o.request.releaseFreedMemory = io.releaseFreedMemory;
  o.request.kernels.log = [logger](const std::string &line) { logger->debug("{}", line); };
  o.request.kernels.warn = [logger](const std::string &line) { logger->warn("{}", line); };
  o.request.disableFree = io.exitsAfter;
  o.request.options.sizeAsserts = !o.noSizeAsserts;
  o.request.emitOptions.cppExtern = o.cppExtern == "hooks"
                                        ? wirc::emit::EmitOptions::CppExtern::Hooks
                                        : wirc::emit::EmitOptions::CppExtern::Reject;
  if (o.cppAbi == "aoti" && o.cppExtern == "hooks") {
    io.err("wirc: error: --cpp-extern=hooks is for the standalone ABI; with --cpp-abi=aoti "
           "extern kernels call PyTorch's C shim\n");
    return toInt(wirc::ExitCode::UsageError);
  }
  o.request.emitOptions.cppAbi = o.cppAbi == "aoti" ? wirc::emit::EmitOptions::CppAbi::Aoti
                                                    : wirc::emit::EmitOptions::CppAbi::Standalone;
  o.request.options.memoryPlan = o.memoryPlan == "none"    ? wirc::passes::MemoryPlan::None
                                 : o.memoryPlan == "pool"  ? wirc::passes::MemoryPlan::Pool
                                 : o.memoryPlan == "arena" ? wirc::passes::MemoryPlan::Arena
                                                           : wirc::passes::MemoryPlan::Reuse;
  o.request.instrumentation.print = io.err;
  o.request.standardOutput = io.out;
  wirc::DiagnosticEngine diag(printDiagnostic);
  wirc::ExitCode code = wirc::compile(o.request, diag);
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
