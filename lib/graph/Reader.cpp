//===- Reader.cpp - Graph-format reader and validator ---------------------===//
//
// Reading happens in two steps. The structural step turns JSON into a
// Document, checking types, required and unknown fields, enums, names and
// expressions. The semantic step walks each graph's nodes in order and checks
// that every reference resolves and every tensor is defined before it is
// used. Both report all the problems they find, not only the first.
//
//===----------------------------------------------------------------------===//
#include "wirc/graph/Reader.h"

#include "wirc/graph/JsonLocator.h"
#include "wirc/support/Hash.h"
#include "wirc/support/Json.h"
#include "wirc/support/Names.h"
#include "wirc/support/PagePopulator.h"
#include "wirc/support/Parallel.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <charconv>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

namespace wirc::graph {

using Json = json::Value;

namespace {

/// A C++ kernel's parameter type as Inductor's cpp backend spells them:
/// `[const ]NAME[::NAME...][<NAME[::NAME...]>][*]` ('const float*',
/// 'at::BFloat16*', 'c10::complex<float>*', 'int64_t'), at most 64 bytes.
bool isCParamType(std::string_view type) {
  if (type.size() > 64)
    return false;
  if (type.starts_with("const "))
    type.remove_prefix(6);
  if (type.ends_with('*'))
    type.remove_suffix(1);
  auto qualified = [](std::string_view name) {
    for (size_t colons; (colons = name.find("::")) != std::string_view::npos;
         name.remove_prefix(colons + 2))
      if (!isPlainIdentifier(name.substr(0, colons)))
        return false;
    return isPlainIdentifier(name);
  };
  if (type.ends_with('>')) {
    size_t open = type.find('<');
    if (open == std::string_view::npos ||
        !qualified(type.substr(open + 1, type.size() - open - 2)))
      return false;
    type = type.substr(0, open);
  }
  return qualified(type);
}

/// A JSON Pointer, spelled only when a diagnostic needs it. Readers descend
/// the document with a chain of these on their stacks (a child refers to its
/// parent, which outlives it), so reading a valid graph builds no pointer
/// strings at all. A chain starts at a spelled pointer ("" is the root).
class Ptr {
public:
  Ptr(const char *base) : base(base) {}
  Ptr(std::string_view base) : base(base) {}
  Ptr(const std::string &base) : base(base) {}

  Ptr child(std::string_view key) const { return Ptr(this, key, kNoIndex); }
  Ptr child(size_t index) const { return Ptr(this, {}, index); }

  std::string str() const {
    std::string out;
    append(out);
    return out;
  }

private:
  friend class SavedPtr;
  static constexpr size_t kNoIndex = static_cast<size_t>(-1);
  Ptr(const Ptr *parent, std::string_view key, size_t index)
      : parent(parent), key(key), index(index) {}

  void append(std::string &out) const {
    if (!parent) {
      out += base;
      return;
    }
    parent->append(out);
    appendSegment(out, key, index);
  }

  static void appendSegment(std::string &out, std::string_view key, size_t index) {
    out += '/';
    if (index != kNoIndex) {
      char digits[24];
      out.append(digits, std::to_chars(digits, digits + sizeof digits, index).ptr);
      return;
    }
    if (std::none_of(key.begin(), key.end(), [](char c) { return c == '~' || c == '/'; })) {
      out += key;
      return;
    }
    for (char c : key) {
      if (c == '~')
        out += "~0";
      else if (c == '/')
        out += "~1";
      else
        out += c;
    }
  }

  const Ptr *parent = nullptr;
  std::string_view base;
  std::string_view key;
  size_t index = kNoIndex;
};

/// A Ptr kept beyond the chain it was made from (where a name was defined),
/// still spelled only if a diagnostic needs it. Its base and keys must
/// outlive it; a chain of more than kMaxSegments below its base is spelled
/// at once.
class SavedPtr {
public:
  explicit SavedPtr(const Ptr &pointer) {
    const Ptr *chain[kMaxSegments];
    const Ptr *p = &pointer;
    while (p->parent) {
      if (depth == kMaxSegments || (p->index != Ptr::kNoIndex && p->index >= kNoIndex) ||
          p->key.size() > UINT32_MAX) {
        spelled = std::make_unique<std::string>(pointer.str());
        return;
      }
      chain[depth++] = p;
      p = p->parent;
    }
    if (p->base.size() > UINT32_MAX) {
      spelled = std::make_unique<std::string>(pointer.str());
      return;
    }
    base = p->base.data();
    baseSize = static_cast<uint32_t>(p->base.size());
    for (unsigned i = 0; i < depth; ++i) {
      const Ptr *q = chain[depth - 1 - i];
      segments[i] = {q->key.data(), static_cast<uint32_t>(q->key.size()),
                     q->index == Ptr::kNoIndex ? kNoIndex : static_cast<uint32_t>(q->index)};
    }
  }
  SavedPtr(const SavedPtr &other)
      : base(other.base), baseSize(other.baseSize), depth(other.depth),
        spelled(other.spelled ? std::make_unique<std::string>(*other.spelled) : nullptr) {
    std::copy(std::begin(other.segments), std::end(other.segments), std::begin(segments));
  }
  SavedPtr(SavedPtr &&) noexcept = default;

  std::string str() const {
    if (spelled)
      return *spelled;
    std::string out(base, baseSize);
    for (unsigned i = 0; i < depth; ++i)
      Ptr::appendSegment(out, {segments[i].key, segments[i].size},
                         segments[i].index == kNoIndex ? Ptr::kNoIndex : segments[i].index);
    return out;
  }

private:
  // Packed: checkGraph keeps one per tensor definition of a graph.
  static constexpr unsigned kMaxSegments = 3;
  static constexpr uint32_t kNoIndex = UINT32_MAX;
  struct Segment {
    const char *key = nullptr;
    uint32_t size = 0;
    uint32_t index = kNoIndex;
  };
  const char *base = nullptr;
  uint32_t baseSize = 0;
  uint8_t depth = 0;
  Segment segments[kMaxSegments];
  std::unique_ptr<std::string> spelled;
};

Ptr child(const Ptr &pointer, std::string_view key) { return pointer.child(key); }
Ptr child(const Ptr &pointer, size_t index) { return pointer.child(index); }
/// `pointer + "/key"`: one more segment (a single one; keys here hold no '/').
Ptr operator+(const Ptr &pointer, const char *segment) { return pointer.child(segment + 1); }
// A child refers to its parent: building one from a temporary, which would
// dangle once stored, does not compile. (Members still allow it within one
// full expression, for diagnostics.)
Ptr child(const Ptr &&, std::string_view) = delete;
Ptr child(const Ptr &&, size_t) = delete;
Ptr operator+(const Ptr &&, const char *) = delete;

std::string_view typeName(const Json &value) {
  switch (value.type()) {
  case Json::value_t::null:
    return "null";
  case Json::value_t::boolean:
    return "a boolean";
  case Json::value_t::number_integer:
  case Json::value_t::number_unsigned:
    return "an integer";
  case Json::value_t::number_float:
    return "a number";
  case Json::value_t::string:
    return "a string";
  case Json::value_t::array:
    return "an array";
  case Json::value_t::object:
    return "an object";
  default:
    return "a value";
  }
}

/// A short string's length and bytes in one word: two strings of the same
/// length up to 8 bytes have the same word exactly when they are equal.
constexpr uint64_t prefixWord(std::string_view s) {
  size_t n = s.size();
  auto byte = [&](size_t i) { return uint64_t(static_cast<unsigned char>(s[i])); };
  uint64_t w = 0;
  if (n >= 8) {
    for (size_t i = 0; i < 8; ++i)
      w |= byte(i) << (8 * i);
  } else if (n >= 4) {
    for (size_t i = 0; i < 4; ++i)
      w |= byte(i) << (8 * i) | byte(n - 4 + i) << (32 + 8 * i);
  } else if (n > 0) {
    w = byte(0) | byte(n / 2) << 8 | byte(n - 1) << 16;
  }
  return w;
}

/// prefixWord through word loads.
inline uint64_t loadPrefixWord(std::string_view s) {
  if constexpr (std::endian::native != std::endian::little)
    return prefixWord(s);
  const char *p = s.data();
  size_t n = s.size();
  if (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  }
  if (n >= 4) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    return lo | uint64_t(hi) << 32;
  }
  return prefixWord(s);
}

/// The member names an object may have, with their words computed at
/// compile time: matching a name costs two comparisons a key.
template <size_t N> struct KeySet {
  std::string_view keys[N];
  uint64_t words[N];

  /// The index of \p name, or N.
  size_t find(std::string_view name) const {
    uint64_t w = loadPrefixWord(name);
    for (size_t k = 0; k < N; ++k)
      if (words[k] == w && keys[k].size() == name.size() &&
          (name.size() <= 8 || json::sameText(keys[k], name)))
        return k;
    return N;
  }
};

template <typename... Keys> consteval auto keySet(Keys... names) {
  KeySet<sizeof...(Keys)> set{};
  size_t i = 0;
  ((set.keys[i] = std::string_view(names), set.words[i] = prefixWord(names), ++i), ...);
  return set;
}

/// Sub-kernels a combo grid may have; launches name their numels by index.
constexpr size_t kMaxComboParts = 4096;

/// If \p name is a combo kernel's per-sub-kernel numel (`xnumel_3`), its
/// dimension ('x' or 'y') and sub-kernel, spelled canonically.
std::optional<std::pair<char, size_t>> comboNumelPart(std::string_view name) {
  if (name.size() < 8 || name.substr(1, 6) != "numel_" || (name[0] != 'x' && name[0] != 'y'))
    return std::nullopt;
  std::optional<size_t> index = parseCanonicalIndex(name.substr(7), 4);
  if (!index || *index >= kMaxComboParts)
    return std::nullopt;
  return std::pair{name[0], *index};
}

/// Member names of the objects a graph has many of.
constexpr auto kViewKeys = keySet("base", "size", "stride", "offset");
constexpr auto kArgKeys = keySet("role", "name", "buffer", "view", "result", "was", "value");
constexpr auto kCallKeys = keySet("op", "kernel", "args", "numels", "config", "grid");
constexpr auto kExternOutKeys = keySet("op", "kernel", "args", "kwargs", "out", "schema");
constexpr auto kExternKeys =
    keySet("op", "kernel", "args", "kwargs", "result", "out", "mutated", "schema");
constexpr auto kMultiOutputKeys = keySet("op", "result", "source", "indices");
constexpr auto kAssertKeys = keySet("op", "buffer", "size", "stride", "what");
constexpr auto kGuardEnterKeys = keySet("op", "device");
constexpr auto kGuardExitKeys = keySet("op");
constexpr auto kCommentKeys = keySet("op", "text");
constexpr auto kOneBufferKeys = keySet("op", "buffer"); // zero, assert_finite
constexpr auto kInputKeys =
    keySet("name", "kind", "dtype", "device", "size", "stride", "offset", "mutated");
constexpr auto kConstantKeys = keySet("name", "dtype", "device", "size", "stride", "offset");
constexpr auto kBufferKeys = keySet("name", "dtype", "device", "size", "stride", "offset",
                                    "view_of", "removed", "tuple", "aliases_input");

/// A hash table keyed by views of strings that outlive it (the document's
/// text, a graph's names): open addressing, linear probing, no allocation
/// per entry.
///
/// A counted map (a graph's tensors) also keeps names spelled as a prefix and
/// a counter (buf12, primals_3), as compilers name what they generate, in an
/// array per prefix indexed by the counter: names used together then sit
/// together, where in one large table every lookup missed the cache. A
/// counter is read only as its canonical spelling (no leading zero), so each
/// such name has one place; the arrays grow only within a budget of
/// \c expected, beyond which names stay in the hash table.
template <typename V> class NameMap {
public:
  explicit NameMap(size_t expected = 0, bool counted = false)
      : denseBudget(counted ? 2 * expected + 4096 : 0) {
    size_t capacity = 16;
    while (capacity < expected * 2)
      capacity *= 2;
    // A counted map's hash table holds only the other names.
    if (!counted)
      slots.resize(capacity);
    else
      slots.resize(16);
  }

  V *find(std::string_view key) {
    if (denseBudget) {
      Counter c;
      if (split(key, c)) {
        if (Slot *slot = denseSlot(c); slot && slot->used())
          return &slot->value;
        if (hashCount == 0)
          return nullptr;
      }
    }
    return hashFind(key);
  }
  const V *find(std::string_view key) const { return const_cast<NameMap *>(this)->find(key); }

  /// Adds \p key with \p value unless it is there; returns its entry and
  /// whether it was added.
  std::pair<V *, bool> insert(std::string_view key, V value) {
    if (denseBudget) {
      Counter c;
      if (split(key, c)) {
        if (Slot *slot = denseSlotFor(c)) {
          if (slot->used())
            return {&slot->value, false};
          // It may have gone to the hash table while the array was short.
          if (hashCount != 0)
            if (V *existing = hashFind(key))
              return {existing, false};
          slot->set(key, 0, std::move(value));
          return {&slot->value, true};
        }
      }
    }
    return hashInsert(key, std::move(value));
  }

  template <typename F> void forEach(F &&f) const {
    for (const Prefix &prefix : prefixes)
      for (const Slot &slot : prefix.slots)
        if (slot.used())
          f(slot.key(), slot.value);
    for (const Slot &slot : slots)
      if (slot.used())
        f(slot.key(), slot.value);
  }

private:
  // 32 bytes for a NameSite: the tables of a large graph have millions of
  // slots, and every lookup misses the cache.
  struct Slot {
    const char *keyData = nullptr; ///< null: the slot is free
    uint32_t keySize = 0;
    uint32_t tag = 0; ///< high bits of the hash, compared before the key
    V value{};
    bool used() const { return keyData != nullptr; }
    std::string_view key() const { return {keyData, keySize}; }
    void set(std::string_view key, uint32_t keyTag, V &&v) {
      keyData = key.data() ? key.data() : "";
      keySize = static_cast<uint32_t>(key.size());
      tag = keyTag;
      value = std::move(v);
    }
  };

  V *hashFind(std::string_view key) {
    uint64_t h = hashText(key);
    uint32_t tag = static_cast<uint32_t>(h >> 32);
    size_t mask = slots.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot &slot = slots[i];
      if (!slot.used())
        return nullptr;
      if (slot.tag == tag && json::sameText(slot.key(), key))
        return &slot.value;
    }
  }

  std::pair<V *, bool> hashInsert(std::string_view key, V value) {
    if ((hashCount + 1) * 2 > slots.size())
      grow();
    uint64_t h = hashText(key);
    uint32_t tag = static_cast<uint32_t>(h >> 32);
    size_t mask = slots.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot &slot = slots[i];
      if (!slot.used()) {
        slot.set(key, tag, std::move(value));
        ++hashCount;
        return {&slot.value, true};
      }
      if (slot.tag == tag && json::sameText(slot.key(), key))
        return {&slot.value, false};
    }
  }

  [[gnu::noinline]] void grow() {
    std::vector<Slot> old(slots.size() * 2);
    old.swap(slots);
    hashCount = 0;
    for (Slot &slot : old)
      if (slot.used())
        hashInsert(slot.key(), std::move(slot.value));
  }

  /// A name split into a prefix and a counter.
  struct Counter {
    std::string_view prefix;
    uint32_t number = 0;
  };
  /// True if \p key is a non-empty prefix and a counter of at most nine
  /// digits, spelled canonically.
  static bool split(std::string_view key, Counter &out) {
    size_t end = key.size(), begin = end;
    while (begin > 0 && key[begin - 1] >= '0' && key[begin - 1] <= '9')
      --begin;
    size_t digits = end - begin;
    if (digits == 0 || digits > 9 || begin == 0 || (key[begin] == '0' && digits > 1))
      return false;
    uint32_t n = 0;
    for (size_t i = begin; i < end; ++i)
      n = n * 10 + static_cast<uint32_t>(key[i] - '0');
    out.prefix = key.substr(0, begin);
    out.number = n;
    return true;
  }

  struct Prefix {
    std::string_view text;
    std::vector<Slot> slots;
  };
  // Inputs named argN_1 make a prefix each: bounded, past that names go to
  // the hash table.
  static constexpr size_t kMaxPrefixes = 4096;

  /// The prefix's entry, or null if it has none. Lookups write nothing:
  /// reader threads share the map.
  Prefix *findPrefix(std::string_view text) {
    if (lastPrefix < prefixes.size() && prefixes[lastPrefix].text == text)
      return &prefixes[lastPrefix];
    auto it = prefixIndex.find(text);
    return it == prefixIndex.end() ? nullptr : &prefixes[it->second];
  }

  Slot *denseSlot(const Counter &c) {
    Prefix *prefix = findPrefix(c.prefix);
    if (!prefix || c.number >= prefix->slots.size())
      return nullptr;
    return &prefix->slots[c.number];
  }

  /// The counter's slot, made if the budget allows, or null.
  Slot *denseSlotFor(const Counter &c) {
    Prefix *prefix = findPrefix(c.prefix);
    if (prefix) {
      lastPrefix = static_cast<size_t>(prefix - prefixes.data());
    } else {
      if (prefixes.size() == kMaxPrefixes)
        return nullptr;
      lastPrefix = prefixes.size();
      prefixIndex.emplace(c.prefix, lastPrefix);
      prefix = &prefixes.emplace_back();
      prefix->text = c.prefix;
    }
    if (c.number >= prefix->slots.size()) {
      size_t want = std::max<size_t>(c.number + 1, prefix->slots.size() * 2);
      size_t grown = want - prefix->slots.size();
      if (grown > denseBudget - denseSlots) {
        want = c.number + 1;
        grown = want - prefix->slots.size();
        if (grown > denseBudget - denseSlots)
          return nullptr;
      }
      denseSlots += grown;
      prefix->slots.resize(want);
    }
    return &prefix->slots[c.number];
  }

  std::vector<Slot> slots;
  size_t hashCount = 0;
  size_t denseBudget;    ///< most array slots a counted map may hold; 0: not counted
  size_t denseSlots = 0; ///< array slots held
  std::vector<Prefix> prefixes;
  std::unordered_map<std::string_view, size_t> prefixIndex;
  size_t lastPrefix = 0; ///< the prefix of the last insertion
};

/// Buffer tables from which the reader has their pages faulted in ahead.
constexpr size_t kPopulateBuffersFrom = 65536;
/// Slots (nodes, buffers) from which a table's pages are faulted in on
/// another core as the slots are made.
constexpr size_t kPopulateNodesFrom = 65536;

/// The table a name is defined in.
enum class NameTable : uint8_t { Symbols, Kernels, Subgraphs, Inputs, Constants, Buffers, Params };

/// Where a name is defined: entry \c index of \c table under \c base (a
/// graph's pointer, or a kernel's signature), spelled only for a duplicate's
/// message.
struct NameSite {
  uint32_t base = 0; ///< index into the reader's siteBases
  NameTable table = NameTable::Symbols;
  uint32_t index = 0;
  /// A graph's tensor: its index as Graph.h's kNoTensor describes it.
  uint32_t tensor = kNoTensor;

  std::string str(const std::vector<std::string> &bases) const {
    static constexpr std::string_view kTables[] = {"symbols", "kernels", "subgraphs", "inputs",
                                                   "constants", "buffers", ""};
    if (table == NameTable::Params)
      return fmt::format("{}/{}/name", bases[base], index);
    return fmt::format("{}/{}/{}/name", bases[base], kTables[static_cast<unsigned>(table)],
                       index);
  }
};

/// Where a tensor name comes from, within one graph.
enum class TensorKind : uint8_t { Input, Constant, Buffer };

struct TensorInfo {
  TensorKind kind;
  size_t index;
};

class Reader {
public:
  Reader(DiagnosticEngine &diag, const ReaderLimits &limits,
         const std::function<void(size_t, size_t)> &readUpTo,
         const std::function<void(std::string_view)> &stepDone)
      : diag(diag), limits(limits), readUpTo(readUpTo), stepDone(stepDone) {}
  /// Reads some of \p parent's current graph's nodes, on a thread of its
  /// own: it looks names, expressions and layouts up in \p parent's caches
  /// (which no one writes while it runs) before its own, and reports to
  /// \p diag.
  Reader(const Reader &parent, DiagnosticEngine &diag,
         const std::function<void(size_t, size_t)> &readUpTo)
      : diag(diag), limits(parent.limits), readUpTo(readUpTo), stepDone(kNoStep),
        source(parent.source),
        siteBases(parent.siteBases), globalNames(parent.globalNames),
        kernelIndex(parent.kernelIndex),
        graphNames(parent.graphNames), sharedExprs(&parent.exprCache),
        sharedValidNames(&parent.validNames), validKeywords(parent.validKeywords),
        symbolNames(parent.symbolNames), floatSymbols(parent.floatSymbols), hints(parent.hints),
        sharedLayouts(&parent) {}

