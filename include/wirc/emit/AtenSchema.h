//===- wirc/emit/AtenSchema.h - aten function schemas -----------*- C++ -*-===//
//
// The function schemas torch prints for its operators,
//   aten::topk(Tensor self, SymInt k, int dim=-1, bool largest=True,
//              bool sorted=True) -> (Tensor values, Tensor indices)
// parsed far enough to call an op through PyTorch's C shim (--cpp-abi=aoti):
// argument types, names, defaults, keyword-only and written arguments, and
// returns. A schema is data from the graph: anything outside this grammar is
// a SchemaError, never guessed at.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_EMIT_ATENSCHEMA_H
#define WIRC_EMIT_ATENSCHEMA_H

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace wirc::emit {

class SchemaError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A schema type: a base type (Tensor, int, SymInt, float, bool, str, Scalar,
/// ScalarType, Layout, MemoryFormat, Device, DeviceIndex, Generator, ...),
/// a list of an element type (`int[]`, `int[2]`), or an optional (`?`).
struct SchemaType {
  enum class Kind : uint8_t { Base, List, Optional };
  Kind kind = Kind::Base;
  std::string base;                   ///< Base: the type's name
  std::shared_ptr<SchemaType> elem;   ///< List, Optional: the element type
  std::optional<int64_t> fixedSize;   ///< List: `int[2]`

  bool isOptional() const { return kind == Kind::Optional; }
  bool isList() const { return kind == Kind::List; }
  bool isBase(std::string_view name) const { return kind == Kind::Base && base == name; }
  std::string str() const;
};

/// A default value as the schema spells it: None, True/False, a number, a
/// string, a list of these, or a bare identifier (`contiguous_format`).
struct SchemaDefault {
  enum class Kind : uint8_t { None, Bool, Int, Double, String, List, Identifier };
  Kind kind = Kind::None;
  bool boolValue = false;
  int64_t intValue = 0;
  double doubleValue = 0;
  std::string text; ///< String, Identifier
  std::vector<SchemaDefault> items;
};

struct SchemaArgument {
  SchemaType type;
  std::string name;
  std::optional<SchemaDefault> defaultValue;
  bool kwargOnly = false; ///< after `*`
  bool isWrite = false;   ///< an alias annotation with `!`: `Tensor(a!)`
};

struct FunctionSchema {
  std::string ns;       ///< "aten"
  std::string name;     ///< "scatter_reduce_"
  std::string overload; ///< "two", "" for the default overload
  std::vector<SchemaArgument> arguments;
  std::vector<SchemaType> returns;

  /// Written keyword-only arguments (`*, Tensor(a!) out`): an out= overload.
  bool isOutFn() const;
  /// The name and overload joined as the C shim spells them: "topk",
  /// "scatter_reduce_two_out".
  std::string unambiguousName() const;
};

/// Parses \p text; throws SchemaError saying where and what was expected.
FunctionSchema parseFunctionSchema(std::string_view text);

} // namespace wirc::emit

#endif // WIRC_EMIT_ATENSCHEMA_H
