//===- wirc/support/Json.h - A fast, strict JSON reader -------------------===//
//
// Graph documents are large (kernel sources dominate) and are read once, so
// wirc parses them into one flat, read-only document: every value is a small
// record in a vector, containers refer to their children by index, and
// strings without escapes point into the source text instead of being
// copied. A large text may be parsed in parts on several threads, each into
// a segment of such records; an array whose elements were parsed elsewhere
// refers to them across segments. Parsing is strict RFC 8259 (no comments,
// no trailing commas, well-formed UTF-8) and bounded in nesting depth.
//
// The value API follows the subset of nlohmann::json that a reader needs, so
// code reads the same either way.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_SUPPORT_JSON_H
#define WIRC_SUPPORT_JSON_H

#include "wirc/support/Hash.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wirc::json {

class Document;
struct Member;
class Value;

/// A malformed document: the byte offset of the problem and what was expected.
struct ParseError {
  size_t offset = 0;
  std::string message;
};

/// True if \p a and \p b hold the same bytes. Names and keys are short:
/// compared in place with word loads rather than through memcmp.
[[gnu::always_inline]] inline bool sameText(std::string_view a, std::string_view b) {
  size_t n = a.size();
  if (n != b.size())
    return false;
  const char *x = a.data();
  const char *y = b.data();
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8)
      if (load64(x + i) != load64(y + i))
        return false;
    return load64(x + n - 8) == load64(y + n - 8);
  }
  if (n >= 4)
    return load32(x) == load32(y) && load32(x + n - 4) == load32(y + n - 4);
  for (size_t i = 0; i < n; ++i)
    if (x[i] != y[i])
      return false;
  return true;
}

/// A growable array of trivially copyable records whose append is a bounds
/// check and a store in line (std::vector's emplace_back is a call here).
template <typename T> class PodArray {
public:
  PodArray() = default;
  PodArray(const PodArray &) = delete;
  PodArray &operator=(const PodArray &) = delete;
  ~PodArray() {
    if (owned)
      std::free(items);
  }

  /// Uses \p n records at \p at, which someone else owns and frees, until
  /// more are needed.
  void borrow(T *at, size_t n) {
    if (owned)
      std::free(items);
    items = at;
    capacity = n;
    count = 0;
    owned = false;
  }

  size_t size() const { return count; }
  size_t capacityLeft() const { return capacity - count; }
  T &operator[](size_t i) { return items[i]; }
  const T &operator[](size_t i) const { return items[i]; }
  T *data() { return items; }
  const T *data() const { return items; }

  void reserve(size_t n) {
    if (n > capacity)
      grow(n);
  }
  /// A new record at the end, not initialized.
  T &append() {
    if (count == capacity)
      grow(capacity ? capacity * 2 : 64);
    return items[count++];
  }
  void push_back(const T &value) { append() = value; }
  void append(const T *from, size_t n) {
    if (capacity - count < n)
      grow(std::max(capacity * 2, count + n));
    std::memcpy(static_cast<void *>(items + count), from, n * sizeof(T));
    count += n;
  }
  /// \p n new records at the end, not initialized.
  T *extend(size_t n) {
    if (capacity - count < n)
      grow(std::max(capacity * 2, count + n));
    T *at = items + count;
    count += n;
    return at;
  }
  void resize(size_t n) { count = n; } ///< within the capacity only

private:
  [[gnu::noinline]] void grow(size_t n) {
    void *p = owned ? std::realloc(items, n * sizeof(T)) : std::malloc(n * sizeof(T));
    if (!p)
      throw std::bad_alloc();
    if (!owned && count)
      std::memcpy(p, static_cast<const void *>(items), count * sizeof(T));
    items = static_cast<T *>(p);
    capacity = n;
    owned = true;
  }
  T *items = nullptr;
  size_t count = 0;
  size_t capacity = 0;
  bool owned = true;
};

/// What a value is.
enum class Kind : uint8_t {
  null,
  boolean,
  number_integer,  ///< fits int64
  number_unsigned, ///< above int64's range, fits uint64
  number_float,    ///< has a fraction or exponent, or is beyond uint64
  string,
  array,
  object,
};

