//===- EmitterRegistryTest.cpp - emit::registerEmitter and its users ------===//
#include "TestUtil.h"

#include "wirc/driver/Compiler.h"
#include "wirc/emit/Emitter.h"
#include "wirc/support/OutputFile.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>

#include <unistd.h>

using namespace wirc;

namespace {

std::string readSample(const std::string &relative) {
  std::string text;
  REQUIRE(readWholeFile(std::string(WIRC_SOURCE_DIR) + "/samples/" + relative, text) == "");
  return text;
}

ir::Module compileSample(const std::string &relative) {
  DiagnosticEngine diag;
  std::string text = readSample(relative);
  auto document = test::read(text, diag);
  REQUIRE(document);
  ir::Module module;
  REQUIRE(test::compile(*document, module, diag));
  return module;
}

std::vector<std::string> registeredNames() {
  std::vector<std::string> names;
  for (const emit::EmitterInfo *info : emit::registeredEmitters())
    names.push_back(info->name);
  return names;
}

std::string countKernels(const ir::Module &module, const emit::EmitOptions &) {
  return std::to_string(module.kernels.size()) + " kernels\n";
}

/// The driver reserves the text's storage (and faults it in) while the
/// passes run; emitter \p name takes it when the text will likely fit, and
/// writes the same text either way.
void checkTakesStorage(const char *name, const ir::Module &module, emit::EmitOptions options) {
  const std::string expected = emit::emitModule(name, module, options);
  const size_t reserve = emit::textReserve(name, module).reserve;
  CHECK(reserve >= expected.size());

  std::string storage = "left over";
  storage.reserve(reserve);
  const char *prepared = storage.data();
  options.textStorage = &storage;
  std::string text = emit::emitModule(name, module, options);
  CHECK(text == expected);
  CHECK(text.data() == prepared); // taken, not copied

  // Too small to be worth taking: left alone.
  std::string small = "small";
  options.textStorage = &small;
  CHECK(emit::emitModule(name, module, options) == expected);
  CHECK(small == "small");
}

} // namespace

TEST_CASE("the built-in emitters come first, registered like any other", "[emit-registry]") {
  std::vector<std::string> names = registeredNames();
  REQUIRE(names.size() >= 4);
  CHECK(std::vector<std::string>(names.begin(), names.begin() + 4) ==
        std::vector<std::string>{"fx", "fx-module", "python", "cpp"});
  CHECK(emit::findEmitter("fx")->extension == ".txt");
  CHECK(emit::findEmitter("cpp")->extension == ".cpp");
  CHECK(emit::findEmitter("python")->extension == ".py");
  CHECK(emit::findEmitter("nonexistent") == nullptr);

  ir::Module module = compileSample("seed/01-add.json");
  emit::EmitOptions options;
  options.fxLegacyGrid = true;
  CHECK(emit::emitModule("fx", module, options) == emit::emitFx(module, options));
  CHECK(emit::emitModule("fx-module", module) == emit::emitFxModule(module));
  CHECK(emit::emitModule("python", module) == emit::emitPython(module));
  CHECK_THROWS_AS(emit::emitModule("nonexistent", module), InternalError);
}

TEST_CASE("the Python emitter writes into storage the driver prepared", "[emit-registry]") {
  ir::Module module = compileSample("seed/01-add.json");
  CHECK(emit::textReserve("python", module).reserve == emit::pythonTextReserve(module));
  for (unsigned threads : {1u, 2u}) {
    INFO("threads " << threads);
    emit::EmitOptions options;
    options.threads = threads;
    options.minLinesPerThread = 1;
    checkTakesStorage("python", module, options);
  }
}

TEST_CASE("the FX emitters write into storage the driver prepared", "[emit-registry]") {
  // As for Python; FX writes a small graph in place too when it takes it.
  for (const char *sample : {"seed/01-add.json", "seed/03-topk-multi-output.json"}) {
    INFO(sample);
    ir::Module module = compileSample(sample);
    CHECK(emit::textReserve("fx", module).reserve == emit::fxTextReserve(module));
    CHECK(emit::textReserve("fx-module", module).reserve == emit::fxModuleTextReserve(module));
    CHECK(emit::textReserve("cpp", module).reserve == 0);
    CHECK(emit::textReserve("cpp", module).fill == 0);
    checkTakesStorage("fx", module, {});
    checkTakesStorage("fx-module", module, {});
  }
}

