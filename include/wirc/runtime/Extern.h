//===- wirc/runtime/Extern.h - Extern kernels through a hook table -*- C++ -*-===//
//
// The standalone runtime has no aten, so a wrapper emitted with
// --cpp-extern=hooks runs extern kernels and fallbacks (extern_kernels.mm,
// aten.topk.default, ...) through implementations the embedder supplies in an
// ExternHooks table. The calling convention is plain data: standard-layout
// structs and C function pointers, so a hook can be written in C or reached
// through a foreign function interface (Python's ctypes). docs/emit-cpp.md
// describes it with an example.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_RUNTIME_EXTERN_H
#define WIRC_RUNTIME_EXTERN_H

#include "wirc/runtime/Runtime.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace wirc {
namespace rt {

/// What an ExternValue holds: a 32-bit tag.
enum class ExternKind : int32_t {
  None = 0,
  Bool = 1,   ///< int_value: 0 or 1
  Int = 2,    ///< int_value (a symbolic size is evaluated before the call)
  Double = 3, ///< double_value
  String = 4, ///< text (NUL-terminated), int_value: its length in bytes
  Tensor = 5, ///< tensor; text: the dtype's name; int_value: bytes per element
  DType = 6,  ///< text: the dtype's name ("float32", as torch spells it)
  Device = 7, ///< text: "cuda" or "cpu"; int_value: the device index
  List = 8,   ///< items[0 .. num_items)
  Tuple = 9,  ///< items[0 .. num_items)
};

/// One argument of an extern call: a tagged value. Fields the kind does not
/// name are zero. A tensor is a descriptor of device memory: data is the
/// address of element 0 (a view's offset applied), sizes and strides count
/// elements. Everything a value points to lives until the hook returns.
struct ExternValue {
  ExternKind kind = ExternKind::None;
  int32_t num_items = 0;             ///< List, Tuple
  const char *name = nullptr;        ///< a keyword argument's name; null when positional
  const char *text = nullptr;        ///< String, DType, Device, Tensor (see ExternKind)
  int64_t int_value = 0;             ///< Bool, Int, String, Tensor, Device (see ExternKind)
  double double_value = 0;           ///< Double
  const ExternValue *items = nullptr; ///< List, Tuple
  Tensor tensor;                     ///< Tensor
};

/// The most tensors one extern call may return.
constexpr int kMaxExternResults = 16;

/// One call of an extern op as its hook receives it. The wrapper fills the
/// inputs; the hook of an allocating op fills the results.
struct ExternCall {
  const char *op = nullptr;          ///< the op's name as the graph spells it
  const ExternValue *args = nullptr; ///< positional arguments, then keyword arguments
  int32_t num_args = 0;              ///< positional arguments: args[0 .. num_args)
  int32_t num_kwargs = 0;            ///< keyword arguments: the next num_kwargs, name set
  const ExternValue *out = nullptr;  ///< out-variants: the tensor to write; else null
  CUstream stream = nullptr;         ///< the stream the wrapper runs on
  /// Results: the op's return value, flattened one level (a tensor is one
  /// result; a tuple or list is one result per item, positionally, with a
  /// zero descriptor for an item that is not a tensor).
  int32_t num_results = 0;
  int32_t error_bytes = 0;           ///< the size of error
  char *error = nullptr;             ///< where a failing hook may write a NUL-terminated message
  /// The hook's handle on the results' memory, or null. The wrapper passes it
  /// to ExternHooks::release exactly once, when the last buffer using any of
  /// the results is dead (or, for a graph output, when the caller drops its
  /// output_storage Buffer).
  void *owner = nullptr;
  Tensor results[kMaxExternResults];
};

/// An op's implementation. Returns 0 on success. On failure (non-zero) the
/// wrapper throws an Error naming the op with call->error's message and
/// ignores the results and owner: a failing hook frees what it allocated.
using ExternFn = int (*)(void *user, ExternCall *call);

/// The hook table: how a wrapper finds the implementation of each op and
/// hands back the memory of results. The wrapper copies the table; user is
/// passed to all three functions and must outlive every buffer holding a
/// result.
struct ExternHooks {
  void *user = nullptr;
  /// The implementation of \p op, or null when there is none. A wrapper calls
  /// it once per op at the start of each run.
  ExternFn (*lookup)(void *user, const char *op) = nullptr;
  /// Releases a call's owner handle; may be null when no hook sets one.
  void (*release)(void *user, void *owner) = nullptr;
};

static_assert(std::is_standard_layout<ExternValue>::value, "ExternValue is plain data");
static_assert(std::is_standard_layout<ExternCall>::value, "ExternCall is plain data");
static_assert(std::is_standard_layout<ExternHooks>::value, "ExternHooks is plain data");

/// An entry of a static table of hooks.
struct ExternEntry {
  const char *op;
  ExternFn fn;
};

/// The function \p op maps to in \p entries, or null: a lookup for tables
/// written as arrays of ExternEntry.
inline ExternFn find_extern(const ExternEntry *entries, size_t count, const char *op) {
  for (size_t i = 0; i < count; ++i)
    if (std::strcmp(entries[i].op, op) == 0)
      return entries[i].fn;
  return nullptr;
}

// Values, as emitted wrappers build them.

inline ExternValue extern_none() { return ExternValue(); }

inline ExternValue extern_bool(bool value) {
  ExternValue v;
  v.kind = ExternKind::Bool;
  v.int_value = value ? 1 : 0;
  return v;
}

inline ExternValue extern_int(int64_t value) {
  ExternValue v;
  v.kind = ExternKind::Int;
  v.int_value = value;
  return v;
}

inline ExternValue extern_double(double value) {
  ExternValue v;
  v.kind = ExternKind::Double;
  v.double_value = value;
  return v;
}

/// \p text is NUL-terminated and \p bytes long (it may contain NULs).
inline ExternValue extern_string(const char *text, int64_t bytes) {
  ExternValue v;
  v.kind = ExternKind::String;
  v.text = text;
  v.int_value = bytes;
  return v;
}

inline ExternValue extern_tensor(const Tensor &tensor, const char *dtype, int64_t itemsize) {
  ExternValue v;
  v.kind = ExternKind::Tensor;
  v.tensor = tensor;
  v.text = dtype;
  v.int_value = itemsize;
  return v;
}

inline ExternValue extern_dtype(const char *dtype) {
  ExternValue v;
  v.kind = ExternKind::DType;
  v.text = dtype;
  return v;
}

inline ExternValue extern_device(const char *type, int64_t index) {
  ExternValue v;
  v.kind = ExternKind::Device;
  v.text = type;
  v.int_value = index;
  return v;
}

inline ExternValue extern_list(const ExternValue *items, int32_t count) {
  ExternValue v;
  v.kind = ExternKind::List;
  v.items = items;
  v.num_items = count;
  return v;
}

inline ExternValue extern_tuple(const ExternValue *items, int32_t count) {
  ExternValue v = extern_list(items, count);
  v.kind = ExternKind::Tuple;
  return v;
}

/// \p value as the keyword argument \p name.
inline ExternValue named(const char *name, ExternValue value) {
  value.name = name;
  return value;
}

/// The tensors one allocating extern call returned.
class ExternResults {
public:
  ExternResults() = default;
  ExternResults(const char *name, std::vector<Tensor> results)
      : op(name), tensors(std::move(results)) {}

