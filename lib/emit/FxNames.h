//===- FxNames.h - The node names taken in one FX graph ---------*- C++ -*-===//
//
// torch.fx gives every node a unique name: a taken candidate gets `_1`,
// `_2`, ... appended. A large graph has a name per node (about a million at
// 1M graph nodes), so a hash table of every name is far larger than the
// caches and each new name waits for memory. But a graph's names are mostly a
// stem and a number (`buf12`, `delete_41`, `triton_kernel_wrapper_mutation_7`)
// and the numbers of one stem are dense. Such a name is kept as a bit in its
// stem's set: a check reads the few stems' records and a bitmap of a bit a
// name, which stay in cache. Names of another shape (a number with a leading
// zero, more than nine digits) and numbers beyond the bitmaps' budget go to a
// hash table of their text.
//
// The split is a function of the name: `abc12` is always stem `abc` and
// number 12, `abc` is stem `abc` with no number, so the two stores never hold
// one name twice and a name is found wherever it was put.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_LIB_EMIT_FXNAMES_H
#define WIRC_LIB_EMIT_FXNAMES_H

#include "wirc/support/Hash.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace wirc::emit {

class FxNames {
public:
  /// \p budgetSlack: bitmap words allowed beyond two a name (tests make it small,
  /// to reach the other store).
  explicit FxNames(size_t budgetSlack = kBudgetSlack)
      : bitBudget(budgetSlack), slack(budgetSlack) {}

  /// Takes \p text if no node has it yet. Returns the stored name (it does
  /// not move while the set lives) and whether it was taken now.
  std::pair<std::string_view, bool> take(std::string_view text) {
    bool fresh = claim(text);
    return {fresh ? store(text) : std::string_view(), fresh};
  }

  /// FX's namespace rule: \p candidate if it is free, else the first free
  /// one of `candidate_k` (takeSuffixed).
  std::string_view unique(std::string_view candidate) {
    if (!endsInDigit(candidate)) {
      // A stem alone (`delete`, `mm`): its record keeps the suffixes' base,
      // so a taken one costs one lookup.
      uint32_t s = stemOf(candidate);
      if (!stems[s].bare) {
        stems[s].bare = true;
        ++taken;
        return store(candidate);
      }
      if (stems[s].base == kNone)
        stems[s].base = base(candidate);
      return takeSuffixed(stems[s].base);
    }
    if (claim(candidate))
      return store(candidate);
    return takeSuffixed(base(candidate));
  }

  /// A handle on \p text as a base of suffixed names, for takeSuffixed.
  unsigned base(std::string_view text) {
    auto [index, added] = baseTexts.intern(text, arena);
    if (added)
      bases.push_back({});
    return index;
  }

  /// FX's rule for a taken name: the first free one of `base_k` for k =
  /// 1, 2, ..., counting on from the last k given for the same base, so n
  /// names from one base cost O(n), not O(n^2).
  std::string_view takeSuffixed(unsigned handle) {
    std::string_view text = baseTexts.text(handle);
    size_t at = text.size() + 1;
    if (scratch.size() < at + 10)
      scratch.resize(at + 10);
    std::copy(text.begin(), text.end(), scratch.data());
    scratch[text.size()] = '_';
    // Every `base_k` has the stem `base_`: its record is looked up once.
    if (bases[handle].suffixStem == kNone)
      bases[handle].suffixStem = stemOf({scratch.data(), at});
    for (;;) {
      unsigned k = ++bases[handle].next;
      char *end = std::to_chars(scratch.data() + at, scratch.data() + scratch.size(), k).ptr;
      std::string_view candidate(scratch.data(), static_cast<size_t>(end - scratch.data()));
      if (k < kFirstTenDigits ? claimNumber(bases[handle].suffixStem, k, candidate)
                              : claim(candidate))
        return store(candidate);
    }
  }

  void reserve(size_t names) { bitBudget = std::max(bitBudget, 2 * names + slack); }

private:
  static constexpr uint32_t kNone = UINT32_MAX;

  /// Copies of texts in blocks that never move: a name costs no allocation.
  class Arena {
  public:
    std::string_view store(std::string_view text) {
      if (text.size() > left) {
        left = std::max<size_t>(text.size(), 64 * 1024);
        blocks.emplace_back(new char[left]);
        next = blocks.back().get();
      }
      std::copy(text.begin(), text.end(), next);
      std::string_view stored(next, text.size());
      next += text.size();
      left -= text.size();
      return stored;
    }

  private:
    std::vector<std::unique_ptr<char[]>> blocks;
    char *next = nullptr;
    size_t left = 0;
  };

  /// Texts numbered in the order they came, found through an
  /// open-addressed table (slot = number + 1, 0 when free).
  class TextTable {
  public:
    /// The number of \p text, and whether it was added now (a copy in
    /// \p arena).
    std::pair<uint32_t, bool> intern(std::string_view text, Arena &arena) {
      uint64_t hash = hashText(text);
      auto [slot, found] = probe(text, hash);
      if (found)
        return {slots[slot] - 1, false};
      if (2 * (texts.size() + 1) > slots.size()) {
        grow();
        slot = probe(text, hash).first;
      }
      texts.push_back({arena.store(text), hash});
      slots[slot] = static_cast<uint32_t>(texts.size());
      return {static_cast<uint32_t>(texts.size() - 1), true};
    }
    bool contains(std::string_view text) const { return probe(text, hashText(text)).second; }
    bool empty() const { return texts.empty(); }
    std::string_view text(uint32_t index) const { return texts[index].text; }

