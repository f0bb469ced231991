//===- wirc/support/Json.h - A fast, strict JSON reader -------------------===//
//
// Graph documents are large (kernel sources dominate) and are read once, so
// wirc parses them into one flat, read-only document: every value is a small
// record in a vector, containers refer to their children by index, and
// strings without escapes point into the source text instead of being
// copied. Parsing is strict RFC 8259 (no comments, no trailing commas,
// well-formed UTF-8) and bounded in nesting depth.
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
  ~PodArray() { std::free(items); }

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
    void *p = std::realloc(items, n * sizeof(T));
    if (!p)
      throw std::bad_alloc();
    items = static_cast<T *>(p);
    capacity = n;
  }
  T *items = nullptr;
  size_t count = 0;
  size_t capacity = 0;
};

/// A read-only handle to one value of a Document. Cheap to copy; valid while
/// the Document lives.
class Value {
public:
  enum class value_t : uint8_t {
    null,
    boolean,
    number_integer,  ///< fits int64
    number_unsigned, ///< above int64's range, fits uint64
    number_float,    ///< has a fraction or exponent, or is beyond uint64
    string,
    array,
    object,
  };

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
  inline Value operator[](size_t index) const;
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
  Value(const Document *doc, uint32_t index) : doc(doc), index(index) {}
  const Document *doc = nullptr;
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

/// A parsed document. The source text must outlive it.
class Document {
public:
  /// Parses \p text. Returns nullopt and fills \p error on malformed input,
  /// nesting deeper than \p maxDepth, a text of 4 GiB or more, or a number
  /// spelled in more than 65,535 bytes. With \p populate, a large document's
  /// records are faulted in on a thread of their own (support/PagePopulator.h).
  static std::unique_ptr<Document> parse(std::string_view text, unsigned maxDepth,
                                         ParseError &error, bool populate = false);

  Value root() const { return Value(this, 0); }

private:
  friend class Value;
  friend class Parser;
  /// 16 bytes: a large document has millions of these.
  struct Node {
    Value::value_t type;
    bool boolean;
    uint16_t spellingSize; ///< numbers: bytes of their spelling in the source
    /// Arrays and objects: elements or members. Strings: bytes of `data`.
    /// Numbers: where their spelling starts in the source text.
    uint32_t count;
    union {
      int64_t i;
      uint64_t u;
      double d;
      uint32_t first;   ///< first entry in `children` (arrays) or `members` (objects)
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
  PodArray<Node> nodes;
  PodArray<uint32_t> children;
  PodArray<MemberRef> members;
  /// Storage for strings that had escapes, which cannot point into the source.
  std::vector<std::unique_ptr<std::string>> decoded;
  /// The text parsed, which numbers' spellings are offsets into.
  const char *source = nullptr;
};

inline Value::value_t Value::type() const { return doc->nodes[index].type; }

inline size_t Value::size() const {
  const Document::Node &node = doc->nodes[index];
  return node.type == value_t::array || node.type == value_t::object ? node.count : 0;
}

inline Value Value::operator[](size_t i) const {
  return Value(doc, doc->children[doc->nodes[index].first + i]);
}

inline Member Value::member(size_t i) const {
  const Document::MemberRef &m = doc->members[doc->nodes[index].first + i];
  return {m.name(), Value(doc, m.value)};
}

inline std::optional<Value> Value::find(std::string_view key) const {
  const Document::Node &node = doc->nodes[index];
  if (node.type != value_t::object)
    return std::nullopt;
  const Document::MemberRef *m = doc->members.data() + node.first;
  for (uint32_t i = 0; i < node.count; ++i)
    if (sameText(m[i].name(), key))
      return Value(doc, m[i].value);
  return std::nullopt;
}

inline bool Value::getBool() const { return doc->nodes[index].boolean; }
inline int64_t Value::getInt() const { return doc->nodes[index].i; }
inline uint64_t Value::getUInt() const {
  const Document::Node &node = doc->nodes[index];
  return node.type == value_t::number_unsigned ? node.u : static_cast<uint64_t>(node.i);
}
inline std::string_view Value::str() const {
  const Document::Node &node = doc->nodes[index];
  if (node.type == value_t::string)
    return node.text();
  if (node.type == value_t::number_integer || node.type == value_t::number_unsigned ||
      node.type == value_t::number_float)
    return node.spelling(doc->source);
  return {};
}

} // namespace wirc::json

#endif // WIRC_SUPPORT_JSON_H