namespace detail {

/// One value's record: 16 bytes, as a large document has millions.
struct Node {
  Kind type;
  /// Booleans: the value. Arrays: the elements are FarRefs (see Segment).
  bool boolean;
  uint16_t spellingSize; ///< numbers: bytes of their spelling in the source
  /// Arrays and objects: elements or members. Strings: bytes of `data`.
  /// Numbers: where their spelling starts in the source text.
  uint32_t count;
  union {
    int64_t i;
    uint64_t u;
    double d;
    uint32_t first;   ///< first entry in `children`, `far` (arrays) or `members` (objects)
    const char *data; ///< strings: the decoded bytes
  };
  std::string_view text() const { return {data, count}; }
  void setText(std::string_view s) {
    data = s.data();
    count = static_cast<uint32_t>(s.size());
  }
  /// Numbers: the spelling is \p size bytes at \p offset in the source.
  void setSpelling(size_t offset, size_t size) {
    count = static_cast<uint32_t>(offset);
    spellingSize = static_cast<uint16_t>(size);
  }
  std::string_view spelling(const char *source) const { return {source + count, spellingSize}; }
};
static_assert(sizeof(Node) == 16);

/// 16 bytes: the key's bytes and the value's record.
struct MemberRef {
  const char *key;
  uint32_t keySize;
  uint32_t value;
  std::string_view name() const { return {key, keySize}; }
};

struct Segment;

/// An element parsed into another segment.
struct FarRef {
  const Segment *segment;
  uint32_t index;
};

/// Records of one part of a document, which refer to each other by index.
/// A small document is one segment. A large one is parsed in parts on
/// several threads, a segment each; an array whose elements were parsed in
/// other parts lists them as FarRefs, which cross into those segments.
struct Segment {
  PodArray<Node> nodes;
  PodArray<uint32_t> children;
  PodArray<MemberRef> members;
  PodArray<FarRef> far;
  /// Storage for strings that had escapes, which cannot point into the source.
  std::vector<std::unique_ptr<std::string>> decoded;
  /// The text parsed, which numbers' spellings are offsets into.
  const char *source = nullptr;
};

} // namespace detail

/// A read-only handle to one value of a Document. Cheap to copy; valid while
/// the Document lives.
class Value {
public:
  using value_t = Kind;

  Value() = default;

  inline value_t type() const;
  bool is_null() const { return type() == value_t::null; }
  bool is_boolean() const { return type() == value_t::boolean; }
  bool is_number_integer() const {
    return type() == value_t::number_integer || type() == value_t::number_unsigned;
  }
  bool is_number_unsigned() const { return type() == value_t::number_unsigned; }
  bool is_number_float() const { return type() == value_t::number_float; }
  bool is_number() const { return is_number_integer() || is_number_float(); }
  bool is_string() const { return type() == value_t::string; }
  bool is_array() const { return type() == value_t::array; }
  bool is_object() const { return type() == value_t::object; }

  /// Elements of an array or members of an object; 0 for other values.
  inline size_t size() const;
  /// The \p index-th element of an array.
  [[gnu::always_inline]] inline Value operator[](size_t index) const;
  /// The member called \p key of an object, if there is one.
  inline std::optional<Value> find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key).has_value(); }

  /// The members of an object, in document order.
  std::vector<Member> items() const;
  /// The \p index-th member of an object (below size()), without building
  /// the vector items() returns.
  inline Member member(size_t index) const;

  inline bool getBool() const;
  inline int64_t getInt() const;   ///< number_integer only
  inline uint64_t getUInt() const; ///< number_integer (non-negative) or number_unsigned
  double getDouble() const;        ///< any number
  /// A string's decoded contents; a number's source spelling.
  inline std::string_view str() const;

  /// nlohmann-style accessors for the types the reader uses.
  template <typename T> T get() const;

  /// Short JSON text of a scalar, for messages.
  std::string dump() const;

  /// The same value of the same document.
  bool operator==(const Value &other) const = default;

private:
  friend class Document;
  Value(const detail::Segment *seg, uint32_t index) : seg(seg), index(index) {}
  /// An element of an array parsed in parts: \p at in the segment's FarRefs.
  [[gnu::noinline]] Value farElement(size_t at) const;
  const detail::Segment *seg = nullptr;
  uint32_t index = 0;
};

