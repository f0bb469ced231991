//===- BuryPointer.cpp ----------------------------------------------------===//
#include "wirc/support/BuryPointer.h"

#include <atomic>
#include <cstdlib>

namespace wirc {

void buryPointer(const void *pointer) {
  // A fixed graveyard: a driver buries a handful of objects per run. Past its
  // size the pointer is simply dropped, which is the same leak without the
  // reachability.
  static constexpr size_t kSlots = 16;
  // Nothing here reads the graveyard: `used` keeps the compiler from
  // dropping the stores into it, which would leave the pointers unreachable.
  [[gnu::used]] static const void *graveyard[kSlots];
  static std::atomic<size_t> next{0};
  size_t slot = next.fetch_add(1, std::memory_order_relaxed);
  if (slot < kSlots)
    graveyard[slot] = pointer;
}

} // namespace wirc