  std::unique_ptr<Document> read(std::string_view text);

private:
  DiagnosticEngine &diag;
  const ReaderLimits &limits;
  const std::function<void(size_t, size_t)> &readUpTo;
  /// Told when each step of reading is done (readDocument).
  const std::function<void(std::string_view)> &stepDone;
  static inline const std::function<void(std::string_view)> kNoStep;
  void finishStep(std::string_view step) {
    if (stepDone)
      stepDone(step);
  }
  std::string_view source; ///< the document's text
  std::unique_ptr<Document> doc;
  /// What name sites are under (NameSite::base): "" (the document), graph
  /// pointers, kernel signatures.
  std::vector<std::string> siteBases{""};
  uint32_t siteBase(std::string_view base) {
    if (siteBases.back() != base)
      siteBases.emplace_back(base);
    return static_cast<uint32_t>(siteBases.size() - 1);
  }
  /// Symbol, kernel and subgraph names, keyed by their text in the document.
  NameMap<NameSite> globalNames;
  /// The symbols of globalNames, which every graph's names start from (the
  /// global table also holds every subgraph's name: walking it per graph
  /// would cost the number of subgraphs squared).
  std::vector<std::pair<std::string_view, NameSite>> symbolSites;
  /// Kernel name (its text in the document) to index in doc->kernels.
  NameMap<uint32_t> kernelIndex;
  /// The names of the graph whose nodes and outputs are being read.
  const NameMap<NameSite> *graphNames = nullptr;

  // Diagnostics located by a lazily spelled JSON Pointer.
  void error(const Ptr &pointer, std::string message) {
    diag.error(pointer.str(), std::move(message));
  }
  void warning(const Ptr &pointer, std::string message) {
    diag.warning(pointer.str(), std::move(message));
  }
  void error(std::string message) { diag.error(std::move(message)); }

  // --- JSON access helpers: each reports its own error and returns nullopt.

  bool expectType(const Json &value, const Ptr &pointer, Json::value_t type,
                  std::string_view what) {
    bool ok = value.type() == type ||
              (type == Json::value_t::number_integer && value.is_number_unsigned());
    if (!ok)
      error(pointer, fmt::format("expected {}, got {}", what, typeName(value)));
    return ok;
  }

  /// Checks that \p value is an object whose keys are all in \p allowed.
  /// With \p slots, also sets slots[k] to the member named allowed[k], if
  /// any: one pass over the members instead of a search per field.
  bool expectObject(const Json &value, const Ptr &pointer,
                    std::initializer_list<std::string_view> allowed, std::string_view what,
                    std::optional<Json> *slots = nullptr) {
    if (!value.is_object()) {
      error(pointer, fmt::format("expected {} (an object), got {}", what, typeName(value)));
      return false;
    }
    bool ok = true;
    for (size_t i = 0, n = value.size(); i < n; ++i) {
      json::Member item = value.member(i);
      std::string_view name = item.key();
      bool known = false;
      // Allowed keys mostly differ in length or first byte: test those
      // before comparing bytes.
      size_t k = 0;
      for (std::string_view key : allowed) {
        if (key.size() == name.size() && (key.empty() || key[0] == name[0]) &&
            json::sameText(key, name)) {
          known = true;
          if (slots)
            slots[k] = item.value();
          break;
        }
        ++k;
      }
      if (!known) {
        unknownField(pointer, name, allowed.begin(), allowed.size(), what);
        ok = false;
      }
    }
    return ok;
  }

  /// expectObject for the objects a graph has many of, with keys matched by
  /// their precomputed words.
  template <size_t N>
  bool expectObject(const Json &value, const Ptr &pointer, const KeySet<N> &allowed,
                    std::string_view what, std::optional<Json> *slots = nullptr) {
    if (!value.is_object()) {
      error(pointer, fmt::format("expected {} (an object), got {}", what, typeName(value)));
      return false;
    }
    bool ok = true;
    for (size_t i = 0, n = value.size(); i < n; ++i) {
      json::Member item = value.member(i);
      size_t k = allowed.find(item.key());
      if (k < N) {
        if (slots)
          slots[k] = item.value();
        continue;
      }
      unknownField(pointer, item.key(), allowed.keys, N, what);
      ok = false;
    }
    return ok;
  }

  [[gnu::noinline]] void unknownField(const Ptr &pointer, std::string_view name,
                                      const std::string_view *allowed, size_t count,
                                      std::string_view what) {
    std::string list;
    for (size_t k = 0; k < count; ++k)
      list += fmt::format("{}'{}'", list.empty() ? "" : ", ", allowed[k]);
    error(child(pointer, name),
          fmt::format("unknown field '{}' in {}; expected one of {}", name, what, list));
  }

  /// A required field found by expectObject: reports it missing as field()
  /// does.
  std::optional<Json> required(const std::optional<Json> &slot, const Ptr &pointer,
                               std::string_view key, std::string_view what) {
    if (!slot)
      error(pointer, fmt::format("missing field '{}' in {}", key, what));
    return slot;
  }

  std::optional<Json> field(const Json &object, const Ptr &pointer, std::string_view key,
                            bool required, std::string_view what) {
    std::optional<Json> member = object.find(key);
    if (!member && required)
      error(pointer, fmt::format("missing field '{}' in {}", key, what));
    return member;
  }

  /// A string's text, a view of the document. Strings are read by the
  /// million: the problems are reported out of line.
  [[gnu::always_inline]] std::optional<std::string_view> getString(const Json &value,
                                                                   const Ptr &pointer) {
    if (value.is_string()) {
      std::string_view text = value.str();
      if (text.size() <= limits.maxStringBytes)
        return text;
    }
    return badString(value, pointer);
  }

  [[gnu::noinline]] std::optional<std::string_view> badString(const Json &value,
                                                              const Ptr &pointer) {
    if (!value.is_string()) {
      expectType(value, pointer, Json::value_t::string, "a string");
      return std::nullopt;
    }
    std::string_view text = value.str();
    if (text.size() > limits.maxStringBytes) {
      error(pointer, fmt::format("string is longer than the limit of {} bytes",
                                      limits.maxStringBytes));
      return std::nullopt;
    }
    return text;
  }

  std::optional<int64_t> getInt(const Json &value, const Ptr &pointer, int64_t min,
                                int64_t max, std::string_view what) {
    if (value.is_number_unsigned()) {
      if (value.get<uint64_t>() > static_cast<uint64_t>(max)) {
        error(pointer, fmt::format("{} {} is out of range; expected at most {}", what,
                                        value.get<uint64_t>(), max));
        return std::nullopt;
      }
      return static_cast<int64_t>(value.get<uint64_t>());
    }
    if (value.is_number_integer()) {
      int64_t v = value.get<int64_t>();
      if (v < min || v > max) {
        error(pointer,
                   fmt::format("{} {} is out of range; expected {} to {}", what, v, min, max));
        return std::nullopt;
      }
      return v;
    }
    if (value.is_number_float()) {
      error(pointer, fmt::format("expected {} as an integer, got {} (a number too large "
                                      "for int64 or with a fraction)",
                                      what, value.dump()));
      return std::nullopt;
    }
    error(pointer, fmt::format("expected {} (an integer), got {}", what, typeName(value)));
    return std::nullopt;
  }

  /// A name's text, a view of the document.
  std::optional<std::string_view> getName(const Json &value, const Ptr &pointer,
                                          std::string_view what) {
    auto name = getString(value, pointer);
    if (!name)
      return std::nullopt;
    // Names repeat (a buffer at every use): each spelling is checked once.
    // A reading thread finds most names in its parent's table: look there first.
    if ((sharedValidNames && sharedValidNames->find(*name)) || validNames.find(*name))
      return name;
    if (!checkName(*name, pointer, what))
      return std::nullopt;
    validNames.insert(*name, true);
    return name;
  }

  /// getName for a name the graph defines (an input, constant or buffer):
  /// each is defined once, so it is checked here rather than remembered;
  /// its uses find it among the graph's tensors.
  std::optional<std::string_view> getDefinedName(const Json &value, const Ptr &pointer,
                                                 std::string_view what) {
    auto name = getString(value, pointer);
    if (!name || !checkName(*name, pointer, what))
      return std::nullopt;
    return name;
  }

  /// checkIdentifier, reporting a problem.
  bool checkName(std::string_view name, const Ptr &pointer, std::string_view what) {
    if (auto why = checkIdentifier(name)) {
      error(pointer, fmt::format("{} name '{}' {}", what, printable(name), *why));
      return false;
    }
    return true;
  }

  /// getName for a reference to a tensor of the graph being read, which
  /// also resolves it into \p id. A name the graph defines was checked
  /// there: one lookup does both.
  std::optional<std::string_view> getTensorName(const Json &value, const Ptr &pointer,
                                                uint32_t &id) {
    if (graphNames && value.is_string()) {
      std::string_view text = value.str();
      if (const NameSite *site = graphNames->find(text); site && site->tensor != kNoTensor) {
        id = site->tensor;
        return text;
      }
    }
    return getName(value, pointer, "buffer");
  }

  /// Quotes a user string for a diagnostic without passing control bytes to
  /// the terminal.
  static std::string printable(std::string_view text) {
    std::string out;
    for (unsigned char c : text.substr(0, 80)) {
      if (c < 0x20 || c >= 0x7f)
        out += fmt::format("\\x{:02x}", c);
      else
        out += static_cast<char>(c);
    }
    if (text.size() > 80)
      out += "...";
    return out;
  }

  /// Reads a symbolic integer: a JSON integer or an expression string.
  /// With \p nonNegative, a constant below zero is an error. A float symbol
  /// is an error but where \p floatValue allows one by itself (a value).
  std::optional<sym::Expr> getExpr(const Json &value, const Ptr &pointer,
                                   std::string_view what, bool nonNegative,
                                   bool floatValue = false) {
    if (value.is_number()) {
      if (nonNegative && value.type() == Json::value_t::number_integer &&
          value.get<int64_t>() < 0) {
        error(pointer, fmt::format("{} {} is negative; expected 0 or more", what,
                                        value.get<int64_t>()));
        return std::nullopt;
      }
      auto v = getInt(value, pointer, std::numeric_limits<int64_t>::min(),
                      std::numeric_limits<int64_t>::max(), what);
      if (!v)
        return std::nullopt;
      return sym::Expr(*v);
    }
    if (!value.is_string()) {
      error(pointer, fmt::format("expected {} (an integer or an expression string), got {}",
                                      what, typeName(value)));
      return std::nullopt;
    }
    std::string_view text = value.str();
    // Graphs spell the same few expressions over and over (s0, 4096*s0,
    // ...): parse, check and simplify each spelling once.
    const sym::Expr *cached = sharedExprs ? sharedExprs->find(text) : nullptr;
    if (!cached)
      cached = exprCache.find(text);
    if (cached) {
      if (!floatSymbols.empty() && !checkFloatUse(*cached, pointer, what, text, floatValue))
        return std::nullopt;
      return checkSign(*cached, pointer, what, text, nonNegative);
    }
    sym::ParseError parseError;
    auto expr = sym::parseExpr(text, parseError);
    if (!expr) {
      error(pointer, fmt::format("invalid {} '{}': {} at column {} of the expression", what,
                                      printable(text), parseError.message, parseError.offset + 1));
      return std::nullopt;
    }
    bool ok = true;
    for (const std::string &symbol : sym::symbols(*expr)) {
      if (!symbolNames.count(symbol)) {
        error(pointer, fmt::format("{} '{}' uses unknown symbol '{}'; declare it in /symbols",
                                        what, printable(text), symbol));
        ok = false;
      }
    }
    if (!ok)
      return std::nullopt;
    *expr = sym::simplify(*expr);
    exprCache.insert(text, *expr);
    if (!floatSymbols.empty() && !checkFloatUse(*expr, pointer, what, text, floatValue))
      return std::nullopt;
    return checkSign(*expr, pointer, what, text, nonNegative);
  }

  /// A float symbol is a run-time float, not a size: it may stand alone as a
  /// value (a kernel's or extern kernel's argument, an output), never in an
  /// integer expression.
  [[gnu::cold]] bool checkFloatUse(const sym::Expr &expr, const Ptr &pointer,
                                   std::string_view what, std::string_view text,
                                   bool floatValue) {
    if (floatValue && expr.isSymbol())
      return true;
    for (const std::string &symbol : sym::symbols(expr))
      if (floatSymbols.count(symbol)) {
        error(pointer, fmt::format("{} '{}' uses float symbol '{}'; a float symbol is passed "
                                   "only by itself, as a kernel or extern kernel argument or "
                                   "an output",
                                   what, printable(text), symbol));
        return false;
      }
    return true;
  }

  /// Operands of a subgraph call: its inputs take tensors, integers and
  /// size symbols, not floats read at run time.
  bool rejectFloats(const std::vector<Value> &values, const Ptr &pointer) {
    bool rejected = false;
    for (size_t i = 0; i < values.size(); ++i)
      rejected |= rejectFloat(values[i], pointer.child(i), "a subgraph's operand");
    return rejected;
  }

  /// \p value is a float symbol by itself, which \p where does not take.
  bool rejectFloat(const Value &value, const Ptr &pointer, std::string_view where) {
    if (floatSymbols.empty() || value.kind != Value::Kind::Expr || !value.expr.isSymbol() ||
        !floatSymbols.count(value.expr.symbolName()))
      return false;
    error(pointer, fmt::format("float symbol '{}' cannot be {}", value.expr.symbolName(), where));
    return true;
  }

  std::optional<sym::Expr> checkSign(const sym::Expr &expr, const Ptr &pointer,
                                     std::string_view what, std::string_view text,
                                     bool nonNegative) {
    if (nonNegative && expr.constant() && *expr.constant() < 0) {
      error(pointer, fmt::format("{} '{}' is negative", what, printable(text)));
      return std::nullopt;
    }
    return expr;
  }

  /// Expression spellings already read, keyed by their text in the document.
  NameMap<sym::Expr> exprCache;
  /// A node-reading thread's parent's caches, looked in before its own: no
  /// one writes them while such threads run.
  const NameMap<sym::Expr> *sharedExprs = nullptr;
  /// Nodes of the graphs read so far, against limits.maxNodes.
  size_t nodeCount = 0;
  /// Names already checked by checkIdentifier, and keyword argument names
  /// by checkKeywordName.
  NameMap<bool> validNames;
  const NameMap<bool> *sharedValidNames = nullptr;
  NameMap<bool> validKeywords;

  /// Reads a list of non-negative expressions into \p out (cleared first);
  /// false if there was a problem.
  template <typename List>
  bool getExprList(const Json &value, const Ptr &pointer, std::string_view what, List &out) {
    out.clear();
    if (!expectType(value, pointer, Json::value_t::array, "an array"))
      return false;
    size_t n = value.size();
    if (n > limits.maxRank) {
      error(pointer, fmt::format("{} has {} entries; the limit is {}", what, n, limits.maxRank));
      return false;
    }
    out.reserve(n);
    bool ok = true;
    for (size_t i = 0; i < n; ++i) {
      Json item = value[i];
      // Plain non-negative integers need no checks beyond their sign.
      if (item.type() == Json::value_t::number_integer && item.getInt() >= 0) {
        out.emplace_back(item.getInt());
        continue;
      }
      auto e = getExpr(item, child(pointer, i), what, true);
      if (e)
        out.push_back(std::move(*e));
      else
        ok = false;
    }
    return ok;
  }
  std::optional<std::vector<sym::Expr>> getExprList(const Json &value, const Ptr &pointer,
                                                    std::string_view what) {
    std::vector<sym::Expr> out;
    if (!getExprList(value, pointer, what, out))
      return std::nullopt;
    return out;
  }

  std::set<std::string, std::less<>> symbolNames;
  /// Symbols declared "dtype": "float64" (data-dependent floats).
  std::set<std::string, std::less<>> floatSymbols;
  sym::SymbolValues hints; ///< every symbol's hint, once the symbols are read
  const sym::SymbolValues &symbolHints() const { return hints; }

  // --- Structural step.

  bool readHeader(const Json &root);
  void readSymbols(const Json &root);
  void readKernels(const Json &root);
  std::optional<Kernel> readKernel(const Json &value, const Ptr &pointer,
                                   std::string_view &nameText);
  std::optional<ComboGrid> readComboGrid(const Json &value, const Ptr &pointer);
  /// Reads an object of tuned constexprs (a config's kwargs, a combo grid's
  /// default_config) into \p out: identifier names, integers from \p least.
  bool readBlockSizes(const Json &value, const Ptr &pointer, int64_t least,
                      std::string_view what, std::vector<std::pair<std::string, int64_t>> &out);
  std::optional<KernelConfig> readConfig(const Json &value, const Ptr &pointer,
                                         GridType gridType);
  bool readGraph(const Json &object, const Ptr &pointer, Graph &graph, bool topLevel);
  /// Reads the layout of \p object into \p out; \p fields are its dtype,
  /// device, size, stride and offset members, as expectObject found them.
  bool readLayout(const Json &object, const Ptr &pointer, std::string_view what,
                  const std::optional<Json> *fields, Layout &out);
  std::optional<Layout> readLayoutChecked(const Json &object, const Ptr &pointer,
                                          std::string_view what);
  /// A layout read without a problem, with the fields it was spelled with.
  struct CachedLayout {
    Json fields[5];
    bool hasOffset;
    uint32_t next; ///< the next entry with the same hash, or kNoLayout
    Layout layout;
  };
  static constexpr uint32_t kNoLayout = UINT32_MAX;
  static bool layoutHash(const std::optional<Json> *fields, uint64_t &hash);
  static bool sameLayoutText(const std::optional<Json> *fields, const CachedLayout &cached);
  std::vector<CachedLayout> layoutCache;
  /// Hash of a layout's spelling to its first entry in layoutCache.
  std::unordered_map<uint64_t, uint32_t> layoutIndex;
  /// A node-reading thread's parent, whose layout cache it looks in first.
  const Reader *sharedLayouts = nullptr;
  bool claimName(std::string_view name, const Ptr &pointer, NameMap<NameSite> &names,
                 const NameSite &site);
  /// Reads into \p out, a default Value; false if there was a problem.
  bool readValue(const Json &value, const Ptr &pointer, unsigned depth, Value &out);
  std::optional<Value> readValue(const Json &value, const Ptr &pointer, unsigned depth) {
    std::optional<Value> out(std::in_place);
    if (!readValue(value, pointer, depth, *out))
      return std::nullopt;
    return out;
  }
  /// Reads into \p out, a default View; false if there was a problem.
  bool readView(const Json &value, const Ptr &pointer, View &out);
  /// Reads into \p node, a default Node (in place: a graph has many).
  bool readNode(const Json &value, const Ptr &pointer, Node &node);
  bool readBindSymbol(const Json &value, const Ptr &pointer, Node &node);
  bool readAssertScalar(const Json &value, const Ptr &pointer, Node &node);
  std::optional<double> readNonFinite(const Json &value, const Ptr &pointer);
  /// `lhs cmp rhs` from \p fields, an object's lhs, cmp and rhs in that
  /// order as expectObject found them.
  bool readComparison(const Ptr &pointer, std::string_view what,
                      std::optional<Json> *fields, SizeComparison &out);
  /// Reads nodes [begin, end) of \p nodes (spelled under \p np) into
  /// out[count], out[count + 1], ..., leaving out those with a problem (false
  /// if there was one); \p count ends one past the last node read. Reports the
  /// text read through readUpTo, from \p unreported on (0: always from the
  /// start; SIZE_MAX: from the first node's), and updates it.
  bool readNodes(const Json &nodes, const Ptr &np, size_t begin, size_t end, Node *out,
                 size_t &count, size_t &unreported);
  /// readNodes over all of \p nodes, on limits.threads threads where that
  /// pays. Runs that report anything are read again on this thread alone, so
  /// that diagnostics come in document order, as they would without threads.
  void readAllNodes(const Json &nodes, const Ptr &np, std::vector<Node> &out);
  /// Reads a buffer record into \p buffer, all but claiming its name, which
  /// is \p spelled (a view into the document).
  bool readBuffer(const Json &b, const Ptr &p, Buffer &buffer, std::string_view &spelled);
  /// Resizes \p table to \p size default slots, their pages faulted in on
  /// another core ahead of the making where the table grows by many.
  template <typename T> void makeSlots(std::vector<T> &table, size_t size);
  /// Calls read(reader, t) for t below \p threads, each on a thread of its
  /// own with a Reader of its own (reporting text read to \p report);
  /// true if every call did and none reported anything.
  template <typename Read>
  bool readQuietlyInParts(size_t threads, const std::function<void(size_t, size_t)> &report,
                          Read &&read);
  /// Reads into \p arg, a default KernelArg (in place: a graph has many).
  bool readKernelArg(const Json &value, const Ptr &pointer, KernelArg &arg);
  std::optional<std::string_view> readOpName(const Json &value, const Ptr &pointer);

  // --- Semantic step.

  void checkGraph(Graph &graph);
  void checkBindSymbol(const BindSymbolNode &bind, const Ptr &p, bool indexOk,
                       std::optional<DType> itemDType,
                       std::set<std::string, std::less<>> &bound);
  /// Fills doc->subgraphOrder; false (with a diagnostic) where subgraphs
  /// call each other in a loop.
  bool orderSubgraphs();
  void checkLayoutBytes(const Layout &layout, const Ptr &pointer);
};