TEST_CASE("storage faulted in ahead is no more than the text takes", "[emit-registry]") {
  // The driver faults in `fill` bytes of the storage while the passes run,
  // from 16 MB of reserve (about 50,000 lines): a page faulted in and never
  // written would be memory for nothing. A chain of 40,000 kernel calls,
  // each with a comment and a fresh output, most of them freed.
  nlohmann::json doc = nlohmann::json::parse(readSample("seed/01-add.json"));
  nlohmann::json buffer = doc["buffers"][0];
  nlohmann::json call = doc["nodes"][2];
  nlohmann::json comment = doc["nodes"][1];
  doc["buffers"] = nlohmann::json::array();
  nlohmann::json nodes = nlohmann::json::array({doc["nodes"][0]});
  const int calls = 40000;
  for (int i = 0; i < calls; ++i) {
    buffer["name"] = fmt::format("buf{}", i);
    doc["buffers"].push_back(buffer);
    call["args"][0]["buffer"] = i ? fmt::format("buf{}", i - 1) : "arg1_1";
    call["args"][2]["buffer"] = buffer["name"];
    nodes.push_back(comment);
    nodes.push_back(call);
  }
  nodes.push_back(doc["nodes"][3]);
  doc["nodes"] = nodes;
  doc["outputs"][0]["buffer"] = fmt::format("buf{}", calls - 1);

  DiagnosticEngine diag;
  std::string text = doc.dump();
  auto document = test::read(text, diag);
  REQUIRE(document);
  ir::Module module;
  REQUIRE(test::compile(*document, module, diag));
  for (const char *emit : {"python", "fx", "fx-module"}) {
    INFO(emit);
    emit::TextReserve storage = emit::textReserve(emit, module);
    std::string out = emit::emitModule(emit, module);
    CHECK(storage.fill <= out.size());
    CHECK(storage.fill >= out.size() / 3);
    CHECK(storage.reserve >= out.size());
  }
}

TEST_CASE("a registered emitter is listed, found and used by compile()", "[emit-registry]") {
  size_t before = emit::registeredEmitters().size();
  REQUIRE(emit::registerEmitter("unit-count", ".txt", "counts kernels", countKernels) == "");
  std::vector<std::string> names = registeredNames();
  REQUIRE(names.size() == before + 1);
  CHECK(names.back() == "unit-count");
  const emit::EmitterInfo *info = emit::findEmitter("unit-count");
  REQUIRE(info);
  CHECK(info->summary == "counts kernels");

  ir::Module module = compileSample("seed/03-topk-multi-output.json");
  CHECK(emit::emitModule("unit-count", module) == "2 kernels\n");

  // compile() runs the same pipeline and hands the result to the emitter.
  std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("wirc-unit-count-" + std::to_string(::getpid()));
  CompileRequest request;
  request.inputPath = std::string(WIRC_SOURCE_DIR) + "/samples/seed/03-topk-multi-output.json";
  request.outputPath = out.string();
  request.emit = "unit-count";
  DiagnosticEngine diag;
  ExitCode code = compile(request, diag);
  INFO(test::firstError(diag));
  REQUIRE(code == ExitCode::Success);
  std::string written;
  REQUIRE(readWholeFile(out.string(), written) == "");
  std::filesystem::remove(out);
  CHECK(written == "2 kernels\n");
}

