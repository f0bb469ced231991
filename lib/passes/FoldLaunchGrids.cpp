//===- FoldLaunchGrids.cpp - Per-config launch grids ----------------------===//
//
// Inductor computes a Triton launch's grid inside the launcher, once per
// config, from the kernel's numels and the config's block sizes (PyTorch PRs
// 147583 / 148305). wirc computes the same grids once, in the IR, so the
// Python, C++ and FX emitters print one shared result. A block size the
// config does not define (a persistent reduction's R0_BLOCK) leaves the numel
// undivided, as Inductor's GridExpr does. A launch that is statically empty
// under every config is replaced by a comment.
//
//===----------------------------------------------------------------------===//
#include "wirc/passes/Pass.h"

#include "LineParts.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

namespace wirc::passes {

namespace {

using namespace wirc::ir;

/// CUDA's limit on gridDim.y and gridDim.z.
constexpr int64_t kMaxGridYZ = 65535;

class GridFolder {
public:
  GridFolder(const KernelCallLine &call, std::string_view origin, const graph::Kernel &kernel,
             PassContext &ctx)
      : call(call), origin(origin), kernel(kernel), ctx(ctx),
        configsPointer(fmt::format("/kernels/{}/configs", call.kernel)) {}

  std::optional<Grid> fold(const graph::KernelConfig &config, size_t configIndex);

private:
  const KernelCallLine &call;
  std::string_view origin; ///< the call's graph node
  const graph::Kernel &kernel;
  PassContext &ctx;
  std::string configsPointer; ///< kernels keep their document order in the module
  bool ok = true;

  std::optional<sym::Expr> numel(std::string_view name) {
    for (const auto &[key, value] : call.numels)
      if (key == name)
        return value;
    return std::nullopt;
  }

  sym::Expr requireNumel(std::string_view name) {
    if (auto n = numel(name))
      return *n;
    ctx.diag.error(fmt::format("{}/numels", origin),
                   fmt::format("a launch of '{}' (grid type {}) needs numel '{}'", kernel.name,
                               graph::gridTypeName(kernel.gridType), name));
    ok = false;
    return sym::Expr(1);
  }

  /// A combo kernel's grid: x covers every sub-kernel (each after the other,
  /// or interleaved as many times as there are sub-kernels), y the largest
  /// sub-kernel's, split over z past 65535 blocks as Grid2DWithYZOverflow
  /// splits it. The combo grid's default config supplies the block sizes the
  /// config leaves out.
  template <typename Block> Grid foldCombo(Block &block) {
    if (!kernel.combo)
      throw InternalError("combo grid kernel without its sub-kernels after validation");
    const graph::ComboGrid &combo = *kernel.combo;
    auto blockOrDefault = [&](std::string_view name) -> std::optional<int64_t> {
      if (auto b = block(name))
        return b;
      for (const auto &[key, value] : combo.defaultConfig)
        if (key == name)
          return value;
      return std::nullopt;
    };
    auto partNumel = [&](const std::optional<sym::Expr> &fixed, char dim, size_t part) {
      return fixed ? *fixed : requireNumel(fmt::format("{}numel_{}", dim, part));
    };
    const std::optional<int64_t> xblock = blockOrDefault("XBLOCK");
    std::vector<sym::Expr> xs, ys;
    for (size_t i = 0; i < combo.parts.size(); ++i) {
      const graph::ComboGrid::Part &part = combo.parts[i];
      xs.push_back(partNumel(part.xnumel, 'x', i));
      if (part.hasY)
        ys.push_back(partNumel(part.ynumel, 'y', i));
    }
    // Sub-kernels without an x dimension take one block per element.
    Grid grid{sym::Expr(1), sym::Expr(1), sym::Expr(1)};
    if (kernel.gridType == graph::GridType::SequentialComboKernelGrid) {
      sym::Expr x(0);
      for (size_t i = 0; i < xs.size(); ++i)
        x = x + (combo.parts[i].noXDim ? xs[i] : ceilDivBy(xs[i], xblock));
      grid[0] = x;
    } else {
      std::vector<sym::Expr> candidates, spread;
      for (size_t i = 0; i < xs.size(); ++i)
        (combo.parts[i].noXDim ? candidates : spread).push_back(xs[i]);
      if (!spread.empty())
        candidates.push_back(ceilDivBy(sym::max(spread), xblock));
      grid[0] = sym::max(candidates) * sym::Expr(static_cast<int64_t>(xs.size()));
    }
    if (combo.minBlocks > 0)
      grid[0] = sym::max(grid[0], sym::Expr(combo.minBlocks));
    if (!ys.empty())
      splitYOverZ(ceilDivBy(sym::max(ys), blockOrDefault("YBLOCK")), grid);
    return grid;
  }