std::unique_ptr<Document> Reader::read(std::string_view text) {
  if (text.size() > limits.maxInputBytes) {
    error(fmt::format("input is {} bytes; the limit is {} bytes (--max-input-bytes)",
                      text.size(), limits.maxInputBytes));
    return nullptr;
  }
  source = text;
  json::ParseError parseError;
  json::ParseOptions parseOptions;
  parseOptions.maxDepth = limits.maxNesting;
  parseOptions.threads = limits.threads >= kPartsFromThreads ? limits.threads : 1;
  parseOptions.partsFrom = limits.partsFrom;
  parseOptions.minPartBytes =
      std::min(parseOptions.minPartBytes, std::max<size_t>(limits.partsFrom / 4, 256));
  parseOptions.populate = limits.threads > 1;
  std::unique_ptr<json::Document> parsed = json::Document::parse(text, parseOptions, parseError);
  if (!parsed) {
    diag.errorAt(positionOfOffset(text, parseError.offset),
                 fmt::format("malformed JSON: {}", parseError.message));
    return nullptr;
  }
  finishStep("read:parse");
  Json root = parsed->root();

  doc = std::make_unique<Document>();
  if (!expectObject(root, "",
                    {"format", "version", "name", "metadata", "symbols", "inputs", "constants",
                     "buffers", "kernels", "nodes", "outputs", "subgraphs"},
                    "a graph document"))
    return nullptr;
  if (!readHeader(root))
    return nullptr;
  readSymbols(root);
  readKernels(root);

  // Subgraph names are registered first so that cond nodes anywhere can
  // refer to them.
  if (std::optional<Json> subgraphs = field(root, "", "subgraphs", false, "a graph document")) {
    if (expectType(*subgraphs, "/subgraphs", Json::value_t::array, "an array of subgraphs")) {
      doc->subgraphs.resize(subgraphs->size());
      const Ptr subgraphTable("/subgraphs");
      for (size_t i = 0; i < subgraphs->size(); ++i) {
        Ptr pointer = child(subgraphTable, i);
        doc->subgraphs[i].pointer = pointer.str();
        readGraph((*subgraphs)[i], pointer, doc->subgraphs[i], false);
        // (Graphs stay in place: the name outlives the table.)
        const std::string &name = doc->subgraphs[i].name;
        if (!name.empty()) {
          claimName(name, pointer + "/name", globalNames,
                    {0, NameTable::Subgraphs, static_cast<uint32_t>(i)});
          doc->subgraphIndex.emplace(name, i); // the first of a name: others are errors
        }
      }
    }
  }
  doc->main.pointer = "";
  readGraph(root, "", doc->main, true);
  if (diag.hasErrors())
    return nullptr;
  finishStep("read:nodes");

  for (Graph &graph : doc->subgraphs)
    checkGraph(graph);
  checkGraph(doc->main);
  if (diag.hasErrors())
    return nullptr;
  if (!orderSubgraphs())
    return nullptr;
  return std::move(doc);
}

bool Reader::orderSubgraphs() {
  // Depth first over the calls between subgraphs (main is left out: nothing
  // calls it), without recursion, so that a long chain of subgraphs cannot
  // exhaust the stack. Callees are numbered before their callers; a call to
  // a subgraph still being visited closes a loop, which no wrapper can run.
  const size_t n = doc->subgraphs.size();
  auto indexOf = [&](const std::string &name) { return doc->subgraphIndex.find(name)->second; };
  struct Call {
    size_t callee;
    const Node *node;
    std::string_view field;
  };
  std::vector<std::vector<Call>> calls(n);
  // A while_loop's cond returns its predicate bare in FX, which no other
  // caller expects: such a subgraph has no other role.
  std::vector<const Call *> asPredicate(n, nullptr), otherwise(n, nullptr);
  std::vector<Call> mainCalls;
  auto note = [&](const Call &call) {
    (call.field == "cond_graph" ? asPredicate : otherwise)[call.callee] = &call;
  };
  for (size_t i = 0; i < n; ++i)
    forEachSubgraphCall(doc->subgraphs[i].nodes,
                        [&](const Node &node, const std::string &name, std::string_view field) {
                          calls[i].push_back({indexOf(name), &node, field});
                        });
  forEachSubgraphCall(doc->main.nodes,
                      [&](const Node &node, const std::string &name, std::string_view field) {
                        mainCalls.push_back({indexOf(name), &node, field});
                      });
  for (const std::vector<Call> &list : calls)
    for (const Call &call : list)
      note(call);
  for (const Call &call : mainCalls)
    note(call);
  bool ok = true;
  for (size_t g = 0; g < n; ++g)
    if (asPredicate[g] && otherwise[g]) {
      const Ptr nodePointer(otherwise[g]->node->pointer);
      error(nodePointer.child(otherwise[g]->field),
            fmt::format("subgraph '{}' is a while_loop's cond_graph (at {}/cond_graph) and cannot "
                        "also be a {}",
                        doc->subgraphs[g].name, asPredicate[g]->node->pointer,
                        otherwise[g]->field));
      ok = false;
    }
  if (!ok)
    return false;
  enum class Mark : uint8_t { New, Open, Done };
  std::vector<Mark> mark(n, Mark::New);
  std::vector<size_t> parent(n, SIZE_MAX);
  struct Frame {
    size_t graph, next;
  };
  std::vector<Frame> stack;
  doc->subgraphOrder.reserve(n);
  for (size_t root = 0; root < n; ++root) {
    if (mark[root] != Mark::New)
      continue;
    mark[root] = Mark::Open;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      Frame &top = stack.back();
      if (top.next == calls[top.graph].size()) {
        mark[top.graph] = Mark::Done;
        doc->subgraphOrder.push_back(top.graph);
        stack.pop_back();
        continue;
      }
      const Call &call = calls[top.graph][top.next++];
      if (mark[call.callee] == Mark::Open) {
        // The loop: callee -> ... -> top.graph -> callee.
        std::string path = doc->subgraphs[call.callee].name;
        std::vector<size_t> chain;
        for (size_t g = top.graph; g != call.callee; g = parent[g])
          chain.push_back(g);
        for (auto it = chain.rbegin(); it != chain.rend(); ++it)
          path += " -> " + doc->subgraphs[*it].name;
        const Ptr nodePointer(call.node->pointer);
        error(nodePointer.child(call.field),
              fmt::format("subgraph '{}' calls itself: {} -> {}", doc->subgraphs[call.callee].name,
                          path, doc->subgraphs[call.callee].name));
        return false;
      }
      if (mark[call.callee] == Mark::New) {
        mark[call.callee] = Mark::Open;
        parent[call.callee] = top.graph;
        stack.push_back({call.callee, 0}); // top is not used past here
      }
    }
  }
  return true;
}

bool Reader::readHeader(const Json &root) {
  std::optional<Json> format = field(root, "", "format", true, "a graph document");
  std::optional<Json> version = field(root, "", "version", true, "a graph document");
  if (!format || !version)
    return false;
  auto formatName = getString(*format, "/format");
  if (!formatName)
    return false;
  if (*formatName != kFormatName) {
    error("/format", fmt::format("unknown format '{}'; expected '{}'", printable(*formatName),
                                      kFormatName));
    return false;
  }
  auto v = getInt(*version, "/version", 0, std::numeric_limits<int32_t>::max(), "format version");
  if (!v)
    return false;
  if (*v != kFormatVersion) {
    error("/version", fmt::format("unsupported format version {}; this wirc reads version {}",
                                       *v, kFormatVersion));
    return false;
  }
  if (std::optional<Json> metadata = field(root, "", "metadata", false, "a graph document"))
    expectType(*metadata, "/metadata", Json::value_t::object, "an object");
  return true;
}

bool Reader::claimName(std::string_view name, const Ptr &pointer, NameMap<NameSite> &names,
                       const NameSite &site) {
  auto [first, inserted] = names.insert(name, site);
  if (!inserted) {
    error(pointer, fmt::format("duplicate name '{}'; first defined at {}", name,
                               first->str(siteBases)));
    return false;
  }
  return true;
}

void Reader::readSymbols(const Json &root) {
  std::optional<Json> symbols = field(root, "", "symbols", false, "a graph document");
  if (!symbols || !expectType(*symbols, "/symbols", Json::value_t::array, "an array of symbols"))
    return;
  // Names first, so precomputed symbols may refer to any symbol.
  for (size_t i = 0; i < symbols->size(); ++i) {
    const Json &s = (*symbols)[i];
    if (!s.is_object())
      continue;
    if (auto name = s.find("name"); name && name->is_string()) {
      symbolNames.insert(std::string(name->str()));
      if (auto dtype = s.find("dtype"); dtype && dtype->is_string() && dtype->str() == "float64")
        floatSymbols.insert(std::string(name->str()));
    }
  }
  const Ptr table("/symbols");
  for (size_t i = 0; i < symbols->size(); ++i) {
    Ptr pointer = child(table, i);
    const Json &s = (*symbols)[i];
    if (!expectObject(s, pointer, {"name", "hint", "expr", "unbacked", "dtype"}, "a symbol"))
      continue;
    Symbol symbol;
    if (std::optional<Json> unbacked = field(s, pointer, "unbacked", false, "a symbol")) {
      if (!expectType(*unbacked, pointer + "/unbacked", Json::value_t::boolean, "a boolean"))
        continue;
      symbol.unbacked = unbacked->get<bool>();
    }
    if (std::optional<Json> dtype = field(s, pointer, "dtype", false, "a symbol")) {
      auto d = getString(*dtype, pointer + "/dtype");
      if (!d)
        continue;
      if (*d == "float64") {
        symbol.isFloat = true;
      } else if (*d != "int64") {
        error(pointer + "/dtype",
              fmt::format("unknown symbol dtype '{}'; expected int64 or float64", printable(*d)));
        continue;
      }
      if (symbol.isFloat && !symbol.unbacked) {
        error(pointer + "/dtype", "a float64 symbol must be unbacked: its value is read from a "
                                  "tensor by a bind_symbol node");
        continue;
      }
    }
    std::optional<Json> name = field(s, pointer, "name", true, "a symbol");
    // An unbacked symbol has no example value of its own.
    std::optional<Json> hint = field(s, pointer, "hint", !symbol.unbacked, "a symbol");
    if (!name || (!hint && !symbol.unbacked))
      continue;
    auto n = getName(*name, pointer + "/name", "symbol");
    auto h = hint ? getInt(*hint, pointer + "/hint", std::numeric_limits<int64_t>::min(),
                           std::numeric_limits<int64_t>::max(), "size hint")
                  : std::optional<int64_t>(kUnbackedHint);
    if (!n || !h)
      continue;
    symbol.name = *n;
    symbol.hint = *h;
    if (symbol.unbacked && s.find("expr"))
      error(pointer + "/expr", fmt::format("unbacked symbol '{}' is bound by a bind_symbol "
                                           "node and cannot also have an expression",
                                           symbol.name));
    else if (std::optional<Json> expr = field(s, pointer, "expr", false, "a symbol")) {
      auto e = getExpr(*expr, pointer + "/expr", "symbol expression", false);
      if (!e)
        continue;
      for (const std::string &used : sym::symbols(*e))
        if (used == symbol.name)
          error(pointer + "/expr",
                     fmt::format("symbol '{}' is defined in terms of itself", symbol.name));
      symbol.expr = *e;
    }
    const NameSite symbolSite{0, NameTable::Symbols, static_cast<uint32_t>(i)};
    if (!claimName(*n, pointer + "/name", globalNames, symbolSite))
      continue;
    symbolSites.emplace_back(*n, symbolSite);
    doc->main.symbols.push_back(std::move(symbol));
  }
  hints = doc->hints();
  // A precomputed symbol's hint must agree with its expression, or plans made
  // at the hints would disagree with run time.
  for (size_t i = 0; i < doc->main.symbols.size(); ++i) {
    const Symbol &symbol = doc->main.symbols[i];
    if (!symbol.expr)
      continue;
    std::string why;
    auto value = sym::evaluate(*symbol.expr, hints, why);
    if (value && *value != symbol.hint)
      error(Ptr("/symbols").child(i).child("hint"),
                 fmt::format("hint {} of symbol '{}' disagrees with its expression, which is {} "
                             "at the other symbols' hints",
                             symbol.hint, symbol.name, *value));
  }
}

void Reader::readKernels(const Json &root) {
  std::optional<Json> kernels = field(root, "", "kernels", false, "a graph document");
  if (!kernels || !expectType(*kernels, "/kernels", Json::value_t::array, "an array of kernels"))
    return;
  const Ptr kernelTable("/kernels");
  for (size_t i = 0; i < kernels->size(); ++i) {
    Ptr pointer = child(kernelTable, i);
    std::string_view name;
    auto kernel = readKernel((*kernels)[i], pointer, name);
    if (!kernel ||
        !claimName(name, pointer + "/name", globalNames,
                   {0, NameTable::Kernels, static_cast<uint32_t>(i)}))
      continue;
    kernelIndex.insert(name, static_cast<uint32_t>(doc->kernels.size()));
    doc->kernelIndex.emplace(kernel->name, doc->kernels.size());
    doc->kernels.push_back(std::move(*kernel));
  }
}

std::optional<Kernel> Reader::readKernel(const Json &value, const Ptr &pointer,
                                         std::string_view &nameText) {
  if (!expectObject(value, pointer,
                    {"name", "entry", "language", "source", "signature",
                     "placeholders", "cooperative", "grid_type", "combo_grid",
                     "configs"},
                    "a kernel"))
    return std::nullopt;
  Kernel kernel;
  bool ok = true;
  std::optional<Json> name = field(value, pointer, "name", true, "a kernel");
  std::optional<Json> language = field(value, pointer, "language", true, "a kernel");
  std::optional<Json> source = field(value, pointer, "source", true, "a kernel");
  if (!name || !language || !source)
    return std::nullopt;
  auto n = getName(*name, pointer + "/name", "kernel");
  auto l = getString(*language, pointer + "/language");
  auto s = getString(*source, pointer + "/source");
  if (!n || !l || !s)
    return std::nullopt;
  kernel.name = *n;
  nameText = *n;
  kernel.source = *s;
  if (std::optional<Json> entry = field(value, pointer, "entry", false, "a kernel")) {
    auto e = getName(*entry, pointer + "/entry", "kernel entry");
    if (!e)
      return std::nullopt;
    kernel.entry = *e;
  }
  if (*l == "triton")
    kernel.language = KernelLanguage::Triton;
  else if (*l == "ptx")
    kernel.language = KernelLanguage::PTX;
  else if (*l == "cuda")
    kernel.language = KernelLanguage::CUDA;
  else if (*l == "llvm")
    kernel.language = KernelLanguage::LLVM;
  else if (*l == "cpp")
    kernel.language = KernelLanguage::Cpp;
  else {
    error(pointer + "/language",
               fmt::format("unknown kernel language '{}'; expected 'triton', 'ptx', 'cuda', "
                           "'llvm' or 'cpp'",
                           printable(*l)));
    ok = false;
  }
  const bool cpp = kernel.language == KernelLanguage::Cpp;
  if (std::optional<Json> signature = field(value, pointer, "signature", false, "a kernel")) {
    Ptr sp = pointer + "/signature";
    if (expectType(*signature, sp, Json::value_t::array, "an array of parameters")) {
      NameMap<NameSite> paramNames;
      const uint32_t paramSite = siteBase(sp.str());
      for (size_t i = 0; i < signature->size(); ++i) {
        Ptr pp = child(sp, i);
        const Json &p = (*signature)[i];
        if (!expectObject(p, pp, {"name", "type"}, "a kernel parameter")) {
          ok = false;
          continue;
        }
        std::optional<Json> pn = field(p, pp, "name", true, "a kernel parameter");
        std::optional<Json> pt = field(p, pp, "type", true, "a kernel parameter");
        if (!pn || !pt) {
          ok = false;
          continue;
        }
        auto paramName = getName(*pn, pp + "/name", "parameter");
        auto paramType = getString(*pt, pp + "/type");
        // A C++ kernel's types are printed into the Python wrapper.
        if (cpp && paramType && !isCParamType(*paramType)) {
          error(pp + "/type",
                fmt::format("'{}' is not a C parameter type; expected [const ]NAME[::NAME...] "
                            "with an optional '*' (for example 'const float*', 'int64_t')",
                            printable(*paramType)));
          ok = false;
          continue;
        }
        if (!paramName || !paramType ||
            !claimName(*paramName, pp + "/name", paramNames,
                       {paramSite, NameTable::Params, static_cast<uint32_t>(i)})) {
          ok = false;
          continue;
        }
        kernel.signature.push_back({std::string(*paramName), std::string(*paramType)});
      }
    } else {
      ok = false;
    }
  }
  if (std::optional<Json> placeholders = field(value, pointer, "placeholders", false, "a kernel")) {
    if (expectType(*placeholders, pointer + "/placeholders", Json::value_t::boolean, "a boolean"))
      kernel.placeholders = placeholders->get<bool>();
    else
      ok = false;
  }
  if (std::optional<Json> cooperative = field(value, pointer, "cooperative", false, "a kernel")) {
    if (expectType(*cooperative, pointer + "/cooperative", Json::value_t::boolean, "a boolean"))
      kernel.cooperative = cooperative->get<bool>();
    else
      ok = false;
  }
  if (std::optional<Json> grid = field(value, pointer, "grid_type", false, "a kernel")) {
    auto g = getString(*grid, pointer + "/grid_type");
    if (!g) {
      ok = false;
    } else if (auto type = parseGridType(*g)) {
      kernel.gridType = *type;
    } else {
      error(pointer + "/grid_type",
                 fmt::format("unknown grid type '{}'; expected Grid1D, Grid2D, Grid3D, "
                             "Grid2DWithYZOverflow, CooperativeReductionGrid, SplitScanGrid, "
                             "FixedGrid, PrecomputedGrid, BatchMatmulGrid3D, "
                             "SequentialComboKernelGrid or RoundRobinComboKernelGrid",
                             printable(*g)));
      ok = false;
    }
  }
  if (std::optional<Json> combo = field(value, pointer, "combo_grid", false, "a kernel")) {
    if (!ComboGrid::isCombo(kernel.gridType)) {
      error(pointer + "/combo_grid", "a kernel carries a combo_grid only with grid_type "
                                     "SequentialComboKernelGrid or RoundRobinComboKernelGrid");
      ok = false;
    } else if (auto c = readComboGrid(*combo, pointer + "/combo_grid")) {
      kernel.combo = std::move(*c);
    } else {
      ok = false;
    }
  } else if (ComboGrid::isCombo(kernel.gridType)) {
    error(pointer, fmt::format("missing field 'combo_grid' in a {} kernel",
                               gridTypeName(kernel.gridType)));
    ok = false;
  }
  if (std::optional<Json> configs = field(value, pointer, "configs", false, "a kernel")) {
    Ptr cp = pointer + "/configs";
    if (expectType(*configs, cp, Json::value_t::array, "an array of configs")) {
      for (size_t i = 0; i < configs->size(); ++i) {
        auto config = readConfig((*configs)[i], child(cp, i), kernel.gridType);
        if (config)
          kernel.configs.push_back(std::move(*config));
        else
          ok = false;
      }
    } else {
      ok = false;
    }
  }
  if (cpp) {
    // A CPU kernel is a function call: nothing to tune, no grid.
    for (const char *key : {"configs", "grid_type", "combo_grid", "cooperative", "placeholders"})
      if (value.contains(key)) {
        error(child(pointer, key), fmt::format("a cpp kernel has no '{}'", key));
        ok = false;
      }
    if (!value.contains("signature")) {
      error(pointer, fmt::format("missing field 'signature' in cpp kernel '{}': its parameters' "
                                 "C types",
                                 kernel.name));
      ok = false;
    }
  }
  if (ok && kernel.language == KernelLanguage::Triton && kernel.configs.empty()) {
    error(pointer, fmt::format("triton kernel '{}' has no configs; expected at least one "
                                    "(block sizes, num_warps)",
                                    kernel.name));
    ok = false;
  }
  if (!ok)
    return std::nullopt;
  return kernel;
}

bool Reader::readBlockSizes(const Json &value, const Ptr &pointer, int64_t least,
                            std::string_view what,
                            std::vector<std::pair<std::string, int64_t>> &out) {
  if (!expectType(value, pointer, Json::value_t::object, "an object of block sizes"))
    return false;
  bool ok = true;
  for (size_t m = 0; m < value.size(); ++m) {
    json::Member item = value.member(m);
    Ptr ip = child(pointer, item.key());
    if (auto why = checkIdentifier(item.key())) {
      error(ip, fmt::format("config parameter name '{}' {}", printable(item.key()), *why));
      ok = false;
      continue;
    }
    if (auto v = getInt(item.value(), ip, least, std::numeric_limits<int32_t>::max(), what))
      out.emplace_back(std::string(item.key()), *v);
    else
      ok = false;
  }
  return ok;
}