TEST_CASE("a registered emitter's text estimate prepares the storage it takes",
          "[emit-registry]") {
  // An emitter that takes EmitOptions::textStorage registers its estimate;
  // textReserve() answers with it, and the driver's prepared storage reaches
  // the emitter through takeTextStorage().
  const char *seen = nullptr;
  auto emitTaking = [&seen](const ir::Module &module, const emit::EmitOptions &options) {
    std::string out;
    if (emit::takeTextStorage(options, 4096, out))
      seen = out.data();
    out += std::to_string(module.kernels.size()) + " kernels\n";
    return out;
  };
  REQUIRE(emit::registerEmitter("unit-estimate", ".txt", "", emitTaking,
                                [](const ir::Module &module) -> emit::TextReserve {
                                  return {4096 + module.kernels.size(), 1024};
                                }) == "");
  ir::Module module = compileSample("seed/03-topk-multi-output.json");
  emit::TextReserve estimate = emit::textReserve("unit-estimate", module);
  CHECK(estimate.reserve == 4098);
  CHECK(estimate.fill == 1024);
  // Without an estimate there is nothing to prepare.
  REQUIRE(emit::registerEmitter("unit-no-estimate", ".txt", "", countKernels) == "");
  CHECK(emit::textReserve("unit-no-estimate", module).reserve == 0);
  CHECK(emit::textReserve("unit-unregistered", module).reserve == 0);

  // Storage of at least half the estimate is taken, emptied; less is not.
  std::string storage = "left over";
  storage.reserve(2048);
  const char *prepared = storage.data();
  emit::EmitOptions options;
  options.textStorage = &storage;
  CHECK(emit::emitModule("unit-estimate", module, options) == "2 kernels\n");
  CHECK(seen == prepared);
  std::string small = "left over";
  small.reserve(2047);
  options.textStorage = &small;
  seen = nullptr;
  CHECK(emit::emitModule("unit-estimate", module, options) == "2 kernels\n");
  CHECK(seen == nullptr);
  CHECK(small == "left over");
}

TEST_CASE("compile() rejects an emitter name nobody registered", "[emit-registry]") {
  CompileRequest request;
  request.inputPath = std::string(WIRC_SOURCE_DIR) + "/samples/seed/01-add.json";
  request.emit = "unit-unregistered";
  DiagnosticEngine diag;
  CHECK(compile(request, diag) == ExitCode::UsageError);
  CHECK(test::firstError(diag) == "no emitter is registered as 'unit-unregistered'");
}

TEST_CASE("malformed or taken registrations change nothing", "[emit-registry]") {
  std::vector<std::string> before = registeredNames();
  struct Case {
    std::string name, extension;
    bool hasFunction;
    std::string error;
  };
  std::vector<Case> cases = {
      {"fx", ".txt", true, "an emitter named 'fx' is already registered"},
      {"", ".txt", true, "invalid emitter name ''"},
      {"Fx2", ".txt", true, "invalid emitter name 'Fx2'"},
      {"2fx", ".txt", true, "invalid emitter name '2fx'"},
      {"my_fx", ".txt", true, "invalid emitter name 'my_fx'"},
      {"my fx", ".txt", true, "invalid emitter name 'my fx'"},
      {std::string(65, 'a'), ".txt", true, "invalid emitter name 'aaaa"},
      {"unit-ext", "txt", true, "invalid extension 'txt' for emitter 'unit-ext'"},
      {"unit-ext", ".", true, "invalid extension '.' for emitter 'unit-ext'"},
      {"unit-ext", ".t-x", true, "invalid extension '.t-x' for emitter 'unit-ext'"},
      {"unit-nofn", ".txt", false, "emitter 'unit-nofn' has no emit function"},
  };
  for (const Case &c : cases) {
    INFO("name '" << c.name << "', extension '" << c.extension << "'");
    std::string error = emit::registerEmitter(
        c.name, c.extension, "", c.hasFunction ? emit::EmitFunction(countKernels) : nullptr);
    CHECK_THAT(error, Catch::StartsWith(c.error));
  }
  CHECK(registeredNames() == before);
  // The longest name and an empty extension are fine.
  CHECK(emit::registerEmitter(std::string(64, 'b'), "", "", countKernels) == "");
  CHECK(emit::registerEmitter("unit-dup", ".out", "", countKernels) == "");
  CHECK(emit::registerEmitter("unit-dup", ".out", "", countKernels) ==
        "an emitter named 'unit-dup' is already registered");
}

