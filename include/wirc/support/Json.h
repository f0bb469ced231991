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

#include <cstdint>
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

  value_t type() const;
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
  size_t size() const;
  /// The \p index-th element of an array.
  Value operator[](size_t index) const;
  /// The member called \p key of an object, if there is one.
  std::optional<Value> find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key).has_value(); }

  /// The members of an object, in document order.
  std::vector<Member> items() const;
  /// The \p index-th member of an object (below size()), without building
  /// the vector items() returns.
  Member member(size_t index) const;

  bool getBool() const;
  int64_t getInt() const;    ///< number_integer only
  uint64_t getUInt() const;  ///< number_integer (non-negative) or number_unsigned
  double getDouble() const;  ///< any number
  /// A string's decoded contents.
  std::string_view str() const;

  /// nlohmann-style accessors for the types the reader uses.
  template <typename T> T get() const;

  /// Short JSON text of a scalar, for messages.
  std::string dump() const;

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
  /// Parses \p text. Returns nullopt and fills \p error on malformed input or
  /// nesting deeper than \p maxDepth.
  static std::unique_ptr<Document> parse(std::string_view text, unsigned maxDepth,
                                         ParseError &error);

  Value root() const { return Value(this, 0); }

private:
  friend class Value;
  friend class Parser;
  /// 24 bytes: a large document has millions of these.
  struct Node {
    Value::value_t type = Value::value_t::null;
    bool boolean = false;
    /// Arrays and objects: elements or members. Strings and numbers: bytes
    /// of `data`.
    uint32_t count = 0;
    union {
      int64_t i;
      uint64_t u;
      double d;
      uint32_t first; ///< first entry in `children` (arrays) or `members` (objects)
    };
    const char *data = nullptr; ///< strings (decoded), numbers (source spelling)
    Node() : i(0) {}
    std::string_view text() const { return {data, count}; }
    void setText(std::string_view s) {
      data = s.data();
      count = static_cast<uint32_t>(s.size());
    }
  };
  struct MemberRef {
    std::string_view key;
    uint32_t value;
  };
  std::vector<Node> nodes;
  std::vector<uint32_t> children;
  std::vector<MemberRef> members;
  /// Storage for strings that had escapes, which cannot point into the source.
  std::vector<std::unique_ptr<std::string>> decoded;
};

} // namespace wirc::json

#endif // WIRC_SUPPORT_JSON_H
