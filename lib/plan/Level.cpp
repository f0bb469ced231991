//===- Level.cpp - Skyline and lowest-level-first decoders ----------------===//
#include "FloorTree.h"
#include "PlanInternal.h"

#include "wirc/support/Diagnostics.h"

#include <limits>

namespace wirc::plan::detail {

namespace {

/// The decoder's open sections, by (level, bytes still to place descending,
/// section). A section's level only rises and its bytes only fall, so each
/// change only moves it later: the heap keeps the key a section had when it
/// was last ordered and refreshes it lazily when the section reaches the
/// top. The top is then always right: its stored key is the smallest and no
/// current key is smaller than its stored one.
class SectionQueue {
public:
  SectionQueue(int32_t sections, const std::vector<int64_t> &remaining)
      : remaining(remaining), level(sections, 0), inHeap(sections, 0) {
    heap.reserve(sections);
  }

  /// The first section, or -1 when none is open. Adds the keys it had to
  /// refresh to \p work.
  int32_t top(uint64_t &work) {
    while (!heap.empty()) {
      Entry &first = heap.front();
      const int32_t k = first.section;
      if (remaining[k] == 0) {
        inHeap[k] = 0;
        first = heap.back();
        heap.pop_back();
        if (!heap.empty())
          siftDown();
        continue;
      }
      if (first.level != level[k] || first.remaining != remaining[k]) {
        first.level = level[k];
        first.remaining = remaining[k];
        siftDown();
        ++work;
        continue;
      }
      return k;
    }
    return -1;
  }
  int64_t levelOf(int32_t k) const { return level[k]; }

  /// Opens \p k at \p newLevel, or moves it there; never lower than before.
  void set(int32_t k, int64_t newLevel) {
    level[k] = newLevel;
    if (inHeap[k])
      return;
    inHeap[k] = 1;
    heap.push_back({newLevel, remaining[k], k});
    siftUp();
  }

private:
  struct Entry {
    int64_t level;
    int64_t remaining;
    int32_t section;
  };

  static bool before(const Entry &a, const Entry &b) {
    if (a.level != b.level)
      return a.level < b.level;
    if (a.remaining != b.remaining)
      return a.remaining > b.remaining;
    return a.section < b.section;
  }
  void siftUp() {
    size_t at = heap.size() - 1;
    Entry entry = heap[at];
    while (at > 0) {
      size_t parent = (at - 1) / 2;
      if (!before(entry, heap[parent]))
        break;
      heap[at] = heap[parent];
      at = parent;
    }
    heap[at] = entry;
  }
  void siftDown() {
    size_t at = 0;
    Entry entry = heap[0];
    const size_t size = heap.size();
    while (true) {
      size_t child = 2 * at + 1;
      if (child >= size)
        break;
      if (child + 1 < size && before(heap[child + 1], heap[child]))
        ++child;
      if (!before(heap[child], entry))
        break;
      heap[at] = heap[child];
      at = child;
    }
    heap[at] = entry;
  }

