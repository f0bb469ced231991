//===- PagePopulator.cpp - Faulting pages in ahead ------------------------===//
#include "wirc/support/PagePopulator.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <system_error>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // Linux 5.14
#endif

namespace wirc {

PagePopulator::PagePopulator(size_t windowBytes) : window(windowBytes) {
  try {
    thread = std::thread([this] { run(); });
  } catch (const std::system_error &) {
    // No thread to be had: the filler faults its pages in itself.
  }
}

PagePopulator::~PagePopulator() {
  stopping.store(true);
  generation.fetch_add(1);
  generation.notify_one();
  if (thread.joinable())
    thread.join();
}

void PagePopulator::report(size_t i, const void *base, size_t usedBytes, size_t capacityBytes) {
  Region &r = regions[i];
  r.capacity.store(capacityBytes, std::memory_order_relaxed);
  r.used.store(usedBytes, std::memory_order_relaxed);
  r.base.store(reinterpret_cast<uintptr_t>(base), std::memory_order_release);
  generation.fetch_add(1, std::memory_order_release);
  generation.notify_one();
}

void PagePopulator::run() {
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  // A step at a time, so that a moved array or a stop is seen soon.
  const uintptr_t step = uintptr_t(1) << 20;
  std::array<uintptr_t, kRegions> seenBase{};
  std::array<uintptr_t, kRegions> done{}; // populated up to this address
  while (!stopping.load(std::memory_order_acquire)) {
    uint64_t seen = generation.load(std::memory_order_acquire);
    bool worked = false;
    for (size_t i = 0; i < kRegions; ++i) {
      Region &r = regions[i];
      uintptr_t base = r.base.load(std::memory_order_acquire);
      if (base == 0)
        continue;
      uintptr_t used = base + r.used.load(std::memory_order_relaxed);
      uintptr_t limit = base + r.capacity.load(std::memory_order_relaxed);
      if (base != seenBase[i]) {
        seenBase[i] = base;
        done[i] = 0;
      }
      // Pages the filler has reached are its own.
      uintptr_t from = std::max(done[i], (used + page - 1) & ~(page - 1));
      uintptr_t to = std::min(limit, used + window) & ~(page - 1);
      if (from >= to)
        continue;
      to = std::min(to, from + step);
      if (::madvise(reinterpret_cast<void *>(from), to - from, MADV_POPULATE_WRITE) != 0)
        return; // not supported here (or the array went away): stop helping
      populated.fetch_add(to - from, std::memory_order_relaxed);
      done[i] = to;
      worked = true;
    }
    if (!worked)
      generation.wait(seen, std::memory_order_acquire);
  }
}

} // namespace wirc
