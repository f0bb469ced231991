//===- LaunchGrids.cpp - An out-of-tree wirc backend ----------------------===//
//
// Links the installed wirc::wirc, registers two emitters and compiles a graph
// with one of them through the same entry point as `wirc compile`:
//
//   launch-grids  one line per kernel launch in the Wrapper IR after the
//                 passes: the kernel, its config and its folded launch grid,
//                 evaluated at the graph's size hints
//   fx-annotated  the built-in fx emitter's text under a header comment,
//                 the way a subclass extends a base emitter
//
// --line-kinds runs the same steps one at a time instead (read the graph, run
// the default pipeline) and counts the Wrapper IR's lines by kind.
//
// Usage: launch-grids [--emit=NAME] [-o OUTPUT] GRAPH
//        launch-grids --line-kinds GRAPH
//        launch-grids --list-emitters
//
//===----------------------------------------------------------------------===//
#include "wirc/driver/Compiler.h"
#include "wirc/emit/Emitter.h"
#include "wirc/graph/JsonLocator.h"
#include "wirc/graph/Reader.h"
#include "wirc/passes/Pass.h"
#include "wirc/support/OutputFile.h"
#include "wirc/sym/Expr.h"

#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

namespace {

size_t countLaunches(const wirc::ir::Module &module) {
  size_t count = 0;
  for (const wirc::ir::Function &function : module.functions)
    for (const wirc::ir::Line &line : function.lines)
      count += std::holds_alternative<wirc::ir::KernelCallLine>(line);
  return count;
}

std::string emitLaunchGrids(const wirc::ir::Module &module, const wirc::emit::EmitOptions &) {
  const wirc::sym::SymbolValues hints = module.hints();
  std::string out = "# graph " + module.name +
                    ", kernel launches: " + std::to_string(countLaunches(module)) + "\n";
  for (const wirc::ir::Function &function : module.functions) {
    for (const wirc::ir::Line &line : function.lines) {
      const auto *call = std::get_if<wirc::ir::KernelCallLine>(&line);
      if (!call)
        continue;
      const wirc::graph::Kernel &kernel = module.kernel(call->kernel);
      const wirc::graph::KernelConfig &config = kernel.configs.at(call->config);
      const wirc::ir::Grid &grid = call->grids.at(call->config);
      std::string symbolic, evaluated;
      std::set<std::string> symbols;
      for (const wirc::sym::Expr &dim : grid) {
        std::string error;
        std::optional<int64_t> value = wirc::sym::evaluate(dim, hints, error);
        symbolic += (symbolic.empty() ? "" : ", ") + wirc::sym::toString(dim);
        evaluated += (evaluated.empty() ? "" : ", ") + (value ? std::to_string(*value) : "?");
        for (std::string &symbol : wirc::sym::symbols(dim))
          symbols.insert(std::move(symbol));
      }
      out += function.name + ": " + kernel.name + " config " + std::to_string(call->config) +
             ", " + std::to_string(config.numWarps) + " warps, grid (" + symbolic + ")";
      // A symbolic grid also shows its value at the size hints.
      if (!symbols.empty()) {
        out += " = (" + evaluated + ") at";
        for (const std::string &symbol : symbols)
          out += " " + symbol + "=" + std::to_string(hints.at(symbol));
      }
      out += "\n";
    }
  }
  return out;
}

std::string emitFxAnnotated(const wirc::ir::Module &module,
                            const wirc::emit::EmitOptions &options) {
  std::string base = wirc::emit::emitModule("fx", module, options);
  return "# kernel launches: " + std::to_string(countLaunches(module)) + "\n" + base;
}

void printDiagnostic(const wirc::Diagnostic &diag) {
  std::fprintf(stderr, "%s\n", wirc::formatDiagnostic(diag).c_str());
}

int printLineKinds(const std::string &path) {
  wirc::DiagnosticEngine diag(printDiagnostic);
  std::string text;
  if (std::string error = wirc::readWholeFile(path, text); !error.empty()) {
    diag.error(error);
    return static_cast<int>(wirc::ExitCode::UserError);
  }
  diag.setSource(path, [&text](std::string_view pointer) {
    return wirc::graph::locateJsonPointer(text, pointer);
  });
  std::unique_ptr<wirc::graph::Document> document = wirc::graph::readDocument(text, diag);
  if (!document)
    return static_cast<int>(wirc::ExitCode::UserError);
  wirc::ir::Module module;
  wirc::passes::CompileOptions options;
  wirc::passes::PassContext context{document.get(), options, diag};
  if (!wirc::passes::runPipeline(wirc::passes::buildDefaultPipeline(), module, context))
    return static_cast<int>(wirc::ExitCode::UserError);

  std::map<std::string, int, std::less<>> counts;
  for (const wirc::ir::Function &function : module.functions)
    for (const wirc::ir::Line &line : function.lines)
      ++counts[std::string(wirc::ir::lineKindName(line))];
  for (const auto &[kind, count] : counts)
    std::printf("%s %d\n", kind.c_str(), count);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  // Registered before compile() looks emitters up by name, like the built-ins.
  for (const auto &[name, summary, emit] :
       {std::tuple<const char *, const char *, wirc::emit::EmitFunction>{
            "launch-grids", "one line per kernel launch with its grid", emitLaunchGrids},
        {"fx-annotated", "the fx emitter's text under a comment", emitFxAnnotated}}) {
    if (std::string error = wirc::emit::registerEmitter(name, ".txt", summary, emit);
        !error.empty()) {
      std::fprintf(stderr, "launch-grids: %s\n", error.c_str());
      return 70;
    }
  }

  wirc::CompileRequest request;
  request.emit = "launch-grids";
  bool lineKinds = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--list-emitters") {
      for (const wirc::emit::EmitterInfo *info : wirc::emit::registeredEmitters())
        std::printf("%-14s %-5s %s\n", info->name.c_str(), info->extension.c_str(),
                    info->summary.c_str());
      return 0;
    }
    if (arg == "--line-kinds")
      lineKinds = true;
    else if (arg.starts_with("--emit="))
      request.emit = arg.substr(7);
    else if (arg == "-o" && i + 1 < argc)
      request.outputPath = argv[++i];
    else
      request.inputPath = arg;
  }
  if (lineKinds)
    return printLineKinds(request.inputPath);
  wirc::DiagnosticEngine diag(printDiagnostic);
  return static_cast<int>(wirc::compile(request, diag));
}