std::optional<ComboGrid> Reader::readComboGrid(const Json &value, const Ptr &pointer) {
  if (!expectObject(value, pointer, {"kernels", "min_blocks", "default_config"}, "a combo grid"))
    return std::nullopt;
  ComboGrid combo;
  bool ok = true;
  std::optional<Json> parts = field(value, pointer, "kernels", true, "a combo grid");
  if (!parts)
    return std::nullopt;
  const Ptr pp = pointer + "/kernels";
  if (!expectType(*parts, pp, Json::value_t::array, "an array of sub-kernels"))
    return std::nullopt;
  if (parts->size() == 0 || parts->size() > kMaxComboParts) {
    error(pp, fmt::format("a combo grid has {} sub-kernels; expected 1 to {}", parts->size(),
                          kMaxComboParts));
    return std::nullopt;
  }
  for (size_t i = 0; i < parts->size(); ++i) {
    const Ptr ip = child(pp, i);
    Json part = (*parts)[i];
    if (!expectObject(part, ip, {"xnumel", "ynumel", "no_x_dim"}, "a sub-kernel")) {
      ok = false;
      continue;
    }
    ComboGrid::Part &out = combo.parts.emplace_back();
    // A numel is a non-negative expression, or null where each launch passes it.
    auto numel = [&](const char *key, std::optional<sym::Expr> &into, bool *present) {
      std::optional<Json> n = field(part, ip, key, present == nullptr, "a sub-kernel");
      if (present)
        *present = n.has_value();
      if (!n || n->is_null())
        return;
      if (auto e = getExpr(*n, child(ip, key), "numel", true))
        into = std::move(*e);
      else
        ok = false;
    };
    numel("xnumel", out.xnumel, nullptr);
    numel("ynumel", out.ynumel, &out.hasY);
    if (std::optional<Json> noX = field(part, ip, "no_x_dim", false, "a sub-kernel")) {
      if (expectType(*noX, ip + "/no_x_dim", Json::value_t::boolean, "a boolean"))
        out.noXDim = noX->get<bool>();
      else
        ok = false;
    }
  }
  if (std::optional<Json> minBlocks = field(value, pointer, "min_blocks", false, "a combo grid")) {
    if (auto m = getInt(*minBlocks, pointer + "/min_blocks", 0,
                        std::numeric_limits<int32_t>::max(), "min_blocks"))
      combo.minBlocks = *m;
    else
      ok = false;
  }
  if (std::optional<Json> defaults =
          field(value, pointer, "default_config", false, "a combo grid"))
    ok &= readBlockSizes(*defaults, pointer + "/default_config", 1, "block size",
                         combo.defaultConfig);
  if (!ok)
    return std::nullopt;
  return combo;
}

std::optional<KernelConfig> Reader::readConfig(const Json &value, const Ptr &pointer,
                                               GridType gridType) {
  if (!expectObject(value, pointer, {"kwargs", "num_warps", "num_stages", "grid", "artifacts"},
                    "a kernel config"))
    return std::nullopt;
  KernelConfig config;
  bool ok = true;
  if (std::optional<Json> kwargs = field(value, pointer, "kwargs", false, "a kernel config"))
    ok &= readBlockSizes(*kwargs, pointer + "/kwargs", 0, "config value", config.kwargs);
  if (std::optional<Json> warps = field(value, pointer, "num_warps", false, "a kernel config")) {
    auto w = getInt(*warps, pointer + "/num_warps", 1, 64, "num_warps");
    if (w && (*w & (*w - 1)) != 0) {
      error(pointer + "/num_warps", fmt::format("num_warps {} is not a power of two", *w));
      w.reset();
    }
    if (w)
      config.numWarps = static_cast<int>(*w);
    else
      ok = false;
  }
  if (std::optional<Json> stages = field(value, pointer, "num_stages", false, "a kernel config")) {
    auto s = getInt(*stages, pointer + "/num_stages", 0, 64, "num_stages");
    if (s)
      config.numStages = static_cast<int>(*s);
    else
      ok = false;
  }
  std::optional<Json> grid = field(value, pointer, "grid", false, "a kernel config");
  if (grid) {
    if (gridType != GridType::PrecomputedGrid) {
      error(pointer + "/grid",
                 "a config carries a grid only for kernels with grid_type PrecomputedGrid");
      ok = false;
    } else if (auto g = getExprList(*grid, pointer + "/grid", "grid dimension");
               g && g->size() == 3) {
      config.grid = std::move(*g);
    } else {
      if (g)
        error(pointer + "/grid", fmt::format("expected 3 grid dimensions, got {}", g->size()));
      ok = false;
    }
  } else if (gridType == GridType::PrecomputedGrid) {
    error(pointer, "missing field 'grid' in a config of a PrecomputedGrid kernel");
    ok = false;
  }
  if (std::optional<Json> artifacts = field(value, pointer, "artifacts", false, "a kernel config")) {
    Ptr ap = pointer + "/artifacts";
    if (expectObject(*artifacts, ap,
                     {"ptx", "cubin", "entry_name", "shared_mem", "global_scratch",
                      "profile_scratch"},
                     "kernel artifacts")) {
      KernelArtifacts a;
      auto str = [&](const char *key, std::string &out) {
        if (std::optional<Json> v = field(*artifacts, ap, key, false, "kernel artifacts")) {
          auto s = getString(*v, child(ap, key));
          if (s)
            out = *s;
          else
            ok = false;
        }
      };
      auto num = [&](const char *key, int64_t &out) {
        if (std::optional<Json> v = field(*artifacts, ap, key, false, "kernel artifacts")) {
          auto n = getInt(*v, child(ap, key), 0, std::numeric_limits<int32_t>::max(), key);
          if (n)
            out = *n;
          else
            ok = false;
        }
      };
      str("ptx", a.ptx);
      str("cubin", a.cubinBase64);
      str("entry_name", a.entryName);
      num("shared_mem", a.sharedMemBytes);
      num("global_scratch", a.globalScratchBytes);
      num("profile_scratch", a.profileScratchBytes);
      if (!a.entryName.empty() && !isPlainIdentifier(a.entryName)) {
        error(ap + "/entry_name", "entry_name is not an identifier");
        ok = false;
      }
      config.artifacts = std::move(a);
    } else {
      ok = false;
    }
  }
  if (!ok)
    return std::nullopt;
  return config;
}

/// Hashes the spelling of a layout's fields (dtype, device, size, stride,
/// offset), or returns false where they are not a plain layout (missing,
/// mistyped): those take the checked path, which reports them.
bool Reader::layoutHash(const std::optional<Json> *fields, uint64_t &hash) {
  for (size_t k = 0; k < 4; ++k)
    if (!fields[k])
      return false;
  if (!fields[0]->is_string() || !fields[1]->is_string() || !fields[2]->is_array() ||
      !fields[3]->is_array())
    return false;
  auto mix = [](uint64_t h, uint64_t w) {
    h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
  };
  // Integers and expression strings hash apart, as they read apart;
  // integers by value, which is all that reading them depends on.
  auto scalar = [&](const Json &v, uint64_t &h) {
    Json::value_t type = v.type();
    if (type == Json::value_t::number_integer)
      h = mix(h, static_cast<uint64_t>(v.getInt()));
    else if (type == Json::value_t::string)
      h = mix(h, hashText(v.str()) + 1);
    else
      return false;
    return true;
  };
  uint64_t h = mix(hashText(fields[0]->str()), hashText(fields[1]->str()));
  for (size_t k = 2; k < 4; ++k) {
    const Json &list = *fields[k];
    size_t n = list.size();
    h = mix(h, n + (k << 32));
    for (size_t i = 0; i < n; ++i)
      if (!scalar(list[i], h))
        return false;
  }
  if (fields[4]) {
    if (!scalar(*fields[4], h))
      return false;
  } else {
    h = mix(h, 0x5A5A);
  }
  hash = h;
  return true;
}

/// True if \p fields (a layout layoutHash accepted) are spelled as \p cached's.
bool Reader::sameLayoutText(const std::optional<Json> *fields, const CachedLayout &cached) {
  auto same = [](const Json &a, const Json &b) {
    Json::value_t type = a.type();
    if (type != b.type())
      return false;
    if (type == Json::value_t::number_integer)
      return a.getInt() == b.getInt();
    return json::sameText(a.str(), b.str());
  };
  if (fields[4].has_value() != cached.hasOffset)
    return false;
  if (!json::sameText(fields[0]->str(), cached.fields[0].str()) ||
      !json::sameText(fields[1]->str(), cached.fields[1].str()))
    return false;
  for (size_t k = 2; k < 4; ++k) {
    const Json &a = *fields[k];
    const Json &b = cached.fields[k];
    size_t n = a.size();
    if (n != b.size())
      return false;
    for (size_t i = 0; i < n; ++i)
      if (!same(a[i], b[i]))
        return false;
  }
  return !cached.hasOffset || same(*fields[4], cached.fields[4]);
}

bool Reader::readLayout(const Json &object, const Ptr &pointer, std::string_view what,
                        const std::optional<Json> *fields, Layout &out) {
  // Graphs repeat a few layouts thousands of times: a spelling that was read
  // without a problem once reads the same again (expressions and hints are
  // fixed by then), so it is checked once.
  uint64_t hash = 0;
  bool keyed = layoutHash(fields, hash);
  for (const Reader *cache : {sharedLayouts, static_cast<const Reader *>(this)}) {
    if (!keyed || !cache)
      continue;
    auto indexed = cache->layoutIndex.find(hash);
    if (indexed == cache->layoutIndex.end())
      continue;
    for (uint32_t i = indexed->second; i != kNoLayout; i = cache->layoutCache[i].next)
      if (sameLayoutText(fields, cache->layoutCache[i])) {
        out = cache->layoutCache[i].layout;
        return true;
      }
  }
  size_t errorsBefore = diag.numErrors();
  std::optional<Layout> layout = readLayoutChecked(object, pointer, what);
  if (!layout)
    return false;
  if (keyed && diag.numErrors() == errorsBefore) {
    CachedLayout &cached = layoutCache.emplace_back();
    for (size_t k = 0; k < 5; ++k)
      if (fields[k])
        cached.fields[k] = *fields[k];
    cached.hasOffset = fields[4].has_value();
    cached.layout = *layout;
    uint32_t index = static_cast<uint32_t>(layoutCache.size() - 1);
    auto [slot, inserted] = layoutIndex.try_emplace(hash, index);
    cached.next = inserted ? kNoLayout : slot->second;
    slot->second = index;
  }
  out = std::move(*layout);
  return true;
}

std::optional<Layout> Reader::readLayoutChecked(const Json &object, const Ptr &pointer,
                                                std::string_view what) {
  Layout layout;
  std::optional<Json> dtype = field(object, pointer, "dtype", true, what);
  std::optional<Json> device = field(object, pointer, "device", true, what);
  std::optional<Json> size = field(object, pointer, "size", true, what);
  std::optional<Json> stride = field(object, pointer, "stride", true, what);
  if (!dtype || !device || !size || !stride)
    return std::nullopt;
  bool ok = true;
  if (auto d = getString(*dtype, pointer + "/dtype")) {
    if (auto parsed = parseDType(*d)) {
      layout.dtype = *parsed;
    } else {
      error(pointer + "/dtype",
                 fmt::format("unknown dtype '{}'; expected one of bool, uint8, int8, int16, "
                             "int32, int64, uint16, uint32, uint64, float16, bfloat16, float32, "
                             "float64, complex64, complex128, float8_e4m3fn, float8_e5m2",
                             printable(*d)));
      ok = false;
    }
  } else {
    ok = false;
  }
  if (auto d = getString(*device, pointer + "/device")) {
    if (auto parsed = parseDevice(*d)) {
      layout.device = *parsed;
    } else {
      error(pointer + "/device",
                 fmt::format("unknown device '{}'; expected 'cpu' or 'cuda:N'", printable(*d)));
      ok = false;
    }
  } else {
    ok = false;
  }
  bool sizes = getExprList(*size, pointer + "/size", "size", layout.size);
  bool strides = getExprList(*stride, pointer + "/stride", "stride", layout.stride);
  if (sizes && strides && layout.size.size() != layout.stride.size()) {
    error(pointer + "/stride", fmt::format("stride has {} entries but size has {}",
                                                layout.stride.size(), layout.size.size()));
    ok = false;
  }
  if (!sizes || !strides)
    ok = false;
  if (std::optional<Json> offset = field(object, pointer, "offset", false, what)) {
    auto o = getExpr(*offset, pointer + "/offset", "storage offset", true);
    if (o)
      layout.offset = *o;
    else
      ok = false;
  }
  if (!ok)
    return std::nullopt;
  checkLayoutBytes(layout, pointer);
  return layout;
}

/// The storage a layout spans must fit in int64 bytes at the size hints, or
/// every plan computed from it would be meaningless.
void Reader::checkLayoutBytes(const Layout &layout, const Ptr &pointer) {
  const sym::SymbolValues &hints = symbolHints();
  std::string why;
  // Bytes spanned = (offset + sum((size - 1) * stride) + 1) * itemsize, or 0
  // for an empty tensor; every step is overflow-checked.
  int64_t extent = 0;
  bool empty = false;
  bool overflow = false;
  for (size_t i = 0; i < layout.size.size(); ++i) {
    auto size = sym::evaluate(layout.size[i], hints, why);
    auto stride = size ? sym::evaluate(layout.stride[i], hints, why) : std::nullopt;
    if (!size || !stride) {
      error(pointer, fmt::format("cannot evaluate the layout at the size hints: {}", why));
      return;
    }
    if (*size < 0) {
      error(pointer.child("size").child(i),
                 fmt::format("size evaluates to {} at the size hints; sizes must not be negative",
                             *size));
      return;
    }
    if (*stride < 0) {
      error(pointer.child("stride").child(i),
                 fmt::format("stride evaluates to {} at the size hints; strides must not be "
                             "negative",
                             *stride));
      return;
    }
    if (*size == 0)
      empty = true;
    int64_t span = 0;
    overflow |= __builtin_mul_overflow(*size > 0 ? *size - 1 : 0, *stride, &span);
    overflow |= __builtin_add_overflow(extent, span, &extent);
  }
  auto offset = sym::evaluate(layout.offset, hints, why);
  if (!offset) {
    error(pointer, fmt::format("cannot evaluate the layout at the size hints: {}", why));
    return;
  }
  int64_t bytes = 0;
  if (!empty) {
    overflow |= __builtin_add_overflow(extent, *offset, &extent);
    overflow |= __builtin_add_overflow(extent, 1, &extent);
    overflow |= __builtin_mul_overflow(extent, static_cast<int64_t>(dtypeSize(layout.dtype)),
                                       &bytes);
  }
  if (overflow)
    error(pointer, "tensor storage size overflows int64 bytes at the size hints");
}

bool Reader::readView(const Json &value, const Ptr &pointer, View &view) {
  std::optional<Json> fields[4];
  if (!expectObject(value, pointer, kViewKeys, "a view", fields))
    return false;
  std::optional<Json> base = required(fields[0], pointer, "base", "a view");
  std::optional<Json> size = required(fields[1], pointer, "size", "a view");
  std::optional<Json> stride = required(fields[2], pointer, "stride", "a view");
  if (!base || !size || !stride)
    return false;
  auto b = getTensorName(*base, pointer + "/base", view.baseId);
  bool sizes = getExprList(*size, pointer + "/size", "size", view.size);
  bool strides = getExprList(*stride, pointer + "/stride", "stride", view.stride);
  if (!b || !sizes || !strides)
    return false;
  if (view.size.size() != view.stride.size()) {
    error(pointer + "/stride", fmt::format("stride has {} entries but size has {}",
                                                view.stride.size(), view.size.size()));
    return false;
  }
  if (const std::optional<Json> &offset = fields[3]) {
    auto o = getExpr(*offset, pointer + "/offset", "storage offset", true);
    if (!o)
      return false;
    view.offset = std::move(*o);
  }
  view.base = *b;
  return true;
}

bool Reader::readValue(const Json &value, const Ptr &pointer, unsigned depth, Value &out) {
  switch (value.type()) {
  case Json::value_t::null:
    out.kind = Value::Kind::None;
    return true;
  case Json::value_t::boolean:
    out.kind = Value::Kind::Bool;
    out.boolValue = value.get<bool>();
    return true;
  case Json::value_t::number_integer:
  case Json::value_t::number_unsigned: {
    auto v = getInt(value, pointer, std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max(), "integer");
    if (!v)
      return false;
    out.kind = Value::Kind::Int;
    out.intValue = *v;
    return true;
  }
  case Json::value_t::number_float:
    out.kind = Value::Kind::Float;
    out.floatValue = value.get<double>();
    return true;
  case Json::value_t::string: {
    auto s = getString(value, pointer);
    if (!s)
      return false;
    out.kind = Value::Kind::String;
    out.text = *s;
    return true;
  }
  case Json::value_t::array: {
    out.kind = Value::Kind::List;
    bool ok = true;
    size_t n = value.size();
    out.items.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      if (!readValue(value[i], child(pointer, i), depth + 1, out.items.emplace_back())) {
        out.items.pop_back();
        ok = false;
      }
    }
    return ok;
  }
  case Json::value_t::object:
    break;
  default:
    error(pointer, fmt::format("unexpected {}", typeName(value)));
    return false;
  }
  if (value.size() != 1) {
    error(pointer, "expected a value object with exactly one key: 'buffer', 'view', 'expr', "
                        "'dtype', 'device', 'float', 'complex', 'tuple' or 'list'");
    return false;
  }
  const json::Member item = value.member(0);
  std::string_view key = item.key();
  Ptr ip = child(pointer, key);
  if (key == "buffer") {
    auto name = getTensorName(item.value(), ip, out.tensor);
    if (!name)
      return false;
    out.kind = Value::Kind::Buffer;
    out.text = *name;
  } else if (key == "view") {
    View view;
    if (!readView(item.value(), ip, view))
      return false;
    out.kind = Value::Kind::View;
    out.view = std::move(view);
  } else if (key == "expr") {
    auto e = getExpr(item.value(), ip, "expression", false, /*floatValue=*/true);
    if (!e)
      return false;
    out.kind = Value::Kind::Expr;
    out.expr = std::move(*e);
  } else if (key == "dtype") {
    auto d = getString(item.value(), ip);
    if (!d)
      return false;
    auto parsed = parseDType(*d);
    if (!parsed) {
      error(ip, fmt::format("unknown dtype '{}'", printable(*d)));
      return false;
    }
    out.kind = Value::Kind::DType;
    out.dtype = *parsed;
  } else if (key == "device") {
    auto d = getString(item.value(), ip);
    if (!d)
      return false;
    auto parsed = parseDevice(*d);
    if (!parsed) {
      error(ip, fmt::format("unknown device '{}'; expected 'cpu' or 'cuda:N'", printable(*d)));
      return false;
    }
    out.kind = Value::Kind::Device;
    out.device = *parsed;
  } else if (key == "float") {
    auto f = readNonFinite(item.value(), ip);
    if (!f)
      return false;
    out.kind = Value::Kind::Float;
    out.floatValue = *f;
  } else if (key == "complex") {
    // [real, imaginary]: each a number, or a string for one JSON cannot spell.
    const Json &parts = item.value();
    if (!expectType(parts, ip, Json::value_t::array, "an array [real, imaginary]"))
      return false;
    if (parts.size() != 2) {
      error(ip, fmt::format("a complex number has 2 parts, [real, imaginary]; got {}",
                            parts.size()));
      return false;
    }
    double part[2];
    for (size_t i = 0; i < 2; ++i) {
      const Json &p = parts[i];
      Ptr pp = child(ip, i);
      std::optional<double> v;
      if (p.type() == Json::value_t::string)
        v = readNonFinite(p, pp);
      else if (p.is_number())
        v = p.get<double>();
      else
        error(pp, fmt::format("expected a number, 'inf', '-inf' or 'nan', got {}", typeName(p)));
      if (!v)
        return false;
      part[i] = *v;
    }
    out.setComplex(part[0], part[1]);
  } else if (key == "tuple" || key == "list") {
    if (!expectType(item.value(), ip, Json::value_t::array, "an array"))
      return false;
    if (!readValue(item.value(), ip, depth + 1, out))
      return false;
    out.kind = key == "tuple" ? Value::Kind::Tuple : Value::Kind::List;
  } else {
    error(ip, fmt::format("unknown value kind '{}'; expected 'buffer', 'view', 'expr', "
                               "'dtype', 'device', 'float', 'complex', 'tuple' or 'list'",
                               printable(key)));
    return false;
  }
  return true;
}

/// A number JSON cannot spell: "inf", "-inf" or "nan".
std::optional<double> Reader::readNonFinite(const Json &value, const Ptr &pointer) {
  auto f = getString(value, pointer);
  if (!f)
    return std::nullopt;
  if (*f == "inf")
    return std::numeric_limits<double>::infinity();
  if (*f == "-inf")
    return -std::numeric_limits<double>::infinity();
  if (*f == "nan")
    return std::numeric_limits<double>::quiet_NaN();
  error(pointer, fmt::format("unknown float '{}'; expected 'inf', '-inf' or 'nan' (finite "
                             "numbers are JSON numbers)",
                             printable(*f)));
  return std::nullopt;
}

/// Op names reach emitted code as dotted paths, so each segment must be an
/// identifier and the root one of the namespaces wrappers import.
std::optional<std::string_view> Reader::readOpName(const Json &value, const Ptr &pointer) {
  auto name = getString(value, pointer);
  if (!name)
    return std::nullopt;
  // Only the first two segments and the count matter beyond each being an
  // identifier.
  std::string_view first, second;
  size_t parts = 0;
  bool ok = true;
  std::string_view rest = *name;
  while (true) {
    size_t dot = rest.find('.');
    std::string_view part = rest.substr(0, dot);
    ok = ok && isPlainIdentifier(part);
    if (parts == 0)
      first = part;
    else if (parts == 1)
      second = part;
    ++parts;
    if (dot == std::string_view::npos)
      break;
    rest = rest.substr(dot + 1);
  }
  if (ok) {
    if (first == "extern_kernels")
      ok = parts == 2;
    else if (first == "aten")
      ok = parts == 2 || parts == 3;
    else if (first == "torch" && parts >= 2 && second == "ops")
      ok = parts == 4 || parts == 5;
    else
      ok = false;
  }
  if (!ok) {
    error(pointer, fmt::format("invalid op name '{}'; expected extern_kernels.NAME, "
                                    "aten.NAME[.OVERLOAD] or torch.ops.NAMESPACE.NAME[.OVERLOAD]",
                                    printable(*name)));
    return std::nullopt;
  }
  return name;
}

