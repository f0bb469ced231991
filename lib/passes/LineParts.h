//===- LineParts.h - A line-local pass over two threads ---------*- C++ -*-===//
//
// name-kernel-args and fold-launch-grids look at one line at a time. On a
// large function, with a second core, each runs over the two halves of the
// lines at once. Diagnostics must still come in the order, and the number,
// of a run on one thread: each half reports into a diagnostics engine of its
// own, and a function whose halves reported anything is run again on this
// thread alone (as the reader does with its nodes). Only a bad graph pays for
// the second run, and a pass must give the same lines when run again over
// lines it has already run over.
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

/// Functions of fewer lines run on one thread: a thread costs more than
/// half of their lines.
constexpr size_t kLinePartsFrom = 65536;

/// Calls run(function, begin, end, context, part) over every function's
/// lines [begin, end), in two parts on two threads where a function is large
/// and \p parallel allows. \p part, 0 or 1, tells the two threads apart (for
/// memo tables of their own); a run on one thread is part 0. Returns false
/// if any call did.
template <typename Run>
bool forEachLineRange(ir::Module &module, PassContext &ctx, bool parallel, Run &&run) {
  bool ok = true;
  for (ir::Function &function : module.functions) {
    const size_t n = function.lines.size();
    if (!parallel || ctx.options.threads < 2 || n < kLinePartsFrom) {
      ok &= run(function, 0, n, ctx, 0);
      continue;
    }
    struct Part {
      DiagnosticEngine diag;
      bool ok = false;
    };
    std::vector<Part> parts(2);
    runParts(2, [&](size_t t) {
      PassContext partContext{ctx.document, ctx.options, parts[t].diag};
      parts[t].ok = run(function, n * t / 2, n * (t + 1) / 2, partContext, t);
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