  private:
    struct Entry {
      std::string_view text;
      uint64_t hash;
    };
    std::vector<uint32_t> slots;
    std::vector<Entry> texts;

    /// The slot of \p text, or the free slot where it would go.
    std::pair<size_t, bool> probe(std::string_view text, uint64_t hash) const {
      if (slots.empty())
        return {0, false};
      size_t mask = slots.size() - 1;
      for (size_t i = hash & mask;; i = (i + 1) & mask) {
        uint32_t s = slots[i];
        if (s == 0)
          return {i, false};
        const Entry &e = texts[s - 1];
        if (e.hash == hash && e.text == text)
          return {i, true};
      }
    }

    void grow() {
      slots.assign(slots.empty() ? 64 : 2 * slots.size(), 0);
      size_t mask = slots.size() - 1;
      for (size_t n = 0; n < texts.size(); ++n) {
        size_t i = texts[n].hash & mask;
        while (slots[i])
          i = (i + 1) & mask;
        slots[i] = static_cast<uint32_t>(n + 1);
      }
    }
  };

  /// A stem's names: the stem alone, and numbers as bits (0-63 in place).
  struct Stem {
    bool bare = false;
    uint32_t base = kNone; ///< the stem alone as a base, once suffixed
    uint64_t low = 0;
    std::vector<uint64_t> high; ///< numbers from 64 on
  };
  struct Base {
    unsigned next = 0;          ///< the last suffix given
    uint32_t suffixStem = kNone; ///< the stem `base_`
  };

  static constexpr size_t kBudgetSlack = 4096;
  static constexpr size_t kMaxDigits = 9;
  static constexpr unsigned kFirstTenDigits = 1000000000;

  Arena arena;
  // Stems, and the bases of suffixed names, by number.
  TextTable stemTexts, baseTexts;
  std::vector<Stem> stems;
  std::vector<Base> bases;
  /// Names of another shape, and numbers past the budget.
  TextTable others;
  /// Words the stems' high bitmaps may hold in all: about two a name, so a
  /// name like `x999999999` cannot make a set the size of its number.
  size_t bitBudget, slack, bitWords = 0;
  size_t taken = 0;
  std::vector<char> scratch;

  static bool endsInDigit(std::string_view text) {
    return !text.empty() && text.back() >= '0' && text.back() <= '9';
  }

  /// Marks \p text taken; false if it was.
  bool claim(std::string_view text) {
    size_t digits = 0;
    while (digits < text.size() && text[text.size() - 1 - digits] >= '0' &&
           text[text.size() - 1 - digits] <= '9')
      ++digits;
    bool numbered = digits > 0 && digits <= kMaxDigits &&
                    (digits == 1 || text[text.size() - digits] != '0');
    if (digits > 0 && !numbered)
      return claimOther(text);
    uint32_t s = stemOf(text.substr(0, text.size() - digits));
    if (!numbered) {
      if (stems[s].bare)
        return false;
      stems[s].bare = true;
      ++taken;
      return true;
    }
    uint32_t number = 0;
    for (char c : text.substr(text.size() - digits))
      number = number * 10 + static_cast<uint32_t>(c - '0');
    return claimNumber(s, number, text);
  }

  /// Marks \p number of stem \p s taken (\p text is the two spelled
  /// together); false if it was.
  bool claimNumber(uint32_t s, uint32_t number, std::string_view text) {
    Stem &stem = stems[s];
    if (number < 64) {
      uint64_t bit = uint64_t(1) << number;
      if (stem.low & bit)
        return false;
      stem.low |= bit;
      ++taken;
      return true;
    }
    size_t word = (number - 64) / 64;
    uint64_t bit = uint64_t(1) << ((number - 64) % 64);
    if (word < stem.high.size() && (stem.high[word] & bit))
      return false;
    // Not in the bitmap: it may have gone to the other names when the
    // bitmap could not reach it.
    if (!others.empty() && others.contains(text))
      return false;
    if (word >= stem.high.size()) {
      size_t grown = std::max(word + 1, 2 * stem.high.size());
      if (bitWords + (grown - stem.high.size()) > bitBudget + 2 * taken) {
        grown = word + 1;
        if (bitWords + (grown - stem.high.size()) > bitBudget + 2 * taken)
          return claimOther(text);
      }
      bitWords += grown - stem.high.size();
      stem.high.resize(grown);
    }
    stem.high[word] |= bit;
    ++taken;
    return true;
  }

  /// The record of stem \p text, made if new.
  uint32_t stemOf(std::string_view text) {
    auto [index, added] = stemTexts.intern(text, arena);
    if (added)
      stems.emplace_back();
    return index;
  }

  bool claimOther(std::string_view text) {
    bool added = others.intern(text, arena).second;
    taken += added;
    return added;
  }

  std::string_view store(std::string_view text) { return arena.store(text); }
};

} // namespace wirc::emit

#endif // WIRC_LIB_EMIT_FXNAMES_H
