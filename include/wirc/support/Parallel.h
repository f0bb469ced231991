//===- wirc/support/Parallel.h - Work split over threads ---------*- C++ -*-===//
//
// The places that split work over threads (parsing and reading a graph,
// planning memory, printing a wrapper) run their parts through runParts:
// the calling thread takes part 0, helper threads and the calling thread
// take the others as each comes free, and what a part throws is rethrown as
// a run on one thread would have thrown it.
//
// The helpers are started once per process and wait between runs, spinning
// a little before they sleep: a compile runs a dozen short runs back to
// back, and starting a thread for each part would cost more than a small
// part takes.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_SUPPORT_PARALLEL_H
#define WIRC_SUPPORT_PARALLEL_H

#include <cstddef>
#include <exception>
#include <vector>

namespace wirc {

namespace detail {
/// Calls body(context, p) once for each p in [0, n): p = 0 first on the
/// calling thread, the others on whichever of the calling thread and the
/// process's helpers claims them first, in increasing order of claim.
/// Returns once every call has returned. body must not throw.
void runPartsOnHelpers(size_t n, void (*body)(void *, size_t), void *context);
} // namespace detail

/// Starts helper threads now, in the background, so that runs of up to
/// \p parts parts find them waiting. Optional: a run starts the helpers it
/// wants itself.
void reserveHelpers(size_t parts);

/// Helper threads started in this process so far (statistics and tests).
size_t helperCount();

/// Calls part(0) .. part(n - 1), each once: part(0) on the calling thread,
/// the others on helper threads or, as it comes free, the calling thread
/// (all of them, in order, when no helper can be started). A part may wait
/// for a lower-numbered part that has started, never for a higher one.
/// Once all are done, rethrows the exception of the lowest-numbered part
/// that threw, if any.
template <typename Part> void runParts(size_t n, Part &&part) {
  std::vector<std::exception_ptr> failures(n);
  auto run = [&](size_t p) {
    try {
      part(p);
    } catch (...) {
      failures[p] = std::current_exception();
    }
  };
  detail::runPartsOnHelpers(
      n, [](void *context, size_t p) { (*static_cast<decltype(run) *>(context))(p); }, &run);
  for (std::exception_ptr &failure : failures)
    if (failure)
      std::rethrow_exception(failure);
}

} // namespace wirc

#endif // WIRC_SUPPORT_PARALLEL_H