bool Reader::readKernelArg(const Json &value, const Ptr &pointer, KernelArg &arg) {
  std::optional<Json> fields[7];
  if (!expectObject(value, pointer, kArgKeys, "a kernel argument", fields))
    return false;
  std::optional<Json> role = required(fields[0], pointer, "role", "a kernel argument");
  if (!role)
    return false;
  auto r = getString(*role, pointer + "/role");
  if (!r)
    return false;
  static constexpr std::pair<std::string_view, ArgRole> kRoles[] = {
      {"input", ArgRole::Input},     {"output", ArgRole::Output}, {"in_out", ArgRole::InOut},
      {"removed", ArgRole::Removed}, {"size", ArgRole::Size},     {"scalar", ArgRole::Scalar}};
  bool known = false;
  for (auto [text, value2] : kRoles)
    if (json::sameText(text, *r)) {
      arg.role = value2;
      known = true;
    }
  if (!known) {
    error(pointer + "/role",
               fmt::format("unknown argument role '{}'; expected input, output, in_out, removed, "
                           "size or scalar",
                           printable(*r)));
    return false;
  }
  if (const std::optional<Json> &name = fields[1]) {
    auto n = getName(*name, pointer + "/name", "parameter");
    if (!n)
      return false;
    arg.name = *n;
  }
  const std::optional<Json> &buffer = fields[2];
  const std::optional<Json> &view = fields[3];
  const std::optional<Json> &result = fields[4];
  const std::optional<Json> &was = fields[5];
  const std::optional<Json> &scalar = fields[6];
  bool tensorRole = arg.role == ArgRole::Input || arg.role == ArgRole::Output ||
                    arg.role == ArgRole::InOut || arg.role == ArgRole::Removed;
  auto forbid = [&](const std::optional<Json> &present, const char *key,
                    std::string_view why) {
    if (present)
      error(child(pointer, key), fmt::format("field '{}' {}", key, why));
    return !present.has_value();
  };
  bool ok = true;
  if (tensorRole) {
    ok &= forbid(scalar, "value", "is only for size and scalar arguments");
    if (buffer && view) {
      error(pointer, "a kernel argument has either 'buffer' or 'view', not both");
      return false;
    }
    if (buffer) {
      auto b = getTensorName(*buffer, pointer + "/buffer", arg.bufferId);
      if (!b)
        return false;
      arg.buffer = *b;
    } else if (view && arg.role != ArgRole::Removed) {
      View v;
      if (!readView(*view, pointer + "/view", v))
        return false;
      arg.buffer = v.base;
      arg.bufferId = v.baseId;
      arg.view = std::move(v);
    } else {
      error(pointer, fmt::format("missing field 'buffer' in a kernel argument with role '{}'",
                                      argRoleName(arg.role)));
      return false;
    }
  } else {
    ok &= forbid(buffer, "buffer", "is only for tensor arguments");
    ok &= forbid(view, "view", "is only for tensor arguments");
    if (!scalar) {
      error(pointer, fmt::format("missing field 'value' in a kernel argument with role '{}'",
                                      argRoleName(arg.role)));
      return false;
    }
    std::optional<Value> v(std::in_place);
    if (!readValue(*scalar, pointer + "/value", 0, *v))
      return false;
    bool isScalar = v->kind == Value::Kind::Int || v->kind == Value::Kind::Float ||
                    v->kind == Value::Kind::Bool || v->kind == Value::Kind::Expr;
    if (!isScalar) {
      error(pointer + "/value", "expected an integer, number, boolean or {\"expr\": ...}");
      return false;
    }
    if (arg.role == ArgRole::Size && v->kind != Value::Kind::Expr && v->kind != Value::Kind::Int) {
      error(pointer + "/value", "a size argument must be an integer or {\"expr\": ...}");
      return false;
    }
    if (arg.role == ArgRole::Size && rejectFloat(*v, pointer + "/value", "a size argument"))
      return false;
    arg.value = std::move(*v);
  }
  if (arg.role == ArgRole::InOut) {
    if (result) {
      auto res = getTensorName(*result, pointer + "/result", arg.resultId);
      if (!res)
        return false;
      arg.result = *res;
    }
  } else {
    ok &= forbid(result, "result", "is only for in_out arguments");
  }
  if (arg.role == ArgRole::Removed) {
    if (was) {
      auto w = getString(*was, pointer + "/was");
      if (!w)
        return false;
      if (*w == "output")
        arg.removedRole = ArgRole::Output;
      else if (*w == "in_out")
        arg.removedRole = ArgRole::InOut;
      else if (*w == "input")
        arg.removedRole = ArgRole::Input;
      else {
        error(pointer + "/was", fmt::format("expected 'input', 'output' or 'in_out', got '{}'",
                                                 printable(*w)));
        return false;
      }
    }
  } else {
    ok &= forbid(was, "was", "is only for removed arguments");
  }
  return ok;
}

bool Reader::readNode(const Json &value, const Ptr &pointer, Node &node) {
  if (!value.is_object()) {
    error(pointer, fmt::format("expected a node (an object), got {}", typeName(value)));
    return false;
  }
  std::optional<Json> op = field(value, pointer, "op", true, "a node");
  if (!op)
    return false;
  auto kindText = getString(*op, pointer + "/op");
  if (!kindText)
    return false;
  const std::string_view kind = *kindText;
  auto is = [&](std::string_view name) { return json::sameText(kind, name); };

  auto readValues = [&](const std::optional<Json> &list, const Ptr &lp,
                        std::vector<Value> &out) -> bool {
    if (!list)
      return true;
    if (!expectType(*list, lp, Json::value_t::array, "an array of values"))
      return false;
    bool ok = true;
    size_t n = list->size();
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      if (!readValue((*list)[i], child(lp, i), 0, out.emplace_back())) {
        out.pop_back();
        ok = false;
      }
    }
    return ok;
  };
  auto readNameList = [&](const std::optional<Json> &list, const Ptr &lp,
                          std::vector<std::string> &out,
                          std::vector<uint32_t> *ids = nullptr) -> bool {
    if (!list)
      return true;
    if (!expectType(*list, lp, Json::value_t::array, "an array of buffer names"))
      return false;
    bool ok = true;
    for (size_t i = 0; i < list->size(); ++i) {
      uint32_t id = kNoTensor;
      auto n = ids ? getTensorName((*list)[i], child(lp, i), id)
                   : getName((*list)[i], child(lp, i), "buffer");
      if (n) {
        out.emplace_back(*n);
        if (ids)
          ids->push_back(id);
      } else {
        ok = false;
      }
    }
    return ok;
  };

  if (is("kernel_call")) {
    std::optional<Json> fields[6];
    if (!expectObject(value, pointer, kCallKeys, "a kernel_call node", fields))
      return false;
    KernelCallNode &call = node.body.emplace<KernelCallNode>();
    std::optional<Json> kernel = required(fields[1], pointer, "kernel", "a kernel_call node");
    std::optional<Json> args = required(fields[2], pointer, "args", "a kernel_call node");
    if (!kernel || !args)
      return false;
    auto k = getName(*kernel, pointer + "/kernel", "kernel");
    if (!k)
      return false;
    call.kernel = *k;
    bool ok = true;
    if (expectType(*args, pointer + "/args", Json::value_t::array, "an array of arguments")) {
      call.args.reserve(args->size());
      for (size_t i = 0; i < args->size(); ++i) {
        if (!readKernelArg((*args)[i], (pointer + "/args").child(i), call.args.emplace_back())) {
          call.args.pop_back();
          ok = false;
        }
      }
    } else {
      ok = false;
    }
    if (const std::optional<Json> &numels = fields[3]) {
      Ptr np = pointer + "/numels";
      if (expectType(*numels, np, Json::value_t::object, "an object of numels")) {
        static constexpr std::string_view kNumels[] = {"xnumel", "ynumel", "znumel", "r0_numel",
                                                       "r1_numel"};
        for (size_t m = 0, n = numels->size(); m < n; ++m) {
          json::Member item = numels->member(m);
          Ptr ip = child(np, item.key());
          if (std::find(std::begin(kNumels), std::end(kNumels), item.key()) ==
                  std::end(kNumels) &&
              !comboNumelPart(item.key())) {
            error(ip, fmt::format("unknown numel '{}'; expected xnumel, ynumel, znumel, "
                                       "r0_numel, r1_numel, or xnumel_N, ynumel_N (a combo "
                                       "kernel's N-th sub-kernel)",
                                       printable(item.key())));
            ok = false;
            continue;
          }
          auto e = getExpr(item.value(), ip, "numel", true);
          if (e)
            call.numels.emplace_back(std::string(item.key()), *e);
          else
            ok = false;
        }
      } else {
        ok = false;
      }
    }
    if (const std::optional<Json> &config = fields[4]) {
      auto c = getInt(*config, pointer + "/config", 0, std::numeric_limits<int32_t>::max(),
                      "config index");
      if (c)
        call.config = static_cast<unsigned>(*c);
      else
        ok = false;
    }
    if (const std::optional<Json> &grid = fields[5]) {
      auto g = getExprList(*grid, pointer + "/grid", "grid dimension");
      if (g && g->size() != 3) {
        error(pointer + "/grid", fmt::format("expected 3 grid dimensions, got {}", g->size()));
        g.reset();
      }
      if (g)
        call.grid = std::move(*g);
      else
        ok = false;
    }
    return ok;
  }

  if (is("extern_out") || is("extern_alloc") || is("fallback")) {
    bool isOut = is("extern_out");
    bool isFallback = is("fallback");
    std::string_view what = isOut        ? "a extern_out node"
                            : isFallback ? "a fallback node"
                                         : "a extern_alloc node";
    // Members by name: op, kernel, args, kwargs, result, out, mutated, schema.
    std::optional<Json> fields[8];
    if (isOut) {
      std::optional<Json> outFields[6];
      if (!expectObject(value, pointer, kExternOutKeys, what, outFields))
        return false;
      for (size_t k = 0; k < 4; ++k)
        fields[k] = outFields[k];
      fields[5] = outFields[4];
      fields[7] = outFields[5];
    } else if (!expectObject(value, pointer, kExternKeys, what, fields)) {
      return false;
    }
    ExternNode &ext = *node.body.emplace<Boxed<ExternNode>>();
    ext.fallback = isFallback;
    std::optional<Json> kernel = required(fields[1], pointer, "kernel", what);
    if (!kernel)
      return false;
    auto opName = readOpName(*kernel, pointer + "/kernel");
    bool ok = opName.has_value();
    if (opName)
      ext.op = *opName;
    // The op's schema as torch prints it; only --cpp-abi=aoti reads it, and
    // parses it there (it never reaches emitted code as text).
    if (const std::optional<Json> &schema = fields[7]) {
      if (auto text = getString(*schema, pointer + "/schema"))
        ext.schema = *text;
      else
        ok = false;
    }
    ok &= readValues(fields[2], pointer + "/args", ext.args);
    if (const std::optional<Json> &kwargs = fields[3]) {
      Ptr kp = pointer + "/kwargs";
      if (expectType(*kwargs, kp, Json::value_t::object, "an object of keyword arguments")) {
        for (size_t m = 0, n = kwargs->size(); m < n; ++m) {
          json::Member item = kwargs->member(m);
          Ptr ip = child(kp, item.key());
          if (!validKeywords.find(item.key())) {
            if (auto why = checkKeywordName(item.key())) {
              error(ip, fmt::format("keyword argument name '{}' {}", printable(item.key()),
                                    *why));
              ok = false;
              continue;
            }
            validKeywords.insert(item.key(), true);
          }
          if (item.key() == "out") {
            error(ip, "'out' is not a keyword argument here; use the node's 'out' field");
            ok = false;
            continue;
          }
          auto &[key, v] = ext.kwargs.emplace_back();
          if (readValue(item.value(), ip, 0, v)) {
            key = item.key();
          } else {
            ext.kwargs.pop_back();
            ok = false;
          }
        }
      } else {
        ok = false;
      }
    }
    std::optional<Json> out = isOut ? required(fields[5], pointer, "out", what) : fields[5];
    if (out && is("extern_alloc")) {
      error(pointer + "/out", "an extern_alloc node returns its result; use extern_out for "
                                   "an op that writes into 'out'");
      return false;
    }
    if (out) {
      auto v = readValue(*out, pointer + "/out", 0);
      if (v && v->kind != Value::Kind::Buffer && v->kind != Value::Kind::View) {
        error(pointer + "/out", "expected {\"buffer\": NAME} or {\"view\": ...}");
        v.reset();
      }
      if (v)
        ext.out = std::move(*v);
      else
        ok = false;
    }
    if (const std::optional<Json> &result = fields[4]) {
      auto r = getTensorName(*result, pointer + "/result", ext.resultId);
      if (r)
        ext.result = *r;
      else
        ok = false;
    }
    if (ext.out && ext.result) {
      error(pointer, "a node has either 'out' (writes a buffer) or 'result' (returns one), "
                          "not both");
      ok = false;
    }
    ok &= readNameList(fields[6], pointer + "/mutated", ext.mutated, &ext.mutatedIds);
    return ok;
  }

  if (is("multi_output")) {
    std::optional<Json> fields[4];
    if (!expectObject(value, pointer, kMultiOutputKeys, "a multi_output node", fields))
      return false;
    std::optional<Json> result = required(fields[1], pointer, "result", "a multi_output node");
    std::optional<Json> source = required(fields[2], pointer, "source", "a multi_output node");
    std::optional<Json> indices = required(fields[3], pointer, "indices", "a multi_output node");
    if (!result || !source || !indices)
      return false;
    MultiOutputNode &mo = node.body.emplace<MultiOutputNode>();
    auto r = getTensorName(*result, pointer + "/result", mo.resultId);
    auto s = getTensorName(*source, pointer + "/source", mo.sourceId);
    if (!r || !s)
      return false;
    mo.result = *r;
    mo.source = *s;
    Ptr ip = pointer + "/indices";
    if (!expectType(*indices, ip, Json::value_t::array, "an array of [container, index] pairs"))
      return false;
    bool ok = true;
    for (size_t i = 0; i < indices->size(); ++i) {
      const Json &step = (*indices)[i];
      Ptr sp = child(ip, i);
      if (!step.is_array() || step.size() != 2 || !step[0].is_string()) {
        error(sp, "expected a [container, index] pair such as [\"tuple\", 0]");
        ok = false;
        continue;
      }
      std::string_view container = step[0].str();
      if (container == "tuple" || container == "list") {
        auto index = getInt(step[1], child(sp, 1), 0, std::numeric_limits<int32_t>::max(),
                            "index");
        if (!index) {
          ok = false;
          continue;
        }
        mo.indices.emplace_back(container, std::to_string(*index));
      } else if (container == "dict") {
        auto key = getName(step[1], child(sp, 1), "dict key");
        if (!key) {
          ok = false;
          continue;
        }
        mo.indices.emplace_back(container, *key);
      } else {
        error(child(sp, 0), fmt::format("unknown container '{}'; expected tuple, list or "
                                             "dict",
                                             printable(container)));
        ok = false;
      }
    }
    // No index: the result is the source's value itself (a fallback op
    // that returns one tensor, which Inductor still unpacks).
    return ok;
  }

  if (is("assert_size_stride")) {
    std::optional<Json> fields[5];
    if (!expectObject(value, pointer, kAssertKeys, "an assert_size_stride node", fields))
      return false;
    std::optional<Json> buffer =
        required(fields[1], pointer, "buffer", "an assert_size_stride node");
    std::optional<Json> size = required(fields[2], pointer, "size", "an assert_size_stride node");
    std::optional<Json> stride =
        required(fields[3], pointer, "stride", "an assert_size_stride node");
    if (!buffer || !size || !stride)
      return false;
    AssertSizeStrideNode &as = *node.body.emplace<Boxed<AssertSizeStrideNode>>();
    auto b = getTensorName(*buffer, pointer + "/buffer", as.bufferId);
    bool sizes = getExprList(*size, pointer + "/size", "size", as.size);
    bool strides = getExprList(*stride, pointer + "/stride", "stride", as.stride);
    if (!b || !sizes || !strides)
      return false;
    if (as.size.size() != as.stride.size()) {
      error(pointer + "/stride", fmt::format("stride has {} entries but size has {}",
                                                  as.stride.size(), as.size.size()));
      return false;
    }
    as.buffer = *b;
    if (const std::optional<Json> &what = fields[4]) {
      auto w = getString(*what, pointer + "/what");
      if (!w)
        return false;
      as.what = *w;
    }
    return true;
  }

  if (is("device_guard_enter")) {
    if (!expectObject(value, pointer, kGuardEnterKeys, "a device_guard_enter node"))
      return false;
    std::optional<Json> device = field(value, pointer, "device", true, "a device_guard_enter node");
    if (!device)
      return false;
    auto index = getInt(*device, pointer + "/device", 0, 1023, "device index");
    if (!index)
      return false;
    node.body = DeviceGuardEnterNode{static_cast<int>(*index)};
    return true;
  }
  if (is("device_guard_exit")) {
    if (!expectObject(value, pointer, kGuardExitKeys, "a device_guard_exit node"))
      return false;
    node.body = DeviceGuardExitNode{};
    return true;
  }
  if (is("comment")) {
    std::optional<Json> fields[2];
    if (!expectObject(value, pointer, kCommentKeys, "a comment node", fields))
      return false;
    std::optional<Json> text = required(fields[1], pointer, "text", "a comment node");
    if (!text)
      return false;
    auto t = getString(*text, pointer + "/text");
    if (!t)
      return false;
    node.body.emplace<CommentNode>().text = *t;
    return true;
  }
  if (is("cond")) {
    if (!expectObject(value, pointer,
                      {"op", "predicate", "true_graph", "false_graph", "operands", "results",
                       "result"},
                      "a cond node"))
      return false;
    std::optional<Json> pred = field(value, pointer, "predicate", true, "a cond node");
    std::optional<Json> trueGraph = field(value, pointer, "true_graph", true, "a cond node");
    std::optional<Json> falseGraph = field(value, pointer, "false_graph", true, "a cond node");
    if (!pred || !trueGraph || !falseGraph)
      return false;
    CondNode cond;
    // A comparison of sizes, {"compare": {"lhs", "cmp", "rhs"}}, several
    // joined ({"all": [...]}, {"any": [...]}), or a value.
    Ptr pp = pointer + "/predicate";
    std::optional<Value> p;
    std::string_view join =
        pred->is_object() && pred->size() == 1 ? pred->member(0).key() : std::string_view();
    if (join == "compare" || join == "all" || join == "any") {
      const char *what = "a size comparison";
      const Json &terms = pred->member(0).value();
      Ptr jp = pp.child(join);
      cond.compare.emplace().any = join == "any";
      auto readTerm = [&](const Json &term, const Ptr &tp) {
        std::optional<Json> fields[3];
        return expectObject(term, tp, {"lhs", "cmp", "rhs"}, what, fields) &&
               readComparison(tp, what, fields, cond.compare->terms.emplace_back());
      };
      if (join == "compare") {
        if (!readTerm(terms, jp))
          return false;
      } else {
        if (!expectType(terms, jp, Json::value_t::array, "an array of size comparisons"))
          return false;
        if (terms.size() == 0) {
          error(jp, fmt::format("'{}' joins no comparisons; expected at least one", join));
          return false;
        }
        bool ok = true;
        for (size_t i = 0; i < terms.size(); ++i)
          ok &= readTerm(terms[i], child(jp, i));
        if (!ok)
          return false;
      }
      p.emplace();
    } else {
      p = readValue(*pred, pp, 0);
    }
    auto t = getName(*trueGraph, pointer + "/true_graph", "subgraph");
    auto f = getName(*falseGraph, pointer + "/false_graph", "subgraph");
    if (!p || !t || !f)
      return false;
    cond.predicate = std::move(*p);
    cond.trueGraph = *t;
    cond.falseGraph = *f;
    bool ok = readValues(field(value, pointer, "operands", false, "a cond node"),
                         pointer + "/operands", cond.operands);
    ok &= !rejectFloats(cond.operands, pointer + "/operands");
    ok &= !rejectFloat(cond.predicate, pointer + "/predicate", "a cond node's predicate");
    ok &= readNameList(field(value, pointer, "results", false, "a cond node"),
                       pointer + "/results", cond.results);
    if (std::optional<Json> result = field(value, pointer, "result", false, "a cond node")) {
      auto r = getName(*result, pointer + "/result", "buffer");
      if (r)
        cond.result = *r;
      else
        ok = false;
      if (!cond.results.empty()) {
        error(pointer, "a cond node has either 'results' or 'result' (a tuple buffer), "
                            "not both");
        ok = false;
      }
    }
    if (!ok)
      return false;
    node.body.emplace<Boxed<CondNode>>(std::move(cond));
    return true;
  }
  if (is("while_loop")) {
    const char *what = "a while_loop node";
    if (!expectObject(value, pointer,
                      {"op", "cond_graph", "body_graph", "carried", "additional", "result"}, what))
      return false;
    std::optional<Json> condGraph = field(value, pointer, "cond_graph", true, what);
    std::optional<Json> bodyGraph = field(value, pointer, "body_graph", true, what);
    std::optional<Json> result = field(value, pointer, "result", true, what);
    if (!condGraph || !bodyGraph || !result)
      return false;
    WhileLoopNode loop;
    auto c = getName(*condGraph, pointer + "/cond_graph", "subgraph");
    auto b = getName(*bodyGraph, pointer + "/body_graph", "subgraph");
    auto r = getName(*result, pointer + "/result", "buffer");
    if (!c || !b || !r)
      return false;
    loop.condGraph = *c;
    loop.bodyGraph = *b;
    loop.result = *r;
    bool ok = readValues(field(value, pointer, "carried", false, what), pointer + "/carried",
                         loop.carried);
    ok &= readValues(field(value, pointer, "additional", false, what), pointer + "/additional",
                     loop.additional);
    ok &= !rejectFloats(loop.carried, pointer + "/carried");
    ok &= !rejectFloats(loop.additional, pointer + "/additional");
    if (!ok)
      return false;
    node.body.emplace<Boxed<WhileLoopNode>>(std::move(loop));
    return true;
  }
  if (is("invoke_subgraph")) {
    const char *what = "an invoke_subgraph node";
    if (!expectObject(value, pointer, {"op", "subgraph", "operands", "result"}, what))
      return false;
    std::optional<Json> graph = field(value, pointer, "subgraph", true, what);
    std::optional<Json> result = field(value, pointer, "result", true, what);
    if (!graph || !result)
      return false;
    InvokeSubgraphNode invoke;
    auto g = getName(*graph, pointer + "/subgraph", "subgraph");
    auto r = getName(*result, pointer + "/result", "buffer");
    if (!g || !r)
      return false;
    invoke.graph = *g;
    invoke.result = *r;
    if (!readValues(field(value, pointer, "operands", false, what), pointer + "/operands",
                    invoke.operands) ||
        rejectFloats(invoke.operands, pointer + "/operands"))
      return false;
    node.body.emplace<Boxed<InvokeSubgraphNode>>(std::move(invoke));
    return true;
  }
  if (is("bind_symbol"))
    return readBindSymbol(value, pointer, node);
  if (is("assert_scalar"))
    return readAssertScalar(value, pointer, node);
  // Nodes of one tensor: zero and assert_finite.
  auto readOneBuffer = [&]<typename T>(const char *what) {
    std::optional<Json> fields[2];
    if (!expectObject(value, pointer, kOneBufferKeys, what, fields))
      return false;
    std::optional<Json> buffer = required(fields[1], pointer, "buffer", what);
    if (!buffer)
      return false;
    T &one = node.body.emplace<T>();
    auto b = getTensorName(*buffer, pointer + "/buffer", one.bufferId);
    if (!b)
      return false;
    one.buffer = *b;
    return true;
  };
  if (is("zero"))
    return readOneBuffer.operator()<ZeroNode>("a zero node");
  if (is("assert_finite"))
    return readOneBuffer.operator()<AssertFiniteNode>("an assert_finite node");
  error(pointer + "/op",
             fmt::format("unknown node op '{}'; expected kernel_call, extern_out, extern_alloc, "
                         "fallback, multi_output, assert_size_stride, device_guard_enter, "
                         "device_guard_exit, comment, cond, while_loop, invoke_subgraph, "
                         "bind_symbol, assert_scalar, zero or assert_finite",
                         printable(kind)));
  return false;
}