  /// Result \p index (a multi-output op's unpacking); an Error naming the op
  /// when the hook returned fewer.
  const Tensor &at(size_t index) const {
    if (index >= tensors.size())
      throw Error(std::string(op ? op : "extern call") + ": result " + std::to_string(index) +
                  " requested, the hook returned " + std::to_string(tensors.size()));
    return tensors[index];
  }
  size_t size() const { return tensors.size(); }

private:
  const char *op = nullptr;
  std::vector<Tensor> tensors;
};

namespace detail {
/// Keeps a call's owner handle; the last Buffer sharing it releases it.
struct ExternOwner {
  ExternHooks hooks;
  void *handle;
  ExternOwner(const ExternHooks &table, void *owner) : hooks(table), handle(owner) {}
  ExternOwner(const ExternOwner &) = delete;
  ExternOwner &operator=(const ExternOwner &) = delete;
  ~ExternOwner() {
    if (handle && hooks.release)
      hooks.release(hooks.user, handle);
  }
};
} // namespace detail

/// One extern op of a run, resolved once through the hook table: a missing
/// hook is an Error naming the op, raised before the run launches anything.
class ExternOp {
public:
  ExternOp(const ExternHooks &table, const char *name) : hooks(table), op(name) {
    fn = hooks.lookup ? hooks.lookup(hooks.user, op) : nullptr;
    if (!fn)
      throw Error(std::string(op) + ": no extern hook implements this op (the hook table's "
                                    "lookup returned null)");
  }

