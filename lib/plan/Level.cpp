//===- Level.cpp - Skyline and lowest-level-first decoders ----------------===//
#include "FloorTree.h"
#include "PlanInternal.h"

#include "wirc/support/Diagnostics.h"

#include <limits>
#include <queue>

namespace wirc::plan::detail {

namespace {

/// The decoder's open sections: a binary heap with one entry per section,
/// ordered by (level, bytes still to place descending, section).
class SectionQueue {
public:
  SectionQueue(int32_t sections, const std::vector<int64_t> &remaining)
      : remaining(remaining), level(sections, 0), position(sections, kAbsent) {
    heap.reserve(sections);
  }

  bool empty() const { return heap.empty(); }
  int32_t top() const { return heap.front(); }
  int64_t levelOf(int32_t k) const { return level[k]; }

  /// Inserts \p k or moves it to \p newLevel.
  void set(int32_t k, int64_t newLevel) {
    level[k] = newLevel;
    if (position[k] == kAbsent) {
      position[k] = static_cast<int32_t>(heap.size());
      heap.push_back(k);
    }
    // Its bytes may also have dropped since it was placed: restore the heap
    // both ways.
    siftDown(siftUp(position[k]));
  }
  void remove(int32_t k) {
    int32_t at = position[k];
    if (at == kAbsent)
      return;
    int32_t last = heap.back();
    heap.pop_back();
    position[k] = kAbsent;
    if (last == k)
      return;
    heap[at] = last;
    position[last] = at;
    siftDown(siftUp(at));
  }

private:
  static constexpr int32_t kAbsent = -1;

  bool before(int32_t a, int32_t b) const {
    if (level[a] != level[b])
      return level[a] < level[b];
    if (remaining[a] != remaining[b])
      return remaining[a] > remaining[b];
    return a < b;
  }
  int32_t siftUp(int32_t at) {
    int32_t k = heap[at];
    while (at > 0) {
      int32_t parent = (at - 1) / 2;
      if (!before(k, heap[parent]))
        break;
      heap[at] = heap[parent];
      position[heap[at]] = at;
      at = parent;
    }
    heap[at] = k;
    position[k] = at;
    return at;
  }
  void siftDown(int32_t at) {
    int32_t k = heap[at];
    const int32_t size = static_cast<int32_t>(heap.size());
    while (true) {
      int32_t child = 2 * at + 1;
      if (child >= size)
        break;
      if (child + 1 < size && before(heap[child + 1], heap[child]))
        ++child;
      if (!before(heap[child], k))
        break;
      heap[at] = heap[child];
      position[heap[at]] = at;
      at = child;
    }
    heap[at] = k;
    position[k] = at;
  }

  const std::vector<int64_t> &remaining;
  std::vector<int64_t> level;
  std::vector<int32_t> position;
  std::vector<int32_t> heap;
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
}

int64_t LevelDecoder::run(const std::vector<double> &key, Offsets &offsets, uint64_t &work) {
  const int32_t sections = inst.numSections;
  const size_t n = inst.count();
  offsets.assign(n, -1);
  if (n == 0)
    return 0;
  FloorTree floors(sections);
  std::vector<int64_t> remaining = sectionBytes; // bytes still to place per section
  // Each section's list keeps its unplaced requests in [start, start + live);
  // placed ones are swapped out when met. Only the order within a list
  // changes, and the choice below does not depend on it.
  std::vector<uint32_t> live(static_cast<size_t>(sections));
  for (int32_t k = 0; k < sections; ++k)
    live[k] = coverStart[k + 1] - coverStart[k];
  std::vector<char> placed(n, 0);

  // One entry per section: the level at which to look at it next. Lowest
  // level first; at one level the most loaded section first.
  SectionQueue open(sections, remaining);
  for (int32_t k = 0; k < sections; ++k)
    if (remaining[k] > 0)
      open.set(k, 0);

  constexpr int64_t kNoWall = std::numeric_limits<int64_t>::max();
  int64_t peak = 0;
  size_t left = n;
  while (left > 0) {
    if (open.empty())
      throw InternalError("level decoder: requests left but no open section");
    const int32_t k = open.top();
    const int64_t level = open.levelOf(k);
    ++work;
    // The valley: the run of sections around k no higher than the level. A
    // request fits at this level exactly when its span lies inside.
    const int32_t valleyFirst = floors.lastAbove(k, level) + 1;
    const int32_t valleyLast = floors.firstAbove(k + 1, level);

    int64_t pick = -1;
    uint32_t *items = coverItems.data() + coverStart[k];
    for (uint32_t idx = 0; idx < live[k];) {
      uint32_t c = items[idx];
      if (placed[c]) {
        items[idx] = items[--live[k]];
        items[live[k]] = c;
        continue;
      }
      ++idx;
      ++work;
      if (inst.first[c] < valleyFirst || inst.last[c] > valleyLast)
        continue;
      if (pick < 0 || key[c] > key[pick] || (key[c] == key[pick] && c < pick))
        pick = c;
    }

    if (pick < 0) {
      // Nothing fits here until a wall of the valley is reached.
      int64_t wake = kNoWall;
      if (valleyFirst > 0)
        wake = std::min(wake, floors.at(valleyFirst - 1));
      if (valleyLast < sections)
        wake = std::min(wake, floors.at(valleyLast));
      if (wake == kNoWall)
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
      remaining[s] -= inst.size[c];
      if (remaining[s] > 0)
        open.set(s, end);
      else
        open.remove(s);
    }
  }
  return peak;
}

} // namespace wirc::plan::detail