bool Reader::readBindSymbol(const Json &value, const Ptr &pointer, Node &node) {
  const char *what = "a bind_symbol node";
  std::optional<Json> fields[7];
  if (!expectObject(value, pointer, {"op", "symbol", "tensor", "index", "read", "dim", "expr"},
                    what, fields))
    return false;
  std::optional<Json> symbol = required(fields[1], pointer, "symbol", what);
  std::optional<Json> read = required(fields[4], pointer, "read", what);
  if (!symbol || !read)
    return false;
  BindSymbolNode bind;
  auto name = getName(*symbol, pointer + "/symbol", "symbol");
  auto kind = getString(*read, pointer + "/read");
  if (!name || !kind)
    return false;
  bind.symbol = *name;
  if (*kind == "expr") {
    // An expression of symbols bound before: no tensor is read.
    std::optional<Json> expr = required(fields[6], pointer, "expr", what);
    if (!expr)
      return false;
    for (auto [k, key] : {std::pair<size_t, const char *>{2, "tensor"}, {3, "index"}, {5, "dim"}})
      if (fields[k]) {
        error(child(pointer, key), fmt::format("'{}' is not for an expression read", key));
        return false;
      }
    auto e = getExpr(*expr, pointer + "/expr", "expression", false);
    if (!e)
      return false;
    bind.expr = std::move(*e);
    bind.read = BindSymbolNode::Read::Expr;
    node.body.emplace<Boxed<BindSymbolNode>>(std::move(bind));
    return true;
  }
  if (fields[6]) {
    error(pointer + "/expr", fmt::format("'expr' is only for an expression read, not {}", *kind));
    return false;
  }
  std::optional<Json> tensor = required(fields[2], pointer, "tensor", what);
  if (!tensor || !readValue(*tensor, pointer + "/tensor", 0, bind.tensor))
    return false;
  if (bind.tensor.kind != Value::Kind::Buffer && bind.tensor.kind != Value::Kind::View) {
    error(pointer + "/tensor", "expected a tensor: a 'buffer' or 'view' value");
    return false;
  }
  using Read = BindSymbolNode::Read;
  if (*kind == "size")
    bind.read = Read::Size;
  else if (*kind == "stride")
    bind.read = Read::Stride;
  else if (*kind == "storage_offset")
    bind.read = Read::StorageOffset;
  else if (*kind == "item")
    bind.read = Read::Item;
  else {
    error(pointer + "/read", fmt::format("unknown read '{}'; expected size, stride, "
                                         "storage_offset, item or expr",
                                         printable(*kind)));
    return false;
  }
  const bool perDim = bind.read == Read::Size || bind.read == Read::Stride;
  if (perDim != fields[5].has_value()) {
    error(perDim ? pointer : pointer + "/dim",
          perDim ? fmt::format("missing field 'dim' in {} reading a {}", what, *kind)
                 : fmt::format("'dim' is only for a size or stride read, not {}", *kind));
    return false;
  }
  if (perDim) {
    auto d = getInt(*fields[5], pointer + "/dim", 0, static_cast<int64_t>(limits.maxRank) - 1, "dimension");
    if (!d)
      return false;
    bind.dim = static_cast<unsigned>(*d);
  }
  if (const std::optional<Json> &index = fields[3]) {
    const Ptr ip = pointer + "/index";
    if (!expectType(*index, ip, Json::value_t::array, "an array of item indices"))
      return false;
    if (bind.tensor.kind != Value::Kind::Buffer) {
      error(ip, "an index selects items of a tuple buffer; the tensor is a view");
      return false;
    }
    for (size_t i = 0; i < index->size(); ++i) {
      auto item = getInt((*index)[i], child(ip, i), 0, UINT32_MAX, "item index");
      if (!item)
        return false;
      bind.index.push_back(static_cast<uint32_t>(*item));
    }
  }
  node.body.emplace<Boxed<BindSymbolNode>>(std::move(bind));
  return true;
}

bool Reader::readComparison(const Ptr &pointer, std::string_view what,
                            std::optional<Json> *fields, SizeComparison &out) {
  // fields: lhs, cmp, rhs, as expectObject found them.
  std::optional<Json> lhs = required(fields[0], pointer, "lhs", what);
  std::optional<Json> cmp = required(fields[1], pointer, "cmp", what);
  std::optional<Json> rhs = required(fields[2], pointer, "rhs", what);
  if (!lhs || !cmp || !rhs)
    return false;
  auto l = getExpr(*lhs, pointer + "/lhs", "expression", false);
  auto r = getExpr(*rhs, pointer + "/rhs", "expression", false);
  auto c = getString(*cmp, pointer + "/cmp");
  if (!l || !r || !c)
    return false;
  out.lhs = std::move(*l);
  out.rhs = std::move(*r);
  for (Compare k : {Compare::EQ, Compare::NE, Compare::LT, Compare::LE, Compare::GT,
                    Compare::GE})
    if (compareSpelling(k) == *c) {
      out.cmp = k;
      return true;
    }
  error(pointer + "/cmp", fmt::format("unknown comparison '{}'; expected ==, !=, <, <=, > "
                                      "or >=",
                                      printable(*c)));
  return false;
}

bool Reader::readAssertScalar(const Json &value, const Ptr &pointer, Node &node) {
  const char *what = "an assert_scalar node";
  std::optional<Json> fields[5];
  if (!expectObject(value, pointer, {"op", "lhs", "cmp", "rhs", "message"}, what, fields))
    return false;
  AssertScalarNode check;
  if (!readComparison(pointer, what, fields + 1, check.condition))
    return false;
  if (const std::optional<Json> &message = fields[4]) {
    auto m = getString(*message, pointer + "/message");
    if (!m)
      return false;
    check.message = *m;
  }
  node.body.emplace<Boxed<AssertScalarNode>>(std::move(check));
  return true;
}

bool Reader::readNodes(const Json &nodes, const Ptr &np, size_t begin, size_t end, Node *out,
                       size_t &count, size_t &unreported) {
  // Every node keeps its pointer: spelled from one prefix and its index.
  std::string spelled = np.str() + '/';
  const size_t prefix = spelled.size();
  bool ok = true;
  for (size_t i = begin; i < end; ++i) {
    char digits[24];
    char *last = std::to_chars(digits, digits + sizeof digits, i).ptr;
    spelled.resize(prefix);
    spelled.append(digits, last);
    Node &node = out[count++];
    node.pointer = spelled;
    Json value = nodes[i];
    if (!readNode(value, child(np, i), node)) {
      node = Node();
      --count;
      ok = false;
    }
    // Nodes are most of a large document and are read in order: the text
    // behind this one is read.
    if (readUpTo && (unreported == SIZE_MAX || i % 16384 == 16383) && value.is_object() &&
        value.size() > 0) {
      const char *key = value.member(0).key().data();
      if (key >= source.data() && key < source.data() + source.size()) {
        size_t offset = static_cast<size_t>(key - source.data());
        if (unreported != SIZE_MAX && offset > unreported)
          readUpTo(unreported, offset);
        // From the start, the report covers all the text before, every time:
        // looking names up reads their spellings there, which brings pages
        // back.
        if (unreported != 0)
          unreported = offset;
      }
    }
  }
  return ok;
}

template <typename T> void Reader::makeSlots(std::vector<T> &table, size_t size) {
  // The second core has nothing to do yet: it faults a large table's pages
  // in ahead of the slots being made.
  if (limits.threads >= 2 && size - table.size() >= kPopulateNodesFrom) {
    table.reserve(size);
    PagePopulator populator(size_t(32) << 20);
    while (table.size() < size) {
      populator.report(0, table.data(), table.size() * sizeof(T), table.capacity() * sizeof(T));
      table.resize(std::min(table.size() + 8192, size));
    }
  } else {
    table.resize(size);
  }
}

template <typename Read>
bool Reader::readQuietlyInParts(size_t threads,
                                const std::function<void(size_t, size_t)> &report, Read &&read) {
  // Each thread reads one contiguous part, with diagnostics of its own. Any
  // diagnostic sends the table back to be read by this thread alone: the
  // document then gets the same diagnostics in the same order as without
  // threads, and only a bad graph pays for reading twice.
  struct Part {
    DiagnosticEngine diag;
    bool ok = false;
  };
  std::vector<Part> parts(threads);
  runParts(threads, [&](size_t t) {
    Reader reader(*this, parts[t].diag, report);
    parts[t].ok = read(reader, t);
  });
  return std::all_of(parts.begin(), parts.end(), [](const Part &part) {
    return part.ok && part.diag.diagnostics().empty();
  });
}

void Reader::readAllNodes(const Json &nodes, const Ptr &np, std::vector<Node> &out) {
  const size_t n = nodes.size();
  const size_t base = out.size();
  const size_t perThread = std::max<size_t>(limits.minNodesPerThread, 1);
  const size_t threads = std::min<size_t>(limits.threads, n / perThread);
  // Read in place: every node's slot exists before any thread starts.
  if (threads >= 2)
    makeSlots(out, base + n);
  else
    out.resize(base + n);
  auto readAlone = [&] {
    size_t count = base;
    // The first node's text is where the unread text begins: what comes
    // before the nodes is read by now.
    size_t unreported = 0;
    readNodes(nodes, np, 0, n, out.data(), count, unreported);
    out.resize(count);
  };
  if (threads < 2) {
    readAlone();
    return;
  }
  bool quiet = readQuietlyInParts(threads, readUpTo, [&](Reader &reader, size_t t) {
    size_t begin = n * t / threads, end = n * (t + 1) / threads;
    size_t count = base + begin;
    size_t unreported = t == 0 ? 0 : SIZE_MAX;
    return reader.readNodes(nodes, np, begin, end, out.data(), count, unreported);
  });
  if (!quiet) {
    out.resize(base);
    out.resize(base + n);
    readAlone();
  }
}

bool Reader::readBuffer(const Json &b, const Ptr &p, Buffer &buffer, std::string_view &spelled) {
  std::optional<Json> fields[10];
  if (!expectObject(b, p, kBufferKeys, "a buffer", fields))
    return false;
  std::optional<Json> name = required(fields[0], p, "name", "a buffer");
  if (!name)
    return false;
  auto n = getDefinedName(*name, p + "/name", "buffer");
  if (!n)
    return false;
  buffer.name = *n;
  spelled = *n;
  if (const std::optional<Json> &removed = fields[7]) {
    if (!expectType(*removed, p + "/removed", Json::value_t::boolean, "a boolean"))
      return false;
    buffer.removed = removed->get<bool>();
  }
  if (const std::optional<Json> &tuple = fields[8]) {
    if (!expectType(*tuple, p + "/tuple", Json::value_t::boolean, "a boolean"))
      return false;
    buffer.isTuple = tuple->get<bool>();
  }
  if (const std::optional<Json> &aliases = fields[9]) {
    if (!expectType(*aliases, p + "/aliases_input", Json::value_t::boolean, "a boolean"))
      return false;
    buffer.aliasesInput = aliases->get<bool>();
    if (buffer.aliasesInput && (buffer.isTuple || buffer.removed || fields[6])) {
      error(p + "/aliases_input", "'aliases_input' is for a tensor an op returns, not a "
                                  "tuple, removed or view_of buffer");
      return false;
    }
  }
  if (buffer.isTuple) {
    bool clean = true;
    for (const char *key : {"dtype", "device", "size", "stride", "offset", "view_of",
                            "removed"})
      if (b.contains(key)) {
        error(child(p, key), fmt::format("field '{}' is not allowed in a tuple buffer",
                                              key));
        clean = false;
      }
    if (!clean)
      return false;
  } else {
    if (!readLayout(b, p, "a buffer", fields + 1, buffer.layout))
      return false;
  }
  if (const std::optional<Json> &viewOf = fields[6]) {
    auto base = getName(*viewOf, p + "/view_of", "buffer");
    if (!base)
      return false;
    buffer.viewOf = *base;
  }
  return true;
}

bool Reader::readGraph(const Json &object, const Ptr &pointer, Graph &graph,
                       bool topLevel) {
  if (!topLevel && !expectObject(object, pointer,
                                 {"name", "inputs", "constants", "buffers", "nodes", "outputs"},
                                 "a subgraph"))
    return false;
  std::string what = topLevel ? "a graph document" : "a subgraph";
  if (std::optional<Json> name = field(object, pointer, "name", !topLevel, what)) {
    if (auto n = getName(*name, pointer + "/name", "graph"))
      graph.name = *n;
  } else if (topLevel) {
    graph.name = "graph";
  }
  std::optional<Json> inputs = field(object, pointer, "inputs", false, what);
  std::optional<Json> constants = field(object, pointer, "constants", false, what);
  std::optional<Json> buffers = field(object, pointer, "buffers", false, what);
  auto sizeOf = [](const std::optional<Json> &list) { return list ? list->size() : 0; };
  // Tensor and scalar names are per graph; the same name may appear in a
  // subgraph and in the main graph, as Inductor's buf0 does.
  NameMap<NameSite> names(sizeOf(inputs) + sizeOf(constants) + sizeOf(buffers) + 16,
                          /*counted=*/true);
  for (const auto &[name, site] : symbolSites)
    names.insert(name, site);
  std::set<std::string> symbolInputs;
  const uint32_t graphBase = siteBase(graph.pointer);
  auto site = [&](NameTable table, size_t index) {
    return NameSite{graphBase, table, static_cast<uint32_t>(index)};
  };
  // Tensors are numbered in the order they are kept: every input (symbol
  // ones too), then constants, then buffers.
  auto tensorSite = [&](NameTable table, size_t index, size_t tensor) {
    NameSite s = site(table, index);
    s.tensor = static_cast<uint32_t>(tensor);
    return s;
  };

  if (inputs) {
    Ptr ip = pointer + "/inputs";
    if (expectType(*inputs, ip, Json::value_t::array, "an array of inputs")) {
      graph.inputs.reserve(inputs->size());
      for (size_t i = 0; i < inputs->size(); ++i) {
        Ptr p = child(ip, i);
        const Json &in = (*inputs)[i];
        std::optional<Json> fields[8];
        if (!expectObject(in, p, kInputKeys, "an input", fields))
          continue;
        Input input;
        std::optional<Json> name = required(fields[0], p, "name", "an input");
        if (!name)
          continue;
        auto n = getDefinedName(*name, p + "/name", "input");
        if (!n)
          continue;
        input.name = *n;
        std::string_view kindText = "tensor";
        if (const std::optional<Json> &kind = fields[1]) {
          auto k = getString(*kind, p + "/kind");
          if (!k)
            continue;
          kindText = *k;
        }
        if (kindText == "tensor") {
          input.kind = InputKind::Tensor;
          if (!readLayout(in, p, "a tensor input", fields + 2, input.layout))
            continue;
          if (const std::optional<Json> &mutated = fields[7]) {
            if (!expectType(*mutated, p + "/mutated", Json::value_t::boolean, "a boolean"))
              continue;
            input.mutated = mutated->get<bool>();
          }
        } else if (kindText == "symbol") {
          input.kind = InputKind::Symbol;
          for (const char *key : {"dtype", "device", "size", "stride", "offset", "mutated"})
            if (in.contains(key))
              error(child(p, key), fmt::format("field '{}' is not allowed in a symbol input",
                                                    key));
          if (!symbolNames.count(input.name)) {
            error(p + "/name", fmt::format("symbol input '{}' is not declared in /symbols",
                                                input.name));
            continue;
          }
          if (!symbolInputs.insert(input.name).second) {
            error(p + "/name", fmt::format("symbol '{}' is an input twice", input.name));
            continue;
          }
          graph.inputs.push_back(std::move(input));
          continue;
        } else if (kindText == "scalar") {
          input.kind = InputKind::Scalar;
          for (const char *key : {"device", "size", "stride", "offset", "mutated"})
            if (in.contains(key))
              error(child(p, key), fmt::format("field '{}' is not allowed in a scalar input",
                                                    key));
          std::optional<Json> dtype = field(in, p, "dtype", true, "a scalar input");
          if (!dtype)
            continue;
          auto d = getString(*dtype, p + "/dtype");
          if (!d)
            continue;
          if (*d == "int64")
            input.dtype = DType::Int64;
          else if (*d == "float64")
            input.dtype = DType::Float64;
          else if (*d == "bool")
            input.dtype = DType::Bool;
          else {
            error(p + "/dtype", fmt::format("scalar input dtype '{}' is not one of int64, "
                                                 "float64, bool",
                                                 printable(*d)));
            continue;
          }
        } else {
          error(p + "/kind", fmt::format("unknown input kind '{}'; expected tensor, symbol "
                                              "or scalar",
                                              printable(kindText)));
          continue;
        }
        if (!claimName(*n, p + "/name", names,
                       tensorSite(NameTable::Inputs, i, graph.inputs.size())))
          continue;
        graph.inputs.push_back(std::move(input));
      }
    }
  }

  if (constants) {
    Ptr cp = pointer + "/constants";
    if (expectType(*constants, cp, Json::value_t::array, "an array of constants")) {
      graph.constants.reserve(constants->size());
      for (size_t i = 0; i < constants->size(); ++i) {
        Ptr p = child(cp, i);
        const Json &c = (*constants)[i];
        std::optional<Json> fields[6];
        if (!expectObject(c, p, kConstantKeys, "a constant", fields))
          continue;
        std::optional<Json> name = required(fields[0], p, "name", "a constant");
        if (!name)
          continue;
        auto n = getDefinedName(*name, p + "/name", "constant");
        Layout layout;
        bool hasLayout = readLayout(c, p, "a constant", fields + 1, layout);
        if (!n || !hasLayout ||
            !claimName(*n, p + "/name", names,
                       tensorSite(NameTable::Constants, i,
                                  graph.inputs.size() + graph.constants.size())))
          continue;
        graph.constants.push_back({std::string(*n), std::move(layout)});
      }
    }
  }

  if (buffers) {
    Ptr bp = pointer + "/buffers";
    if (expectType(*buffers, bp, Json::value_t::array, "an array of buffers")) {
      const size_t n = buffers->size();
      const size_t tensorBase = graph.inputs.size() + graph.constants.size();
      // Reads buffers from \p from on, claiming each name after reading it.
      auto readAlone = [&](size_t from) {
        // The second core has nothing to do yet: it faults the buffer
        // table's pages in ahead of the reading.
        std::optional<PagePopulator> populator;
        if (limits.threads > 1 && n - from >= kPopulateBuffersFrom)
          populator.emplace(size_t(32) << 20);
        for (size_t i = from; i < n; ++i) {
          if (populator && i % 4096 == 0) {
            populator->report(0, graph.buffers.data(), graph.buffers.size() * sizeof(Buffer),
                              graph.buffers.capacity() * sizeof(Buffer));
          }
          Ptr p = child(bp, i);
          std::string_view spelled;
          if (!readBuffer((*buffers)[i], p, graph.buffers.emplace_back(), spelled) ||
              !claimName(spelled, p + "/name", names,
                         tensorSite(NameTable::Buffers, i,
                                    tensorBase + graph.buffers.size() - 1)))
            graph.buffers.pop_back();
        }
      };
      graph.buffers.reserve(n);
      const size_t threads =
          limits.threads < kPartsFromThreads
              ? 1
              : std::min<size_t>(limits.threads, n / std::max<size_t>(limits.minNodesPerThread, 1));
      if (threads < 2) {
        readAlone(0);
      } else {
        // The records are read in parts, on threads, with diagnostics of
        // their own; names are then claimed here, in order. Anything to
        // report sends the table back to this thread alone, from its start
        // or from the first name taken twice, so that diagnostics come as
        // they would without threads.
        makeSlots(graph.buffers, n);
        std::vector<std::string_view> spelled(n);
        static const std::function<void(size_t, size_t)> kNoReport;
        bool quiet = readQuietlyInParts(threads, kNoReport, [&](Reader &reader, size_t t) {
          bool ok = true;
          for (size_t i = n * t / threads, end = n * (t + 1) / threads; i < end; ++i)
            ok &= reader.readBuffer((*buffers)[i], child(bp, i), graph.buffers[i], spelled[i]);
          return ok;
        });
        if (!quiet) {
          graph.buffers.clear();
          readAlone(0);
        } else {
          for (size_t i = 0; i < n; ++i) {
            Ptr p = child(bp, i);
            if (!claimName(spelled[i], p + "/name", names,
                           tensorSite(NameTable::Buffers, i, tensorBase + i))) {
              graph.buffers.resize(i);
              readAlone(i + 1);
              break;
            }
          }
        }
      }
      // A view may name a later buffer: resolved once all are known.
      for (Buffer &buffer : graph.buffers)
        if (buffer.viewOf)
          if (const NameSite *base = names.find(*buffer.viewOf))
            buffer.viewOfId = base->tensor;
    }
  }

  if (topLevel)
    finishStep("read:tables");
  // References in nodes and outputs resolve against this graph's tensors.
  graphNames = &names;
  if (std::optional<Json> nodes = field(object, pointer, "nodes", false, what)) {
    Ptr np = pointer + "/nodes";
    if (expectType(*nodes, np, Json::value_t::array, "an array of nodes")) {
      // Checked before any node is read, so an oversized graph fails fast
      // instead of exhausting memory.
      nodeCount += nodes->size();
      if (nodeCount > limits.maxNodes) {
        error(np, fmt::format("the document has more than {} nodes, the limit (--max-nodes)",
                              limits.maxNodes));
        graphNames = nullptr;
        return false;
      }
      readAllNodes(*nodes, np, graph.nodes);
    }
  }

  if (std::optional<Json> outputs = field(object, pointer, "outputs", true, what)) {
    Ptr op = pointer + "/outputs";
    if (expectType(*outputs, op, Json::value_t::array, "an array of output values")) {
      for (size_t i = 0; i < outputs->size(); ++i) {
        auto v = readValue((*outputs)[i], child(op, i), 0);
        if (!v)
          continue;
        bool allowed = v->kind == Value::Kind::Buffer || v->kind == Value::Kind::View ||
                       v->kind == Value::Kind::Expr || v->kind == Value::Kind::None ||
                       v->kind == Value::Kind::Int;
        if (!allowed) {
          error(child(op, i), "an output is {\"buffer\": ...}, {\"view\": ...}, "
                                   "{\"expr\": ...}, an integer or null");
          continue;
        }
        // A subgraph's outputs become its caller's buffers and symbols.
        if (!topLevel && rejectFloat(*v, child(op, i), "a subgraph's output"))
          continue;
        graph.outputs.push_back(std::move(*v));
      }
    }
  }
  graphNames = nullptr;
  return true;
}