  /// Calls an out-variant, which writes \p out. Results the hook returns
  /// anyway are released at once.
  void call_out(const ExternValue *args, int32_t num_args, int32_t num_kwargs,
                const ExternValue &out, CUstream stream) const {
    ExternCall call = prepare(args, num_args, num_kwargs, stream);
    call.out = &out;
    invoke(call, nullptr);
  }

  /// Calls an allocating op. \p storage (when not null) takes ownership of the
  /// results' memory; otherwise it is released at once.
  ExternResults call(const ExternValue *args, int32_t num_args, int32_t num_kwargs,
                     CUstream stream, Buffer *storage) const {
    ExternCall call = prepare(args, num_args, num_kwargs, stream);
    return invoke(call, storage);
  }

  /// Calls an allocating op that returns one tensor.
  Tensor call_tensor(const ExternValue *args, int32_t num_args, int32_t num_kwargs,
                     CUstream stream, Buffer &storage) const {
    ExternResults results = call(args, num_args, num_kwargs, stream, &storage);
    if (results.size() != 1)
      throw Error(std::string(op) + ": the hook returned " + std::to_string(results.size()) +
                  " tensors, expected 1");
    return results.at(0);
  }

private:
  ExternCall prepare(const ExternValue *args, int32_t num_args, int32_t num_kwargs,
                     CUstream stream) const {
    ExternCall call;
    call.op = op;
    call.args = args;
    call.num_args = num_args;
    call.num_kwargs = num_kwargs;
    call.stream = stream;
    return call;
  }

  ExternResults invoke(ExternCall &call, Buffer *storage) const {
    char message[512] = {};
    call.error = message;
    call.error_bytes = static_cast<int32_t>(sizeof message);
    if (fn(hooks.user, &call) != 0) {
      message[sizeof message - 1] = 0;
      throw Error(std::string(op) + ": the extern hook failed" +
                  (message[0] ? std::string(": ") + message : std::string()));
    }
    // Own the handle first, so that it is released whatever is wrong below.
    std::shared_ptr<void> owner;
    if (call.owner) {
      if (!hooks.release) {
        throw Error(std::string(op) + ": the hook returned an owner handle, but the hook "
                                      "table has no release function");
      }
      owner = std::make_shared<detail::ExternOwner>(hooks, call.owner);
    }
    if (call.num_results < 0 || call.num_results > kMaxExternResults)
      throw Error(std::string(op) + ": the hook returned " + std::to_string(call.num_results) +
                  " results (at most " + std::to_string(kMaxExternResults) + ")");
    std::vector<Tensor> tensors(call.results, call.results + call.num_results);
    for (const Tensor &t : tensors)
      if (t.rank < 0 || t.rank > kMaxRank)
        throw Error(std::string(op) + ": the hook returned a tensor of rank " +
                    std::to_string(t.rank));
    if (storage) {
      // Shared even without a handle, so that unpacked results can share it.
      if (!owner)
        owner = std::make_shared<detail::ExternOwner>(ExternHooks(), nullptr);
      *storage = Buffer(tensors.empty() ? 0 : tensors[0].data, std::move(owner));
    }
    return ExternResults(op, std::move(tensors));
  }

  ExternHooks hooks;
  const char *op;
  ExternFn fn = nullptr;
};

} // namespace rt
} // namespace wirc

#endif // WIRC_RUNTIME_EXTERN_H