  /// Sets grid y and z to \p yBlocks, split over z past CUDA's 65535; the
  /// kernel recombines them. With no y blocks there are no slices either:
  /// Max(slices, 1) keeps the y division defined and the grid empty, as
  /// Inductor's zero guard does.
  static void splitYOverZ(const sym::Expr &yBlocks, Grid &grid) {
    sym::Expr zSlices = sym::ceilDiv(yBlocks, sym::Expr(kMaxGridYZ));
    grid[1] = sym::ceilDiv(yBlocks, sym::max(zSlices, sym::Expr(1)));
    grid[2] = zSlices;
  }

  static sym::Expr ceilDivBy(const sym::Expr &n, std::optional<int64_t> block) {
    if (!block || *block == 1)
      return n;
    return sym::ceilDiv(n, sym::Expr(*block));
  }
};

std::optional<Grid> GridFolder::fold(const graph::KernelConfig &config, size_t configIndex) {
  auto block = [&](std::string_view name) -> std::optional<int64_t> {
    auto b = config.kwarg(name);
    if (b && *b <= 0) {
      ctx.diag.error(fmt::format("{}/{}/kwargs/{}", configsPointer, configIndex, name),
                     fmt::format("block size {} must be positive", name));
      ok = false;
      return std::nullopt;
    }
    return b;
  };
  Grid grid{sym::Expr(1), sym::Expr(1), sym::Expr(1)};
  switch (kernel.gridType) {
  case graph::GridType::Grid1D:
    grid[0] = ceilDivBy(requireNumel("xnumel"), block("XBLOCK"));
    break;
  case graph::GridType::Grid2D:
    grid[0] = ceilDivBy(requireNumel("xnumel"), block("XBLOCK"));
    grid[1] = ceilDivBy(requireNumel("ynumel"), block("YBLOCK"));
    break;
  case graph::GridType::Grid3D:
    grid[0] = ceilDivBy(requireNumel("xnumel"), block("XBLOCK"));
    grid[1] = ceilDivBy(requireNumel("ynumel"), block("YBLOCK"));
    grid[2] = ceilDivBy(requireNumel("znumel"), block("ZBLOCK"));
    break;
  case graph::GridType::BatchMatmulGrid3D:
    // A native batched matmul puts the batch (z) on grid dimension 0, which
    // has no 65535 limit, and the x tiles on dimension 2.
    grid[0] = ceilDivBy(requireNumel("znumel"), block("ZBLOCK"));
    grid[1] = ceilDivBy(requireNumel("ynumel"), block("YBLOCK"));
    grid[2] = ceilDivBy(requireNumel("xnumel"), block("XBLOCK"));
    break;
  case graph::GridType::Grid2DWithYZOverflow:
    grid[0] = ceilDivBy(requireNumel("xnumel"), block("XBLOCK"));
    splitYOverZ(ceilDivBy(requireNumel("ynumel"), block("YBLOCK")), grid);
    break;
  case graph::GridType::CooperativeReductionGrid: {
    auto rsplit = block("RSPLIT");
    if (!rsplit) {
      ctx.diag.error(fmt::format("{}/{}", configsPointer, configIndex),
                     "a CooperativeReductionGrid config needs RSPLIT in its kwargs");
      ok = false;
      rsplit = 1;
    }
    grid[0] = sym::Expr(*rsplit);
    grid[1] = ceilDivBy(requireNumel("xnumel"), block("XBLOCK"));
    break;
  }
  case graph::GridType::SplitScanGrid: {
    auto xblock = block("XBLOCK");
    if (xblock && *xblock != 1) {
      ctx.diag.error(fmt::format("{}/{}/kwargs/XBLOCK", configsPointer, configIndex),
                     "a SplitScanGrid config must have XBLOCK 1 or none");
      ok = false;
    }
    grid[0] = ceilDivBy(requireNumel("r0_numel"), block("R0_BLOCK"));
    grid[1] = requireNumel("xnumel");
    break;
  }
  case graph::GridType::FixedGrid:
    if (!call.fixedGrid)
      throw InternalError("FixedGrid call without a grid after validation");
    grid = *call.fixedGrid;
    break;
  case graph::GridType::PrecomputedGrid:
    if (!config.grid)
      throw InternalError("PrecomputedGrid config without a grid after validation");
    grid = Grid{(*config.grid)[0], (*config.grid)[1], (*config.grid)[2]};
    break;
  case graph::GridType::SequentialComboKernelGrid:
  case graph::GridType::RoundRobinComboKernelGrid:
    grid = foldCombo(block);
    break;
  }
  if (!ok)
    return std::nullopt;
  for (sym::Expr &dim : grid)
    dim = sym::simplify(dim);
  return grid;
}

/// Folded grids by what they depend on: the kernel, the call's numels and its
/// fixed grid. Graphs launch the same few kernels with the same numels over
/// and over, and folding is symbolic division. Only successful folds are
/// kept, so every failing call still reports its own diagnostics.
class GridCache {
public:
  const std::vector<Grid> *find(const KernelCallLine &call) const {
    auto it = entries.find(hashOf(call));
    if (it == entries.end())
      return nullptr;
    for (const Entry &entry : it->second)
      if (entry.kernel == call.kernel && entry.numels == call.numels &&
          entry.fixedGrid == call.fixedGrid)
        return &entry.grids;
    return nullptr;
  }

