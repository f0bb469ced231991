//===- wirc/support/PagePopulator.h - Faulting pages in ahead ---*- C++ -*-===//
//
// A page of fresh memory costs a page fault when it is first written, and on
// a large graph those faults were a third of the compile. Where one thread
// fills large arrays front to back while another core has nothing to do (the
// JSON parser filling its records), a PagePopulator faults the pages in on a
// thread of its own, a window ahead of the filling thread. It never reads or
// writes the memory (MADV_POPULATE_WRITE), so it cannot race with the filler;
// where the system lacks that call it does nothing.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_SUPPORT_PAGEPOPULATOR_H
#define WIRC_SUPPORT_PAGEPOPULATOR_H

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>

namespace wirc {

class PagePopulator {
public:
  static constexpr size_t kRegions = 4;

  /// Keeps up to \p windowBytes populated past what is filled, per region.
  explicit PagePopulator(size_t windowBytes);
  /// Stops the thread; what it has not populated is faulted in as written.
  ~PagePopulator();
  PagePopulator(const PagePopulator &) = delete;
  PagePopulator &operator=(const PagePopulator &) = delete;

  /// The filling thread's report on region \p i: it starts at \p base, has
  /// room for \p capacityBytes and holds \p usedBytes. A new base (the array
  /// moved) starts the region over. Wakes the populating thread.
  void report(size_t i, const void *base, size_t usedBytes, size_t capacityBytes);

  /// Bytes the thread has populated, for tests and statistics.
  size_t populatedBytes() const { return populated.load(std::memory_order_relaxed); }

private:
  struct Region {
    std::atomic<uintptr_t> base{0};
    std::atomic<size_t> used{0};
    std::atomic<size_t> capacity{0};
  };
  void run();

  size_t window;
  std::array<Region, kRegions> regions;
  std::atomic<uint64_t> generation{0};
  std::atomic<bool> stopping{false};
  std::atomic<size_t> populated{0};
  std::thread thread;
};

} // namespace wirc

#endif // WIRC_SUPPORT_PAGEPOPULATOR_H
