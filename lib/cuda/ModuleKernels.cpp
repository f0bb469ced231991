//===- ModuleKernels.cpp --------------------------------------------------===//
#include "wirc/cuda/ModuleKernels.h"

#include "wirc/cuda/ContentHash.h"
#include "wirc/support/Base64.h"

#include <fmt/format.h>

#include <set>

namespace wirc::cuda {

namespace {

/// What happens to one image: compiled by a job, or taken from the graph.
struct Planned {
  ir::KernelId kernel = 0;
  std::vector<unsigned> configs;
  std::string fileStem;
  std::string entry;
  std::string pointer; ///< where the compiled source is, for diagnostics
  int job = -1;        ///< -1: the graph's own cubin
};

std::optional<SourceKind> kindOf(graph::KernelLanguage language) {
  switch (language) {
  case graph::KernelLanguage::PTX:
    return SourceKind::PTX;
  case graph::KernelLanguage::CUDA:
    return SourceKind::CUDA;
  case graph::KernelLanguage::LLVM:
    return SourceKind::LLVM;
  case graph::KernelLanguage::Triton:
  case graph::KernelLanguage::Cpp: // not a GPU kernel: the emitter rejects it
    return std::nullopt;
  }
  return std::nullopt;
}

bool hasImage(const graph::KernelConfig &config) {
  return config.artifacts && (!config.artifacts->cubin.empty() ||
                              !config.artifacts->cubinBase64.empty() ||
                              !config.artifacts->ptx.empty());
}

} // namespace

ExitCode compileModuleKernels(ir::Module &module, KernelSelection selection,
                              const CompilerOptions &options, DiagnosticEngine &diag,
                              std::vector<KernelImage> *images) {
  std::vector<std::set<unsigned>> launched(module.kernels.size());
  for (const ir::Function &function : module.functions)
    for (const ir::Line &line : function.lines)
      if (const auto *call = std::get_if<ir::KernelCallLine>(&line))
        launched.at(call->kernel).insert(call->config);

  std::vector<KernelJob> jobs;
  std::vector<Planned> plan;
  for (ir::KernelId k = 0; k < module.kernels.size(); ++k) {
    const graph::Kernel &kernel = module.kernels[k];
    if (launched[k].empty())
      continue;
    // Module kernels keep their document order, so k is the JSON index.
    if (std::optional<SourceKind> kind = kindOf(kernel.language)) {
      bool compiledAlready = true;
      for (unsigned c : launched[k])
        compiledAlready = compiledAlready && c < kernel.configs.size() && hasImage(kernel.configs[c]);
      if (selection == KernelSelection::SourcesOnly &&
          (*kind == SourceKind::PTX || compiledAlready))
        continue;
      plan.push_back({k, {launched[k].begin(), launched[k].end()}, kernel.name,
                      kernel.entryName(), fmt::format("/kernels/{}/source", k),
                      static_cast<int>(jobs.size())});
      jobs.push_back({kernel.name, *kind, kernel.source, kernel.entryName()});
      continue;
    }
    // Triton: one image per launched config, from the PTX it carries.
    for (unsigned c : launched[k]) {
      if (c >= kernel.configs.size() || !kernel.configs[c].artifacts)
        continue; // the emitter reports a config without code
      const graph::KernelArtifacts &artifacts = *kernel.configs[c].artifacts;
      std::string stem =
          launched[k].size() == 1 ? kernel.name : fmt::format("{}.{}", kernel.name, c);
      const std::string &entry =
          artifacts.entryName.empty() ? kernel.entryName() : artifacts.entryName;
      if (selection == KernelSelection::All && !artifacts.ptx.empty()) {
        plan.push_back({k, {c}, stem, entry,
                        fmt::format("/kernels/{}/configs/{}/artifacts/ptx", k, c),
                        static_cast<int>(jobs.size())});
        jobs.push_back({kernel.name, SourceKind::PTX, artifacts.ptx, entry});
      } else if (selection == KernelSelection::All && !artifacts.cubinBase64.empty()) {
        plan.push_back({k, {c}, stem, entry, {}, -1});
      }
    }
  }

  CompileResult result = compileKernels(jobs, options);
  if (!result.setupError.empty()) {
    diag.error(fmt::format("cannot compile kernels: {}", result.setupError));
    return ExitCode::KernelError;
  }
  if (!result.errors.empty()) {
    for (const KernelError &error : result.errors) {
      const Planned &planned = *std::find_if(plan.begin(), plan.end(), [&](const Planned &p) {
        return p.job == static_cast<int>(error.job);
      });
      diag.error(planned.pointer, error.message);
      if (!error.log.empty()) {
        std::string log = error.log;
        while (!log.empty() && log.back() == '\n')
          log.pop_back();
        diag.note(planned.pointer, "the toolkit's log:\n" + log);
      }
    }
    return ExitCode::KernelError;
  }

  for (const Planned &planned : plan) {
    graph::Kernel &kernel = module.kernels[planned.kernel];
    KernelImage image;
    image.kernel = kernel.name;
    image.configs = planned.configs;
    image.fileStem = planned.fileStem;
    image.language = std::string(graph::kernelLanguageName(kernel.language));
    image.entry = planned.entry;
    if (planned.job >= 0) {
      CompiledKernel &compiled = result.kernels[planned.job];
      for (unsigned c : planned.configs) {
        if (c >= kernel.configs.size())
          continue;
        graph::KernelConfig &config = kernel.configs[c];
        if (!config.artifacts)
          config.artifacts.emplace();
        // Raw bytes: the emitter embeds them as they are, with no base64
        // round trip (a warm recompile is mostly this copying).
        config.artifacts->cubin = compiled.cubin;
        config.artifacts->cubinBase64.clear();
        config.artifacts->ptx = compiled.ptx;
      }
      image.arch = options.arch;
      image.key = compiled.key;
      image.toolchain = compiled.toolchain;
      image.fromCache = compiled.fromCache;
      image.ptx = std::move(compiled.ptx);
      image.cubin = std::move(compiled.cubin);
    } else {
      const graph::KernelArtifacts &artifacts = *kernel.configs[planned.configs[0]].artifacts;
      image.cubin = decodeBase64(artifacts.cubinBase64);
      image.ptx = artifacts.ptx;
    }
    if (images)
      images->push_back(std::move(image));
  }
  return ExitCode::Success;
}

} // namespace wirc::cuda