  void insert(const KernelCallLine &call, const std::vector<Grid> &grids) {
    entries[hashOf(call)].push_back({call.kernel, call.numels, call.fixedGrid, grids});
  }

private:
  struct Entry {
    KernelId kernel;
    std::vector<std::pair<std::string, sym::Expr>> numels;
    OutOfLine<Grid> fixedGrid;
    std::vector<Grid> grids;
  };
  std::unordered_map<size_t, std::vector<Entry>> entries;

  static size_t hashOf(const KernelCallLine &call) {
    size_t h = std::hash<KernelId>()(call.kernel);
    auto mix = [&](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    for (const auto &[name, value] : call.numels) {
      mix(std::hash<std::string>()(name));
      mix(value.hash());
    }
    if (call.fixedGrid)
      for (const sym::Expr &dim : *call.fixedGrid)
        mix(dim.hash());
    return h;
  }
};

} // namespace

/// True if the grid has a dimension that is the constant 0.
static bool isEmpty(const Grid &grid) {
  return std::any_of(grid.begin(), grid.end(),
                     [](const sym::Expr &dim) { return dim.constant() == 0; });
}

bool foldLaunchGrids(Module &module, PassContext &ctx) {
  // A cache for each thread: it is only a memo.
  std::vector<GridCache> caches(lineParts(ctx));
  return forEachLineRange(
      module, ctx, /*parallel=*/true,
      [&](Function &function, size_t begin, size_t end, PassContext &rangeCtx, size_t part) {
        bool ok = true;
        GridCache &cache = caches[part];
        for (size_t i = begin; i < end; ++i) {
          Line &line = function.lines[i];
          auto *call = std::get_if<KernelCallLine>(&line);
          if (!call)
            continue;
          const graph::Kernel &kernel = module.kernel(call->kernel);
          call->grids.clear();
          if (const std::vector<Grid> *grids = cache.find(*call)) {
            call->grids = *grids;
          } else {
            GridFolder folder(*call, function.originOf(*call), kernel, rangeCtx);
            bool folded = true;
            for (size_t c = 0; c < kernel.configs.size(); ++c) {
              auto grid = folder.fold(kernel.configs[c], c);
              if (!grid) {
                ok = folded = false;
                call->grids.clear();
                break;
              }
              call->grids.push_back(std::move(*grid));
            }
            if (folded)
              cache.insert(*call, call->grids);
          }
          // A launch that is empty under every config (a static numel of 0)
          // does nothing whichever config runs, so no emitter prints it.
          // Empty grids known only at run time are skipped by the launchers.
          if (!call->grids.empty() && std::all_of(call->grids.begin(), call->grids.end(), isEmpty))
            line = CommentLine{fmt::format("{}: empty launch grid, launch skipped", kernel.name)};
        }
        return ok;
      });
}

} // namespace wirc::passes