  const std::vector<int64_t> &remaining;
  std::vector<int64_t> level;
  std::vector<char> inHeap;
  std::vector<Entry> heap;
};

} // namespace

Offsets placeSkyline(const Instance &inst, const std::vector<uint32_t> &order) {
  FloorTree floors(inst.numSections);
  Offsets offsets(inst.count(), -1);
  for (uint32_t i : order) {
    int64_t at = alignUpOrThrow(floors.max(inst.first[i], inst.last[i]), inst.alignment[i]);
    int64_t end = addOrThrow(at, inst.size[i]);
    floors.raise(inst.first[i], inst.last[i], end);
    offsets[i] = at;
  }
  return offsets;
}

uint64_t LevelDecoder::coverEntries(const Instance &inst) {
  uint64_t entries = 0;
  for (size_t i = 0; i < inst.count(); ++i)
    entries += static_cast<uint64_t>(inst.last[i] - inst.first[i]);
  return entries;
}

LevelDecoder::LevelDecoder(const Instance &inst) : inst(inst) {
  const int32_t sections = inst.numSections;
  coverStart.assign(static_cast<size_t>(sections) + 1, 0);
  sectionBytes.assign(static_cast<size_t>(sections), 0);
  for (size_t i = 0; i < inst.count(); ++i)
    for (int32_t k = inst.first[i]; k < inst.last[i]; ++k) {
      ++coverStart[k + 1];
      sectionBytes[k] += inst.size[i];
    }
  for (int32_t k = 0; k < sections; ++k)
    coverStart[k + 1] += coverStart[k];
  coverItems.resize(coverStart[sections]);
  std::vector<uint32_t> fill(coverStart.begin(), coverStart.end() - 1);
  for (uint32_t i = 0; i < inst.count(); ++i)
    for (int32_t k = inst.first[i]; k < inst.last[i]; ++k)
      coverItems[fill[k]++] = i;
  for (int32_t k = 0; k < sections; ++k)
    std::stable_sort(coverItems.begin() + coverStart[k], coverItems.begin() + coverStart[k + 1],
                     [&](uint32_t a, uint32_t b) { return inst.first[a] > inst.first[b]; });
}

int64_t LevelDecoder::run(const std::vector<double> &key, Offsets &offsets, uint64_t &work,
                          uint64_t workLimit) {
  const int32_t sections = inst.numSections;
  const uint64_t workBefore = work;
  const size_t n = inst.count();
  offsets.assign(n, -1);
  if (n == 0)
    return 0;
  FloorTree floors(sections);
  std::vector<int64_t> remaining = sectionBytes; // bytes still to place per section
  // Each section's list, latest first span first, keeps its unplaced
  // requests in order; placed ones are skipped, and squeezed out once they
  // are half of the list.
  std::vector<uint32_t> items(coverItems);
  std::vector<uint32_t> length(static_cast<size_t>(sections));
  std::vector<uint32_t> dead(static_cast<size_t>(sections), 0);
  for (int32_t k = 0; k < sections; ++k)
    length[k] = coverStart[k + 1] - coverStart[k];
  std::vector<char> placed(n, 0);

  // One entry per section: the level at which to look at it next. Lowest
  // level first; at one level the most loaded section first.
  SectionQueue open(sections, remaining);
  for (int32_t k = 0; k < sections; ++k)
    if (remaining[k] > 0)
      open.set(k, 0);

  int64_t peak = 0;
  size_t left = n;
  while (left > 0) {
    if (work - workBefore > workLimit)
      return -1;
    const int32_t k = open.top(work);
    if (k < 0)
      throw InternalError("level decoder: requests left but no open section");
    const int64_t level = open.levelOf(k);
    ++work;
    // The valley: the run of sections around k no higher than the level. A
    // request fits at this level exactly when its span lies inside.
    const int32_t valleyFirst = floors.lastAbove(k, level) + 1;
    const int32_t valleyLast = floors.firstAbove(k + 1, level);

    // Requests that begin before the valley cannot fit; the list is sorted
    // so that they come last.
    int64_t pick = -1;
    uint32_t *list = items.data() + coverStart[k];
    for (uint32_t idx = 0; idx < length[k]; ++idx) {
      uint32_t c = list[idx];
      if (inst.first[c] < valleyFirst)
        break;
      ++work;
      if (placed[c] || inst.last[c] > valleyLast)
        continue;
      if (pick < 0 || key[c] > key[pick] || (key[c] == key[pick] && c < pick))
        pick = c;
    }

    if (pick < 0) {
      // Nothing fits until the level reaches a wall of the valley: every
      // request of the section crosses one.
      int64_t wake = std::numeric_limits<int64_t>::max();
      if (valleyFirst > 0)
        wake = std::min(wake, floors.at(valleyFirst - 1));
      if (valleyLast < sections)
        wake = std::min(wake, floors.at(valleyLast));
      if (wake == std::numeric_limits<int64_t>::max())
        throw InternalError("level decoder: a section without walls has no candidate");
      open.set(k, wake);
      continue;
    }

    const uint32_t c = static_cast<uint32_t>(pick);
    const int64_t at = alignUpOrThrow(level, inst.alignment[c]);
    const int64_t end = addOrThrow(at, inst.size[c]);
    offsets[c] = at;
    placed[c] = 1;
    --left;
    peak = std::max(peak, end);
    floors.raise(inst.first[c], inst.last[c], end);
    work += static_cast<uint64_t>(inst.last[c] - inst.first[c]);
    for (int32_t s = inst.first[c]; s < inst.last[c]; ++s) {
      if (2 * ++dead[s] > length[s]) {
        uint32_t *section = items.data() + coverStart[s];
        length[s] =
            static_cast<uint32_t>(std::remove_if(section, section + length[s],
                                                 [&](uint32_t j) { return placed[j] != 0; }) -
                                  section);
        dead[s] = 0;
      }
      remaining[s] -= inst.size[c];
      open.set(s, end);
    }
  }
  return peak;
}

} // namespace wirc::plan::detail