/// Walks one graph's nodes in order, tracking which tensors are defined, and
/// checks every reference against the graph's tables.
/// The rest of a bind_symbol node's checks: out of line, as most graphs
/// have none (checkGraph's loop stays as small as it was without them).
[[gnu::cold]] void Reader::checkBindSymbol(const BindSymbolNode &bind, const Ptr &p,
                                           bool indexOk, std::optional<DType> itemDType,
                                           std::set<std::string, std::less<>> &bound) {
  // .item() binds an integer symbol from an integer or bool tensor, a float
  // symbol from a floating-point one.
  const bool floatSymbol = floatSymbols.count(bind.symbol) != 0;
  if (floatSymbol && bind.read != BindSymbolNode::Read::Item)
    error(p + "/read", fmt::format("float symbol '{}' is bound by an item read only",
                                   bind.symbol));
  else if (floatSymbol && itemDType &&
           (isIntegral(*itemDType) || *itemDType == DType::Complex64 ||
            *itemDType == DType::Complex128))
    error(p + "/tensor", fmt::format("an item read binding float symbol '{}' reads a "
                                     "floating-point tensor, not {}",
                                     bind.symbol, dtypeName(*itemDType)));
  else if (!floatSymbol && itemDType && !isIntegral(*itemDType))
    error(p + "/tensor", "an item read binds an integer: expected an integer or bool tensor "
                         "(a float symbol, declared \"dtype\": \"float64\", binds a float)");
  if (!indexOk)
    error(p + "/index", fmt::format("'{}' is not a tuple buffer; an index selects items of one",
                                    bind.tensor.text));
  const Symbol *symbol = nullptr;
  for (const Symbol &s : doc->main.symbols)
    if (s.name == bind.symbol)
      symbol = &s;
  if (!symbol)
    error(p + "/symbol", fmt::format("unknown symbol '{}'; declare it in /symbols with "
                                     "\"unbacked\": true",
                                     bind.symbol));
  else if (!symbol->unbacked)
    error(p + "/symbol", fmt::format("symbol '{}' is not unbacked; only symbols declared "
                                     "\"unbacked\": true are bound by bind_symbol",
                                     bind.symbol));
  else if (!bound.insert(bind.symbol).second)
    error(p + "/symbol", fmt::format("symbol '{}' is bound twice", bind.symbol));
}

