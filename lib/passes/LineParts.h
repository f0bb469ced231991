//===- LineParts.h - A line-local pass over threads -------------*- C++ -*-===//
//
// name-kernel-args and fold-launch-grids look at one line at a time. On a
// large function, with more than one core, each runs over parts of the
// lines at once, a part a thread. Diagnostics must still come in the order,
// and the number, of a run on one thread: each part reports into a
// diagnostics engine of its own, and a function whose parts reported
// anything is run again on this thread alone (as the reader does with its
// nodes). Only a bad graph pays for the second run, and a pass must give the
// same lines when run again over lines it has already run over.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_LIB_PASSES_LINEPARTS_H
#define WIRC_LIB_PASSES_LINEPARTS_H

#include "wirc/passes/Pass.h"
#include "wirc/support/Parallel.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace wirc::passes {

/// How many parts forEachLineRange may split a function into: the size of
/// the memo tables a pass keeps a part.
inline size_t lineParts(const PassContext &ctx) { return std::max(ctx.options.threads, 1u); }

/// The parts \p items (lines or nodes) are split into: one a thread, each
/// of CompileOptions::minPerPart items at least; one below kPartsFromThreads.
inline size_t partsFor(const PassContext &ctx, size_t items) {
  if (ctx.options.threads < kPartsFromThreads)
    return 1;
  return std::max<size_t>(
      std::min(lineParts(ctx), items / std::max<size_t>(ctx.options.minPerPart, 1)), 1);
}

/// Calls run(function, begin, end, context, part) over every function's
/// lines [begin, end), in parts on threads of their own where a function is
/// large and \p parallel allows. \p part, below lineParts(ctx), tells the
/// threads apart (for memo tables of their own); a run on one thread is
/// part 0. Returns false if any call did.
template <typename Run>
bool forEachLineRange(ir::Module &module, PassContext &ctx, bool parallel, Run &&run) {
  bool ok = true;
  for (ir::Function &function : module.functions) {
    const size_t n = function.lines.size();
    const size_t count = parallel ? partsFor(ctx, n) : 1;
    if (count < 2) {
      ok &= run(function, 0, n, ctx, 0);
      continue;
    }
    struct Part {
      DiagnosticEngine diag;
      bool ok = false;
    };
    std::vector<Part> parts(count);
    runParts(count, [&](size_t t) {
      PassContext partContext{ctx.document, ctx.options, parts[t].diag};
      parts[t].ok = run(function, n * t / count, n * (t + 1) / count, partContext, t);
    });
    bool quiet = std::all_of(parts.begin(), parts.end(), [](const Part &part) {
      return part.ok && part.diag.diagnostics().empty();
    });
    if (!quiet)
      ok &= run(function, 0, n, ctx, 0);
  }
  return ok;
}

} // namespace wirc::passes

#endif // WIRC_LIB_PASSES_LINEPARTS_H
