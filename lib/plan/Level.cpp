//===- Level.cpp - Skyline and lowest-level-first decoders ----------------===//
#include "FloorTree.h"
#include "PlanInternal.h"

#include "wirc/support/Diagnostics.h"

#include <limits>
#include <queue>

namespace wirc::plan::detail {

Offsets placeSkyline(const Instance &inst, const std::vector<uint32_t> &order) {
  FloorTree floors(inst.numSections);
  Offsets offsets(inst.count(), -1);
  for (uint32_t i : order) {
    int64_t at = alignUpOrThrow(floors.max(inst.first[i], inst.last[i]), inst.alignment[i]);
    int64_t end = addOrThrow(at, inst.size[i]);
    floors.assign(inst.first[i], inst.last[i], end);
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
  std::vector<uint32_t> version(static_cast<size_t>(sections), 0);
  // Each section's list keeps its unplaced requests in [start, start + live);
  // placed ones are swapped out when met. Only the order within a list
  // changes, and the choice below does not depend on it.
  std::vector<uint32_t> live(static_cast<size_t>(sections));
  for (int32_t k = 0; k < sections; ++k)
    live[k] = coverStart[k + 1] - coverStart[k];
  std::vector<char> placed(n, 0);

  struct Entry {
    int64_t level;
    int64_t remaining;
    int32_t section;
    uint32_t version;
  };
  // Lowest level first; at one level the most loaded section first.
  auto later = [](const Entry &a, const Entry &b) {
    if (a.level != b.level)
      return a.level > b.level;
    if (a.remaining != b.remaining)
      return a.remaining < b.remaining;
    return a.section > b.section;
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(later)> open(later);
  for (int32_t k = 0; k < sections; ++k)
    if (remaining[k] > 0)
      open.push({0, remaining[k], k, 0});

  constexpr int64_t kNoWall = std::numeric_limits<int64_t>::max();
  int64_t peak = 0;
  size_t left = n;
  while (left > 0) {
    if (open.empty())
      throw InternalError("level decoder: requests left but no open section");
    Entry entry = open.top();
    open.pop();
    const int32_t k = entry.section;
    if (entry.version != version[k] || remaining[k] == 0)
      continue;
    ++work;
    const int64_t level = entry.level;
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
        wake = std::min(wake, floors.max(valleyFirst - 1, valleyFirst));
      if (valleyLast < sections)
        wake = std::min(wake, floors.max(valleyLast, valleyLast + 1));
      if (wake == kNoWall)
        throw InternalError("level decoder: a section without walls has no candidate");
      open.push({wake, remaining[k], k, ++version[k]});
      continue;
    }

    const uint32_t c = static_cast<uint32_t>(pick);
    const int64_t at = alignUpOrThrow(level, inst.alignment[c]);
    const int64_t end = addOrThrow(at, inst.size[c]);
    offsets[c] = at;
    placed[c] = 1;
    --left;
    peak = std::max(peak, end);
    floors.assign(inst.first[c], inst.last[c], end);
    work += static_cast<uint64_t>(inst.last[c] - inst.first[c]);
    for (int32_t s = inst.first[c]; s < inst.last[c]; ++s) {
      remaining[s] -= inst.size[c];
      ++version[s];
      if (remaining[s] > 0)
        open.push({end, remaining[s], s, version[s]});
    }
  }
  return peak;
}

} // namespace wirc::plan::detail