TEST_CASE("concurrent registrations each succeed once and keep earlier emitters in place",
          "[emit-registry]") {
  const emit::EmitterInfo *fx = emit::findEmitter("fx");
  constexpr int kThreads = 8, kPerThread = 40;
  std::atomic<int> contestedWins = 0, lost = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &contestedWins, &lost] {
      for (int i = 0; i < kPerThread; ++i) {
        std::string name = "unit-t" + std::to_string(t) + "-" + std::to_string(i);
        if (emit::registerEmitter(name, ".txt", "", countKernels) != "")
          ++lost;
        if (emit::registerEmitter("unit-contested", ".txt", "", countKernels) == "")
          ++contestedWins;
        (void)emit::registeredEmitters();
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  CHECK(lost == 0);
  CHECK(contestedWins == 1);
  std::vector<std::string> names = registeredNames();
  for (int t = 0; t < kThreads; ++t) {
    // Each thread's emitters appear in the order it registered them.
    auto previous = names.begin();
    for (int i = 0; i < kPerThread; ++i) {
      auto it = std::find(names.begin(), names.end(),
                          "unit-t" + std::to_string(t) + "-" + std::to_string(i));
      REQUIRE(it != names.end());
      CHECK(it >= previous);
      previous = it;
    }
  }
  CHECK(emit::findEmitter("fx") == fx);
  CHECK(fx->name == "fx");
}

TEST_CASE("printing a Python wrapper on several threads changes nothing", "[emit][threads]") {
  // Every fixture and sample that compiles, printed with one line per thread
  // at least, under every memory plan (pools add lines of their own).
  int printed = 0;
  for (const std::filesystem::path &file : test::corpusFiles()) {
    INFO(file.string());
    std::string text;
    REQUIRE(readWholeFile(file.string(), text) == "");
    DiagnosticEngine diag;
    auto doc = test::read(text, diag);
    if (!doc)
      continue;
    for (passes::MemoryPlan plan : {passes::MemoryPlan::Reuse, passes::MemoryPlan::Arena}) {
      passes::CompileOptions options;
      options.memoryPlan = plan;
      ir::Module module;
      if (!test::compile(*doc, module, diag, options))
        continue;
      auto print = [&](unsigned threads) {
        emit::EmitOptions emitOptions;
        emitOptions.threads = threads;
        emitOptions.minLinesPerThread = 1;
        try {
          return emit::emitPython(module, emitOptions);
        } catch (const NotImplementedError &e) {
          return std::string("NotImplementedError: ") + e.what();
        }
      };
      std::string expected = print(1);
      for (unsigned threads : {2u, 3u, 8u})
        CHECK(print(threads) == expected);
      printed += expected.find("def call(") != std::string::npos;
    }
  }
  CHECK(printed > 30);
}

TEST_CASE("compiling on several threads changes nothing", "[passes][threads]") {
  // build-wrapper-ir, plan-memory and the line-local passes split a large
  // function into parts, a part a thread. With one node or line a part at
  // least, every fixture and sample splits many ways; under every memory
  // plan the IR is that of one thread, and so are the diagnostics of those
  // that do not compile. Each pipeline takes its document over, as the
  // driver's does: only then are the nodes built in parts.
  int compiled = 0;
  for (const std::filesystem::path &file : test::corpusFiles()) {
    INFO(file.string());
    std::string text;
    REQUIRE(readWholeFile(file.string(), text) == "");
    for (passes::MemoryPlan plan : {passes::MemoryPlan::Reuse, passes::MemoryPlan::None,
                                    passes::MemoryPlan::Pool, passes::MemoryPlan::Arena}) {
      auto run = [&](unsigned threads) {
        DiagnosticEngine diag;
        auto doc = test::read(text, diag);
        if (!doc)
          return std::string("unread");
        passes::CompileOptions options;
        options.memoryPlan = plan;
        options.threads = threads;
        options.minPerPart = 1;
        const graph::Document *document = doc.get();
        passes::PassContext ctx{document, options, diag, std::move(doc)};
        ir::Module module;
        std::string result = passes::runPipeline(passes::buildDefaultPipeline(), module, ctx)
                                 ? ir::printModule(module)
                                 : std::string("failed");
        // Where each kernel call came from, which diagnostics quote.
        for (const ir::Function &function : module.functions)
          for (const ir::Line &line : function.lines)
            if (const auto *call = std::get_if<ir::KernelCallLine>(&line))
              result += fmt::format("\n{}", function.originOf(*call));
        for (const Diagnostic &d : diag.diagnostics())
          result += "\n" + formatDiagnostic(d);
        return result;
      };
      std::string expected = run(1);
      // Passes split their work from four threads (kPartsFromThreads).
      for (unsigned threads : {2u, 4u, 8u})
        CHECK(run(threads) == expected);
      compiled += expected != "unread" && expected.rfind("failed", 0) != 0;
    }
  }
  CHECK(compiled > 30);
}