/// A member of an object, as Value::items() yields it.
struct Member {
  std::string_view key() const { return name; }
  Value value() const { return member; }
  std::string_view name;
  Value member;
};

template <> inline bool Value::get<bool>() const { return getBool(); }
template <> inline int64_t Value::get<int64_t>() const { return getInt(); }
template <> inline uint64_t Value::get<uint64_t>() const { return getUInt(); }
template <> inline double Value::get<double>() const { return getDouble(); }
template <> inline std::string Value::get<std::string>() const { return std::string(str()); }

/// How Document::parse reads a text.
struct ParseOptions {
  /// Containers may nest this deep.
  unsigned maxDepth = 512;
  /// Threads that may parse a large document at once. A text of partsFrom
  /// bytes or more is split into parts where a line starts with an array
  /// element after a comma (wirc's producers write one record a line); the
  /// document and every diagnostic are as one thread would make them.
  unsigned threads = 1;
  size_t partsFrom = size_t(2) << 20;
  /// Bytes of text a part holds at least.
  size_t minPartBytes = size_t(512) << 10;
  /// With one thread: fault a large document's records in on a thread of
  /// their own (support/PagePopulator.h).
  bool populate = false;
};

/// A parsed document. The source text must outlive it.
class Document {
public:
  /// Parses \p text. Returns nullptr and fills \p error on malformed input,
  /// nesting deeper than the options allow, a text of 4 GiB or more, or a
  /// number spelled in more than 65,535 bytes.
  static std::unique_ptr<Document> parse(std::string_view text, const ParseOptions &options,
                                         ParseError &error);
  /// parse() on one thread, \p populate as ParseOptions::populate says.
  static std::unique_ptr<Document> parse(std::string_view text, unsigned maxDepth,
                                         ParseError &error, bool populate = false) {
    ParseOptions options;
    options.maxDepth = maxDepth;
    options.populate = populate;
    return parse(text, options, error);
  }

  Value root() const { return Value(&main, 0); }
  /// Parts the document was parsed in (1 when it was read on one thread).
  size_t partCount() const { return 1 + parts.size(); }

private:
  detail::Segment main;
  /// The parts taken in, in document order: their segments borrow their
  /// records from `pool` (see PartedParse in Json.cpp).
  std::vector<std::unique_ptr<detail::Segment>> parts;
  std::unique_ptr<detail::Segment> pool;
};

inline Value::value_t Value::type() const { return seg->nodes[index].type; }

inline size_t Value::size() const {
  const detail::Node &node = seg->nodes[index];
  return node.type == Kind::array || node.type == Kind::object ? node.count : 0;
}

inline Value Value::operator[](size_t i) const {
  const detail::Node &node = seg->nodes[index];
  if (node.boolean) [[unlikely]]
    return farElement(node.first + i);
  return Value(seg, seg->children[node.first + i]);
}

inline Member Value::member(size_t i) const {
  const detail::MemberRef &m = seg->members[seg->nodes[index].first + i];
  return {m.name(), Value(seg, m.value)};
}

inline std::optional<Value> Value::find(std::string_view key) const {
  const detail::Node &node = seg->nodes[index];
  if (node.type != Kind::object)
    return std::nullopt;
  const detail::MemberRef *m = seg->members.data() + node.first;
  for (uint32_t i = 0; i < node.count; ++i)
    if (sameText(m[i].name(), key))
      return Value(seg, m[i].value);
  return std::nullopt;
}

inline bool Value::getBool() const { return seg->nodes[index].boolean; }
inline int64_t Value::getInt() const { return seg->nodes[index].i; }
inline uint64_t Value::getUInt() const {
  const detail::Node &node = seg->nodes[index];
  return node.type == Kind::number_unsigned ? node.u : static_cast<uint64_t>(node.i);
}
inline std::string_view Value::str() const {
  const detail::Node &node = seg->nodes[index];
  if (node.type == Kind::string)
    return node.text();
  if (node.type == Kind::number_integer || node.type == Kind::number_unsigned ||
      node.type == Kind::number_float)
    return node.spelling(seg->source);
  return {};
}

} // namespace wirc::json

#endif // WIRC_SUPPORT_JSON_H