void Reader::checkGraph(Graph &graph) {
  // Every input (symbol ones too), constant and buffer has an id, its index
  // as the reader resolved references to it (Graph.h's kNoTensor), and the
  // tables below are vectors indexed by it. A reference the reader left
  // unresolved names no tensor of this graph; it is looked up by name all
  // the same, in a table built the first time one is needed.
  const size_t errorsBefore = diag.numErrors();
  const size_t tensorCount = graph.inputs.size() + graph.constants.size() + graph.buffers.size();
  const size_t firstConstant = graph.inputs.size();
  const size_t firstBuffer = firstConstant + graph.constants.size();
  std::vector<TensorInfo> infos;
  infos.reserve(tensorCount);
  for (size_t i = 0; i < graph.inputs.size(); ++i)
    infos.push_back(TensorInfo{TensorKind::Input, i});
  for (size_t i = 0; i < graph.constants.size(); ++i)
    infos.push_back(TensorInfo{TensorKind::Constant, i});
  for (size_t i = 0; i < graph.buffers.size(); ++i)
    infos.push_back(TensorInfo{TensorKind::Buffer, i});
  auto nameOf = [&](uint32_t t) -> const std::string & {
    return t >= firstBuffer     ? graph.buffers[t - firstBuffer].name
           : t >= firstConstant ? graph.constants[t - firstConstant].name
                                : graph.inputs[t].name;
  };
  std::optional<NameMap<uint32_t>> tensors;
  auto resolveTensor = [&](std::string_view name, uint32_t id) -> const TensorInfo * {
    if (id != kNoTensor)
      return &infos[id];
    if (name.empty()) // a scalar argument's (names are identifiers)
      return nullptr;
    if (!tensors) {
      tensors.emplace(tensorCount);
      for (uint32_t t = 0; t < tensorCount; ++t)
        if (t >= firstConstant || graph.inputs[t].kind != InputKind::Symbol)
          tensors->insert(nameOf(t), t);
    }
    const uint32_t *t = tensors->find(name);
    return t ? &infos[*t] : nullptr;
  };
  auto idOf = [&](const TensorInfo *info) { return static_cast<uint32_t>(info - infos.data()); };
  const Ptr graphPtr(graph.pointer);
  const Ptr bufferPtr = graphPtr + "/buffers";

  // Named views: the base must be an owning tensor of this graph with the
  // same dtype and device.
  for (size_t i = 0; i < graph.buffers.size(); ++i) {
    Buffer &buffer = graph.buffers[i];
    if (!buffer.viewOf)
      continue;
    Ptr row = child(bufferPtr, i);
    Ptr p = row + "/view_of";
    const TensorInfo *it = resolveTensor(*buffer.viewOf, buffer.viewOfId);
    if (!it) {
      error(p, fmt::format("unknown buffer '{}'", *buffer.viewOf));
      continue;
    }
    if (it->kind == TensorKind::Buffer) {
      const Buffer &base = graph.buffers[it->index];
      if (base.viewOf) {
        error(p, fmt::format("'{}' is itself a view; a view's base must own its storage",
                                  base.name));
        continue;
      }
      if (base.isTuple) {
        error(p, fmt::format("'{}' is a tuple buffer and cannot have views", base.name));
        continue;
      }
      if (base.removed || buffer.removed) {
        error(p, "removed buffers cannot be views or have views");
        continue;
      }
    }
    const Layout &baseLayout = it->kind == TensorKind::Buffer
                                   ? graph.buffers[it->index].layout
                               : it->kind == TensorKind::Input
                                   ? graph.inputs[it->index].layout
                                   : graph.constants[it->index].layout;
    if (baseLayout.dtype != buffer.layout.dtype || !(baseLayout.device == buffer.layout.device))
      error(p, fmt::format("view '{}' and its base '{}' differ in dtype or device",
                                buffer.name, *buffer.viewOf));
  }

  // The storage each tensor defines: its own, or a named view's base. A base
  // that names no tensor (reported above) still gets an id past the
  // tensors', shared by the views that name it, so the definition state
  // below stays per name.
  constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> baseId(infos.size());
  for (uint32_t t = 0; t < infos.size(); ++t)
    baseId[t] = t;
  NameMap<uint32_t> unknownBases;
  uint32_t idCount = static_cast<uint32_t>(infos.size());
  for (uint32_t t = 0; t < infos.size(); ++t) {
    if (infos[t].kind != TensorKind::Buffer || !graph.buffers[infos[t].index].viewOf)
      continue;
    const std::string &base = *graph.buffers[infos[t].index].viewOf;
    if (const TensorInfo *info = resolveTensor(base, graph.buffers[infos[t].index].viewOfId)) {
      baseId[t] = idOf(info);
    } else {
      auto [id, inserted] = unknownBases.insert(base, idCount);
      idCount += inserted;
      baseId[t] = *id;
    }
  }

  // Definition state of every name, with where it was defined (an index in
  // `definitions`, kNone while undefined).
  std::vector<SavedPtr> definitions;
  definitions.reserve(idCount); // each name is defined once at most
  std::vector<uint32_t> definedAt(idCount, kNone);
  auto isDefined = [&](uint32_t t) { return definedAt[t] != kNone; };
  auto markDefined = [&](uint32_t t, const Ptr &pointer) {
    definedAt[t] = static_cast<uint32_t>(definitions.size());
    definitions.emplace_back(pointer);
  };
  const Ptr inputsPtr = graphPtr + "/inputs";
  const Ptr constantsPtr = graphPtr + "/constants";
  for (uint32_t t = 0; t < firstConstant; ++t)
    if (graph.inputs[t].kind != InputKind::Symbol)
      markDefined(t, inputsPtr);
  for (uint32_t t = firstConstant; t < firstBuffer; ++t)
    markDefined(t, constantsPtr);

  // An in-place result takes over its input's storage: the old name is dead.
  std::vector<uint32_t> renamedTo(infos.size(), kNone);
  std::set<std::string, std::less<>> boundSymbols; // by bind_symbol nodes

  // A large graph's nodes are checked in parts, on threads, in two walks:
  // the first records where each name is first defined (or renamed), the
  // second checks every use and definition against those positions. Either
  // walk only notes that something would be reported; then, or where a node
  // needs state the walks do not keep, the graph is walked again on this
  // thread, which reports as before. Positions order events as the walk on
  // one thread meets them: a node's index in the high bits, its events in
  // the low bits.
  constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
  std::vector<uint64_t> firstMark;   // a definition of the name or of a view of it
  std::vector<uint64_t> firstRename; // an in-place kernel renaming it
  auto earliest = [](uint64_t &slot, uint64_t at) {
    std::atomic_ref<uint64_t> ref(slot);
    uint64_t seen = ref.load(std::memory_order_relaxed);
    while (at < seen && !ref.compare_exchange_weak(seen, at, std::memory_order_relaxed)) {
    }
  };
  auto nodePosition = [](size_t index) { return (uint64_t(index) + 1) << 32; };
  struct Walk {
    enum Mode { Alone, Record, Check } mode;
    uint64_t pos = 0;
    bool doubt = false;  ///< something would be reported, or needs Alone
    int guardDepth = 0;  ///< device guards open, from the part's start
    int guardLowest = 0; ///< the fewest open at any point of the part
  };

  auto walk = [&](Walk &w, size_t begin, size_t end) {
    const bool alone = w.mode == Walk::Alone;
    // In parts, what would be reported only casts doubt on the parts.
    auto error = [&](const Ptr &pointer, std::string message) {
      if (alone)
        this->error(pointer, std::move(message));
      else
        w.doubt = true;
    };
    // A reference by name alone builds a table on first use: not in parts.
    auto findTensor = [&](std::string_view name, uint32_t id) -> const TensorInfo * {
      if (!alone && id == kNoTensor && !name.empty()) {
        w.doubt = true;
        return nullptr;
      }
      return resolveTensor(name, id);
    };
    auto lookup = [&](const std::string &name, uint32_t id,
                      const Ptr &pointer) -> const TensorInfo * {
      const TensorInfo *info = findTensor(name, id);
      if (!info)
        error(pointer, fmt::format("unknown buffer '{}'", name));
      return info;
    };
    auto isRemoved = [&](const TensorInfo &info) {
      return info.kind == TensorKind::Buffer && graph.buffers[info.index].removed;
    };
    auto isTuple = [&](const std::string &name, uint32_t id) {
      const TensorInfo *info = findTensor(name, id);
      return info && info->kind == TensorKind::Buffer && graph.buffers[info->index].isTuple;
    };
    // A tuple buffer may only be returned by an op, unpacked, or returned from
    // the graph; anything else needs one tensor.
    auto rejectTuple = [&](const std::string &name, uint32_t id, const Ptr &pointer) {
      if (!isTuple(name, id))
        return false;
      error(pointer, fmt::format("buffer '{}' is a tuple of tensors; unpack it with a "
                                      "multi_output node first",
                                      name));
      return true;
    };
    auto renamed = [&](const std::string &name, uint32_t t, const Ptr &pointer) {
      if (!alone) {
        if (w.mode == Walk::Check && firstRename[t] < w.pos) {
          w.doubt = true;
          return true;
        }
        return false;
      }
      if (renamedTo[t] == kNone)
        return false;
      error(pointer, fmt::format("buffer '{}' is used after an in-place kernel renamed it to "
                                      "'{}'; use the new name",
                                      name, nameOf(renamedTo[t])));
      return true;
    };
    auto use = [&](const std::string &name, uint32_t id, const Ptr &pointer) {
      ++w.pos;
      if (w.mode == Walk::Record)
        return;
      const TensorInfo *info = lookup(name, id, pointer);
      if (!info)
        return;
      uint32_t t = idOf(info);
      if (renamed(name, t, pointer))
        return;
      if (isRemoved(*info)) {
        error(pointer, fmt::format("buffer '{}' was removed by fusion and cannot be used",
                                        name));
        return;
      }
      if (alone ? !isDefined(t) && !isDefined(baseId[t])
                : firstMark[t] >= w.pos && firstMark[baseId[t]] >= w.pos)
        error(pointer, fmt::format("buffer '{}' is used before it is defined", name));
    };
    auto define = [&](const std::string &name, uint32_t id, const Ptr &pointer,
                      bool overwrite) {
      ++w.pos;
      const TensorInfo *info = lookup(name, id, pointer);
      if (!info)
        return;
      uint32_t t = idOf(info);
      if (renamed(name, t, pointer))
        return;
      if (isRemoved(*info)) {
        error(pointer, fmt::format("buffer '{}' was removed by fusion and cannot be written",
                                        name));
        return;
      }
      if (info->kind == TensorKind::Constant) {
        error(pointer, fmt::format("constant '{}' cannot be written", name));
        return;
      }
      if (info->kind == TensorKind::Input && !graph.inputs[info->index].mutated) {
        error(pointer, fmt::format("input '{}' is written but not marked \"mutated\": true",
                                        name));
        return;
      }
      uint32_t base = baseId[t];
      if (!alone) {
        if (w.mode == Walk::Record) {
          earliest(firstMark[t], w.pos);
          if (base != t)
            earliest(firstMark[base], w.pos);
        } else if (!overwrite && firstMark[t] < w.pos) {
          w.doubt = true;
        }
        return;
      }
      if (!isDefined(t))
        markDefined(t, pointer);
      else if (!overwrite)
        error(pointer, fmt::format("buffer '{}' is defined twice; first at {}", name,
                                        definitions[definedAt[t]].str()));
      if (base != t && !isDefined(base))
        markDefined(base, pointer);
    };
    auto useValue = [&](const Value &value, const Ptr &pointer, auto &self) -> void {
      switch (value.kind) {
      case Value::Kind::Buffer:
        use(value.text, value.tensor, pointer + "/buffer");
        break;
      case Value::Kind::View:
        use(value.view->base, value.view->baseId, pointer + "/view/base");
        break;
      case Value::Kind::List:
      case Value::Kind::Tuple:
        for (size_t i = 0; i < value.items.size(); ++i)
          self(value.items[i], child(pointer, i), self);
        break;
      default:
        break;
      }
    };

    // cond, while_loop and invoke_subgraph: the subgraph a node calls, or null
    // after a diagnostic. Calls through other subgraphs are checked once every
    // graph is read (orderSubgraphs).
    auto calledSubgraph = [&](const std::string &name, const Ptr &pointer) -> const Graph * {
      const Graph *sub = doc->findSubgraph(name);
      if (!sub)
        error(pointer, fmt::format("unknown subgraph '{}'", name));
      else if (sub == &graph)
        error(pointer, fmt::format("subgraph '{}' calls itself", name));
      else
        return sub;
      return nullptr;
    };
    // What a call passes to a subgraph's inputs from \p first on: a size
    // symbol takes an integer or expression, a tensor never does (unless
    // \p tensorsChecked: the caller has said so already).
    auto checkOperandKinds = [&](const Graph &sub, const std::vector<Value> &values, size_t first,
                                 const Ptr &table, bool tensorsChecked = false) {
      for (size_t i = 0; i < values.size() && first + i < sub.inputs.size(); ++i) {
        const Input &input = sub.inputs[first + i];
        const Value::Kind kind = values[i].kind;
        const bool integer = kind == Value::Kind::Int || kind == Value::Kind::Expr;
        if (input.kind == InputKind::Symbol && !integer)
          error(table.child(i),
                fmt::format("input '{}' of subgraph '{}' is a size symbol; expected "
                            "an integer or {{\"expr\": ...}}",
                            input.name, sub.name));
        else if (input.kind == InputKind::Tensor && integer && !tensorsChecked)
          error(table.child(i), fmt::format("input '{}' of subgraph '{}' is a tensor; expected "
                                            "{{\"buffer\": ...}} or {{\"view\": ...}}",
                                            input.name, sub.name));
      }
    };
    auto defineTupleResult = [&](const std::string &name, const Ptr &pointer, std::string_view op) {
      if (!isTuple(name, kNoTensor))
        error(pointer, fmt::format("{} result '{}' is not a tuple buffer (\"tuple\": true)", op,
                                   name));
      define(name, kNoTensor, pointer, false);
    };

    for (size_t index = begin; index < end; ++index) {
      if (w.doubt)
        return;
      Node &node = graph.nodes[index];
      w.pos = nodePosition(index);
      const Ptr p(node.pointer);
      const Ptr argTable = p + "/args";
      if (auto *call = std::get_if<KernelCallNode>(&node.body)) {
        const uint32_t *kernelId = kernelIndex.find(call->kernel);
        const Kernel *kernel = kernelId ? &doc->kernels[*kernelId] : nullptr;
        if (!kernel) {
          error(p + "/kernel", fmt::format("unknown kernel '{}'; expected the name of an entry "
                                                "in /kernels",
                                                call->kernel));
          continue;
        }
        if (!kernel->configs.empty() && call->config >= kernel->configs.size())
          error(p + "/config", fmt::format("config index {} is out of range; kernel '{}' has "
                                                "{} configs",
                                                call->config, kernel->name,
                                                kernel->configs.size()));
        if (kernel->language == KernelLanguage::Cpp) {
          // A function call: its arguments are its parameters, in order.
          if (!call->numels.empty())
            error(p + "/numels", fmt::format("a call of cpp kernel '{}' has no numels",
                                             kernel->name));
          if (call->grid)
            error(p + "/grid", fmt::format("a call of cpp kernel '{}' has no grid",
                                           kernel->name));
          if (call->args.size() != kernel->signature.size())
            error(p + "/args",
                  fmt::format("cpp kernel '{}' takes {} arguments; the call passes {}",
                              kernel->name, kernel->signature.size(), call->args.size()));
          for (size_t a = 0; a < call->args.size(); ++a)
            if (const Ptr ap = child(argTable, a); call->args[a].role == ArgRole::Removed)
              error(ap + "/role",
                    fmt::format("a call of cpp kernel '{}' passes every argument; role "
                                "'removed' is for Triton kernels",
                                kernel->name));
        }
        if (kernel->language == KernelLanguage::Triton) {
          if (kernel->gridType == GridType::FixedGrid && !call->grid)
            error(p, fmt::format("missing field 'grid' in a call of FixedGrid kernel '{}'",
                                      kernel->name));
          if (kernel->gridType != GridType::FixedGrid && call->grid)
            error(p + "/grid", "a call carries a grid only for kernels with grid_type "
                                    "FixedGrid");
        }
        // A sub-kernel's numel is passed only where its combo kernel leaves it
        // to the launch (null in combo_grid).
        for (const auto &[numel, value] : call->numels) {
          auto part = comboNumelPart(numel);
          if (!part)
            continue;
          const ComboGrid *combo = kernel->combo ? &*kernel->combo : nullptr;
          const ComboGrid::Part *sub =
              combo && part->second < combo->parts.size() ? &combo->parts[part->second] : nullptr;
          const char dim = part->first;
          const bool exists = sub && (dim == 'x' || sub->hasY);
          const bool fixed = exists && (dim == 'x' ? sub->xnumel : sub->ynumel).has_value();
          const Ptr numels = p + "/numels";
          if (!combo)
            error(child(numels, numel),
                  fmt::format("numel '{}' is for combo kernels; kernel '{}' has grid type {}",
                              numel, kernel->name, gridTypeName(kernel->gridType)));
          else if (!sub)
            error(child(numels, numel),
                  fmt::format("numel '{}' names sub-kernel {}; combo kernel '{}' has {}", numel,
                              part->second, kernel->name, combo->parts.size()));
          else if (!exists)
            error(child(numels, numel),
                  fmt::format("sub-kernel {} of combo kernel '{}' has no {} dimension",
                              part->second, kernel->name, dim));
          else if (fixed)
            error(child(numels, numel),
                  fmt::format("combo kernel '{}' fixes its sub-kernel {}'s {}numel; a launch "
                              "does not pass '{}'",
                              kernel->name, part->second, dim, numel));
        }
        // A handful of numels: compare pairs rather than build a set per call.
        for (size_t i = 0; i < call->numels.size(); ++i)
          for (size_t j = 0; j < i; ++j)
            if (call->numels[j].first == call->numels[i].first) {
              error(p + "/numels", fmt::format("numel '{}' appears twice", call->numels[i].first));
              break;
            }
        // Reads happen before writes within one launch.
        // An argument that a later `removed` entry names was removed by fusion:
        // it is never passed, so it neither reads nor defines anything.
        auto removedLater = [&](size_t i) {
          const KernelArg &arg = call->args[i];
          for (size_t j = i + 1; j < call->args.size(); ++j)
            if (call->args[j].role == ArgRole::Removed &&
                (call->args[j].buffer == arg.buffer ||
                 (!arg.result.empty() && call->args[j].buffer == arg.result)))
              return true;
          return false;
        };
        // A C++ kernel runs its loops in order, so it may read what an
        // earlier loop of the same call wrote: a cat's output, written
        // through views of it and then reduced. Such an input is defined by
        // the call (its storage is an output's).
        auto writtenByCall = [&](const KernelArg &in) {
          if (kernel->language != KernelLanguage::Cpp)
            return false;
          const TensorInfo *info = resolveTensor(in.buffer, in.bufferId);
          if (!info)
            return false;
          const uint32_t storage = baseId[idOf(info)];
          return std::any_of(call->args.begin(), call->args.end(), [&](const KernelArg &out) {
            if (out.role != ArgRole::Output && out.role != ArgRole::InOut)
              return false;
            const TensorInfo *written = resolveTensor(out.buffer, out.bufferId);
            return written && baseId[idOf(written)] == storage;
          });
        };
        for (size_t i = 0; i < call->args.size(); ++i) {
          const KernelArg &arg = call->args[i];
          Ptr ap = child(argTable, i);
          if (arg.role != ArgRole::Removed && removedLater(i))
            continue;
          if (arg.role != ArgRole::Size && arg.role != ArgRole::Scalar &&
              rejectTuple(arg.buffer, arg.bufferId, ap + (arg.view ? "/view/base" : "/buffer")))
            continue;
          if (arg.role == ArgRole::Input && !writtenByCall(arg))
            use(arg.buffer, arg.bufferId, ap + (arg.view ? "/view/base" : "/buffer"));
          // Inductor hands a fused kernel an in_out buffer it allocated just
          // before, which the kernel fills and then updates in place: an
          // in_out argument may define an intermediate. Inputs and constants
          // must already hold data.
          if (arg.role == ArgRole::InOut) {
            const TensorInfo *info = lookup(arg.buffer, arg.bufferId, ap + "/buffer");
            if (info && info->kind != TensorKind::Buffer)
              use(arg.buffer, arg.bufferId, ap + (arg.view ? "/view/base" : "/buffer"));
          }
          if (arg.role == ArgRole::Removed) {
            const TensorInfo *info = lookup(arg.buffer, arg.bufferId, ap + "/buffer");
            if (info && !isRemoved(*info))
              error(ap + "/buffer",
                         fmt::format("argument has role 'removed' but buffer '{}' is not marked "
                                     "\"removed\": true",
                                     arg.buffer));
          }
        }
        for (size_t i = 0; i < call->args.size(); ++i) {
          const KernelArg &arg = call->args[i];
          Ptr ap = child(argTable, i);
          if (isTuple(arg.buffer, arg.bufferId) ||
              (arg.role != ArgRole::Removed && removedLater(i)))
            continue;
          if (arg.role == ArgRole::Output)
            define(arg.buffer, arg.bufferId, ap + (arg.view ? "/view/base" : "/buffer"), true);
          if (arg.role == ArgRole::InOut) {
            define(arg.buffer, arg.bufferId, ap + "/buffer", true);
            if (!arg.result.empty()) {
              const TensorInfo *in = lookup(arg.buffer, arg.bufferId, ap + "/buffer");
              const TensorInfo *out = lookup(arg.result, arg.resultId, ap + "/result");
              // Inductor reuses dead intermediates and donated inputs (a
              // backward graph's saved activations) in place; never constants.
              if (in && out && out->kind != TensorKind::Buffer)
                error(ap + "/result", fmt::format("'{}' is not a buffer", arg.result));
              else if (in && out && in->kind == TensorKind::Constant)
                error(ap + "/buffer",
                           fmt::format("constant '{}' cannot be reused in place", arg.buffer));
              else if (in && out) {
                const Layout &a = in->kind == TensorKind::Buffer ? graph.buffers[in->index].layout
                                                                 : graph.inputs[in->index].layout;
                const Layout &b = graph.buffers[out->index].layout;
                if (a.dtype != b.dtype || !(a.device == b.device))
                  error(ap + "/result",
                        fmt::format("in-place result '{}' differs from '{}' in dtype or device",
                                         arg.result, arg.buffer));
                define(arg.result, arg.resultId, ap + "/result", false);
                if (alone) {
                  if (renamedTo[idOf(in)] == kNone)
                    renamedTo[idOf(in)] = idOf(out);
                } else if (++w.pos; w.mode == Walk::Record) {
                  earliest(firstRename[idOf(in)], w.pos);
                }
              }
            }
          }
        }
      } else if (auto *boxedExt = std::get_if<Boxed<ExternNode>>(&node.body)) {
        const ExternNode *ext = &**boxedExt;
        for (size_t i = 0; i < ext->args.size(); ++i)
          useValue(ext->args[i], (p + "/args").child(i), useValue);
        for (const auto &[key, value] : ext->kwargs)
          useValue(value, (p + "/kwargs").child(key), useValue);
        for (size_t i = 0; i < ext->mutated.size(); ++i) {
          uint32_t id = i < ext->mutatedIds.size() ? ext->mutatedIds[i] : kNoTensor;
          use(ext->mutated[i], id, (p + "/mutated").child(i));
          define(ext->mutated[i], id, (p + "/mutated").child(i), true);
        }
        if (ext->out) {
          bool isView = ext->out->kind == Value::Kind::View;
          const std::string &name = isView ? ext->out->view->base : ext->out->text;
          uint32_t id = isView ? ext->out->view->baseId : ext->out->tensor;
          if (!rejectTuple(name, id, p + "/out"))
            define(name, id, p + "/out", true);
        }
        if (ext->result)
          define(*ext->result, ext->resultId, p + "/result", false);
      } else if (auto *mo = std::get_if<MultiOutputNode>(&node.body)) {
        use(mo->source, mo->sourceId, p + "/source");
        if (!isTuple(mo->source, mo->sourceId))
          error(p + "/source", fmt::format("multi_output source '{}' is not a tuple buffer "
                                                "(\"tuple\": true)",
                                                mo->source));
        define(mo->result, mo->resultId, p + "/result", false);
      } else if (auto *boxed = std::get_if<Boxed<AssertSizeStrideNode>>(&node.body)) {
        const AssertSizeStrideNode &as = *boxed;
        if (!rejectTuple(as.buffer, as.bufferId, p + "/buffer"))
          use(as.buffer, as.bufferId, p + "/buffer");
      } else if (const auto *finite = std::get_if<AssertFiniteNode>(&node.body)) {
        if (!rejectTuple(finite->buffer, finite->bufferId, p + "/buffer"))
          use(finite->buffer, finite->bufferId, p + "/buffer");
      } else if (const auto *zero = std::get_if<ZeroNode>(&node.body)) {
        // The whole storage of a buffer of its own: the C++ wrapper clears
        // the bytes the layout spans, which for a view or an input would
        // reach memory that is not the node's to clear.
        const Ptr bp = p + "/buffer";
        const TensorInfo *info = findTensor(zero->buffer, zero->bufferId);
        if (info && info->kind != TensorKind::Buffer)
          error(bp, fmt::format("zero fills an intermediate buffer; '{}' is {}", zero->buffer,
                                info->kind == TensorKind::Input ? "an input" : "a constant"));
        else if (info && graph.buffers[info->index].viewOf)
          error(bp, fmt::format("zero fills a buffer of its own; '{}' is a view of '{}'",
                                zero->buffer, *graph.buffers[info->index].viewOf));
        else if (!rejectTuple(zero->buffer, zero->bufferId, bp))
          define(zero->buffer, zero->bufferId, bp, true);
      } else if (std::holds_alternative<DeviceGuardEnterNode>(node.body)) {
        ++w.guardDepth;
      } else if (std::holds_alternative<DeviceGuardExitNode>(node.body)) {
        w.guardLowest = std::min(w.guardLowest, --w.guardDepth);
        if (alone && w.guardDepth < 0) {
          error(p, "device_guard_exit without a matching device_guard_enter");
          w.guardDepth = 0;
        }
      } else if (auto *boxedCond = std::get_if<Boxed<CondNode>>(&node.body)) {
        const CondNode *cond = &**boxedCond;
        useValue(cond->predicate, p + "/predicate", useValue);
        for (size_t i = 0; i < cond->operands.size(); ++i)
          useValue(cond->operands[i], (p + "/operands").child(i), useValue);
        for (const std::string *name : {&cond->trueGraph, &cond->falseGraph}) {
          Ptr gp = p + (name == &cond->trueGraph ? "/true_graph" : "/false_graph");
          const Graph *sub = calledSubgraph(*name, gp);
          if (!sub)
            continue;
          if (sub->inputs.size() != cond->operands.size())
            error(gp, fmt::format("subgraph '{}' takes {} inputs but the cond passes {}",
                                       *name, sub->inputs.size(), cond->operands.size()));
          else
            checkOperandKinds(*sub, cond->operands, 0, p + "/operands");
          if (cond->result.empty() && sub->outputs.size() != cond->results.size())
            error(gp, fmt::format("subgraph '{}' returns {} outputs but the cond has {} results",
                                       *name, sub->outputs.size(), cond->results.size()));
        }
        for (size_t i = 0; i < cond->results.size(); ++i)
          define(cond->results[i], kNoTensor, (p + "/results").child(i), false);
        if (!cond->result.empty())
          defineTupleResult(cond->result, p + "/result", "cond");
      } else if (auto *boxedLoop = std::get_if<Boxed<WhileLoopNode>>(&node.body)) {
        const WhileLoopNode *loop = &**boxedLoop;
        if (loop->carried.empty())
          error(p, "a while_loop carries no values; expected at least one tensor in 'carried'");
        const Ptr carriedTable = p + "/carried";
        for (size_t i = 0; i < loop->carried.size(); ++i) {
          const Value &v = loop->carried[i];
          const Ptr vp = carriedTable.child(i);
          if (v.kind != Value::Kind::Buffer && v.kind != Value::Kind::View)
            error(vp, "a carried value must be a tensor ({\"buffer\": ...} or {\"view\": ...})");
          else if (v.kind == Value::Kind::Buffer &&
                   !rejectTuple(v.text, v.tensor, vp + "/buffer")) {
            useValue(v, vp, useValue);
            const TensorInfo *info = findTensor(v.text, v.tensor);
            if (info && info->kind == TensorKind::Input &&
                graph.inputs[info->index].kind != InputKind::Tensor)
              error(vp + "/buffer", fmt::format("carried value '{}' is not a tensor", v.text));
          }
          else if (v.kind == Value::Kind::View)
            useValue(v, vp, useValue);
        }
        for (size_t i = 0; i < loop->additional.size(); ++i)
          useValue(loop->additional[i], (p + "/additional").child(i), useValue);
        // Both subgraphs take the carried values, then the additional ones;
        // the cond returns the predicate, the body the next carried values.
        const size_t inputs = loop->carried.size() + loop->additional.size();
        auto checkLoopOperands = [&](const Graph &sub) {
          checkOperandKinds(sub, loop->carried, 0, carriedTable, /*tensorsChecked=*/true);
          checkOperandKinds(sub, loop->additional, loop->carried.size(), p + "/additional");
        };
        if (const Graph *sub = calledSubgraph(loop->condGraph, p + "/cond_graph")) {
          if (sub->inputs.size() != inputs)
            error(p + "/cond_graph",
                  fmt::format("subgraph '{}' takes {} inputs but the while_loop passes {}",
                              loop->condGraph, sub->inputs.size(), inputs));
          else
            checkLoopOperands(*sub);
          if (sub->outputs.size() != 1)
            error(p + "/cond_graph",
                  fmt::format("cond subgraph '{}' returns {} outputs; expected 1, the predicate",
                              loop->condGraph, sub->outputs.size()));
        }
        if (const Graph *sub = calledSubgraph(loop->bodyGraph, p + "/body_graph")) {
          if (sub->inputs.size() != inputs)
            error(p + "/body_graph",
                  fmt::format("subgraph '{}' takes {} inputs but the while_loop passes {}",
                              loop->bodyGraph, sub->inputs.size(), inputs));
          else
            checkLoopOperands(*sub);
          if (sub->outputs.size() != loop->carried.size())
            error(p + "/body_graph",
                  fmt::format("body subgraph '{}' returns {} outputs but the while_loop carries {} "
                              "values",
                              loop->bodyGraph, sub->outputs.size(), loop->carried.size()));
        }
        defineTupleResult(loop->result, p + "/result", "while_loop");
      } else if (auto *boxedInvoke = std::get_if<Boxed<InvokeSubgraphNode>>(&node.body)) {
        const InvokeSubgraphNode *invoke = &**boxedInvoke;
        for (size_t i = 0; i < invoke->operands.size(); ++i)
          useValue(invoke->operands[i], (p + "/operands").child(i), useValue);
        if (const Graph *sub = calledSubgraph(invoke->graph, p + "/subgraph")) {
          if (sub->inputs.size() != invoke->operands.size())
            error(p + "/subgraph",
                  fmt::format("subgraph '{}' takes {} inputs but the invoke_subgraph passes {}",
                              invoke->graph, sub->inputs.size(), invoke->operands.size()));
          else
            checkOperandKinds(*sub, invoke->operands, 0, p + "/operands");
        }
        defineTupleResult(invoke->result, p + "/result", "invoke_subgraph");
      } else if (auto *boxedBind = std::get_if<Boxed<BindSymbolNode>>(&node.body)) {
        if (!alone) { // symbols bound so far: kept by the walk alone
          w.doubt = true;
          return;
        }
        const BindSymbolNode &bind = **boxedBind;
        const Value &tensor = bind.tensor;
        if (bind.read != BindSymbolNode::Read::Expr) {
          useValue(tensor, p + "/tensor", useValue);
          if (tensor.kind == Value::Kind::Buffer && bind.index.empty())
            rejectTuple(tensor.text, tensor.tensor, p + "/tensor");
        }
        std::optional<DType> itemDType;
        if (bind.read == BindSymbolNode::Read::Item) {
          const bool view = tensor.kind == Value::Kind::View;
          if (const TensorInfo *info = findTensor(view ? tensor.view->base : tensor.text,
                                                  view ? tensor.view->baseId : tensor.tensor)) {
            const Layout &layout = info->kind == TensorKind::Buffer
                                       ? graph.buffers[info->index].layout
                                   : info->kind == TensorKind::Input
                                       ? graph.inputs[info->index].layout
                                       : graph.constants[info->index].layout;
            itemDType = layout.dtype;
          }
        }
        checkBindSymbol(bind, p, bind.index.empty() || isTuple(tensor.text, tensor.tensor),
                        itemDType, boundSymbols);
      }
    }
    // The part that ends the graph checks what follows its nodes.
    if (end != graph.nodes.size() || w.mode == Walk::Record)
      return;
    if (alone && w.guardDepth != 0)
      error(graph.pointer + "/nodes", "a device_guard_enter has no matching device_guard_exit");
    w.pos = nodePosition(graph.nodes.size());
    const Ptr outputTable = graphPtr + "/outputs";
    for (size_t i = 0; i < graph.outputs.size(); ++i) {
      Ptr p = child(outputTable, i);
      useValue(graph.outputs[i], p, useValue);
    }
  };

  const size_t n = graph.nodes.size();
  const size_t parts =
      limits.threads < kPartsFromThreads
          ? 1
          : std::min<size_t>(limits.threads, n / std::max<size_t>(limits.minNodesPerThread, 1));
  if (parts >= 2 && diag.numErrors() == errorsBefore) {
    firstMark.assign(idCount, kNever);
    firstRename.assign(infos.size(), kNever);
    for (uint32_t t = 0; t < idCount; ++t)
      if (isDefined(t))
        firstMark[t] = 0;
    std::vector<Walk> walks(parts, Walk{Walk::Record});
    auto walkParts = [&] {
      runParts(parts, [&](size_t k) { walk(walks[k], n * k / parts, n * (k + 1) / parts); });
      return std::none_of(walks.begin(), walks.end(), [](const Walk &w) { return w.doubt; });
    };
    bool quiet = walkParts();
    // Device guards: no part may close more than are open when it starts,
    // and all close by the end.
    int open = 0;
    for (const Walk &w : walks) {
      quiet &= open + w.guardLowest >= 0;
      open += w.guardDepth;
    }
    quiet &= open == 0;
    if (quiet) {
      walks.assign(parts, Walk{Walk::Check});
      quiet = walkParts();
    }
    if (quiet) {
      ++doc->graphsCheckedInParts;
      return;
    }
  }
  Walk alone{Walk::Alone};
  walk(alone, 0, n);
}

} // namespace

std::unique_ptr<Document> readDocument(std::string_view text, DiagnosticEngine &diag,
                                       const ReaderLimits &limits,
                                       const std::function<void(size_t, size_t)> &readUpTo,
                                       const std::function<void(std::string_view)> &stepDone) {
  Reader reader(diag, limits, readUpTo, stepDone);
  return reader.read(text);
}

} // namespace wirc::graph
