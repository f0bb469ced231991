//===- wirc/support/Parallel.h - Work split over threads ---------*- C++ -*-===//
//
// The few places that split work over threads (reading a large graph's nodes,
// printing a large wrapper) run their parts through runParts: the calling
// thread takes part 0, each other part gets a thread of its own, and what a
// part throws is rethrown as a run on one thread would have thrown it.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_SUPPORT_PARALLEL_H
#define WIRC_SUPPORT_PARALLEL_H

#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace wirc {

/// Threads from which a stage splits its work into parts (the reader's parse,
/// buffer table and checks; the passes). With two or three, merging the parts
/// costs about what the other cores save, and the parts' records raise the
/// peak: on two cores a page populator gains as much as parsing there, and a
/// 1M-node pipeline ran faster and 100 MB smaller in one part
/// (docs/performance.md, rounds 18, 26 and 30).
inline constexpr unsigned kPartsFromThreads = 4;

/// Calls part(0) .. part(n - 1): part(0) on the calling thread, the others
/// on threads of their own (or on the calling thread, after part(0), when
/// no more threads can be started). Once all are done, rethrows the
/// exception of the lowest-numbered part that threw, if any.
template <typename Part> void runParts(size_t n, Part &&part) {
  std::vector<std::exception_ptr> failures(n);
  auto run = [&](size_t p) {
    try {
      part(p);
    } catch (...) {
      failures[p] = std::current_exception();
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(n > 0 ? n - 1 : 0);
  try {
    for (size_t p = 1; p < n; ++p)
      helpers.emplace_back(run, p);
  } catch (const std::system_error &) {
    // No more threads to be had: the parts left over run here.
  }
  if (n > 0)
    run(0);
  for (std::thread &helper : helpers)
    helper.join();
  for (size_t p = helpers.size() + 1; p < n; ++p)
    run(p);
  for (std::exception_ptr &failure : failures)
    if (failure)
      std::rethrow_exception(failure);
}

} // namespace wirc

#endif // WIRC_SUPPORT_PARALLEL_H
