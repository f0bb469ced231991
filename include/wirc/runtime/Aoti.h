//===- wirc/runtime/Aoti.h - PyTorch tensor handles for wrappers -*- C++ -*-===//
//
// The runtime of `wirc compile --emit=cpp --cpp-abi=aoti` wrappers: tensors
// are PyTorch AtenTensorHandles from the AOTI C shim (libtorch), allocated
// with aoti_torch_empty_strided on PyTorch's caching allocator, and extern
// kernels are calls of the shim's aoti_torch_cuda_* functions. Kernels still
// launch through the CUDA driver API (wirc/runtime/Runtime.h).
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_RUNTIME_AOTI_H
#define WIRC_RUNTIME_AOTI_H

#include "wirc/runtime/Runtime.h"

#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/inductor/aoti_torch/generated/c_shim_cuda.h>

#include <string>
#include <utility>

namespace wirc {
namespace rt {
namespace aoti {

/// Throws Error naming \p what and the shim call when \p err is not success.
inline void check(AOTITorchError err, const char *call, const char *what) {
  if (err != AOTI_TORCH_SUCCESS)
    throw Error(std::string(what) + ": " + call + " failed (PyTorch logged the reason)");
}

/// One owned reference to a PyTorch tensor; deleting it drops the reference,
/// and the storage goes when its last tensor does.
class Handle {
public:
  Handle() = default;
  explicit Handle(AtenTensorHandle adopted) : h(adopted) {}
  Handle(const Handle &) = delete;
  Handle &operator=(const Handle &) = delete;
  Handle(Handle &&other) noexcept : h(std::exchange(other.h, nullptr)) {}
  Handle &operator=(Handle &&other) noexcept {
    if (this != &other) {
      reset();
      h = std::exchange(other.h, nullptr);
    }
    return *this;
  }
  ~Handle() { reset(); }

  void reset() {
    if (h)
      aoti_torch_delete_tensor_object(h);
    h = nullptr;
  }
  AtenTensorHandle get() const { return h; }
  AtenTensorHandle release() { return std::exchange(h, nullptr); }
  explicit operator bool() const { return h != nullptr; }

  /// A new reference to the same tensor (null for none): what outputs hand
  /// to the caller.
  AtenTensorHandle share() const {
    if (!h)
      return nullptr;
    AtenTensorHandle copy = nullptr;
    check(aoti_torch_new_tensor_handle(h, &copy), "aoti_torch_new_tensor_handle", "output");
    return copy;
  }

  /// The tensor as the launches see it: its data pointer (storage offset
  /// applied), sizes and strides.
  Tensor tensor(const char *what) const {
    Tensor t;
    if (!h)
      throw Error(std::string(what) + ": null tensor handle");
    void *data = nullptr;
    int64_t dim = 0;
    int64_t *sizes = nullptr, *strides = nullptr;
    check(aoti_torch_get_data_ptr(h, &data), "aoti_torch_get_data_ptr", what);
    check(aoti_torch_get_dim(h, &dim), "aoti_torch_get_dim", what);
    if (dim > kMaxRank)
      throw Error(std::string(what) + ": tensor rank above kMaxRank");
    check(aoti_torch_get_sizes(h, &sizes), "aoti_torch_get_sizes", what);
    check(aoti_torch_get_strides(h, &strides), "aoti_torch_get_strides", what);
    t.data = reinterpret_cast<CUdeviceptr>(data);
    t.rank = static_cast<int>(dim);
    for (int i = 0; i < t.rank; ++i) {
      t.sizes[i] = sizes[i];
      t.strides[i] = strides[i];
    }
    return t;
  }

private:
  AtenTensorHandle h = nullptr;
};

/// A new reference to a caller's tensor (inputs are borrowed).
inline Handle borrow(AtenTensorHandle tensor, const char *what) {
  if (!tensor)
    throw Error(std::string(what) + ": null tensor handle");
  AtenTensorHandle copy = nullptr;
  check(aoti_torch_new_tensor_handle(tensor, &copy), "aoti_torch_new_tensor_handle", what);
  return Handle(copy);
}

inline Handle empty_strided_on(int32_t device_type, int32_t device_index, int rank,
                               const int64_t *sizes, const int64_t *strides, int32_t dtype,
                               const char *what) {
  AtenTensorHandle h = nullptr;
  check(aoti_torch_empty_strided(rank, sizes, strides, dtype, device_type, device_index, &h),
        "aoti_torch_empty_strided", what);
  return Handle(h);
}

inline Handle empty_strided(int rank, const int64_t *sizes, const int64_t *strides,
                            int32_t dtype, int32_t device_index, const char *what) {
  return empty_strided_on(aoti_torch_device_type_cuda(), device_index, rank, sizes, strides,
                          dtype, what);
}

/// A tensor in host memory: a copy between devices lands in one or leaves
/// from one.
inline Handle empty_strided_cpu(int rank, const int64_t *sizes, const int64_t *strides,
                                int32_t dtype, const char *what) {
  return empty_strided_on(aoti_torch_device_type_cpu(), 0, rank, sizes, strides, dtype, what);
}

/// A view of \p base's storage with its own sizes and strides, \p offset
/// elements past \p base's first element.
inline Handle view(const Handle &base, int rank, const int64_t *sizes, const int64_t *strides,
                   int64_t offset, const char *what) {
  int64_t base_offset = 0;
  check(aoti_torch_get_storage_offset(base.get(), &base_offset), "aoti_torch_get_storage_offset",
        what);
  AtenTensorHandle h = nullptr;
  check(aoti_torch__reinterpret_tensor(base.get(), rank, sizes, strides, add(base_offset, offset),
                                       &h),
        "aoti_torch__reinterpret_tensor", what);
  return Handle(h);
}

/// A tensor at \p offset_bytes into a pool (a uint8 tensor of the pool's size).
inline Handle from_pool(const Handle &pool, int64_t offset_bytes, int32_t dtype, int rank,
                        const int64_t *sizes, const int64_t *strides, const char *what) {
  AtenTensorHandle h = nullptr;
  check(aoti_torch__alloc_from_pool(pool.get(), offset_bytes, dtype, rank, sizes, strides, &h),
        "aoti_torch__alloc_from_pool", what);
  return Handle(h);
}

/// A 0-dim CPU tensor holding \p value, made by the shim's
/// aoti_torch_scalar_to_tensor_<dtype> \p make: a number passed where an op
/// takes a tensor.
template <typename T>
inline Handle scalar_tensor(AOTITorchError (*make)(T, AtenTensorHandle *), T value,
                            const char *what) {
  AtenTensorHandle h = nullptr;
  check(make(value, &h), "aoti_torch_scalar_to_tensor", what);
  return Handle(h);
}

/// An undefined tensor: what None is for an op's `Tensor` argument that is not
/// optional in its schema (an absent attention bias), as in eager PyTorch.
inline Handle undefined_tensor(const char *what) {
  AtenTensorHandle h = nullptr;
  check(aoti_torch_new_uninitialized_tensor(&h), "aoti_torch_new_uninitialized_tensor", what);
  return Handle(h);
}

/// A copy of \p tensor with the same sizes and strides, in new storage.
inline Handle clone(const Handle &tensor, const char *what) {
  AtenTensorHandle h = nullptr;
  check(aoti_torch_clone_preserve_strides(tensor.get(), &h),
        "aoti_torch_clone_preserve_strides", what);
  return Handle(h);
}

/// The value of a one-element bool tensor (torch.cond's predicate); waits
/// for the device.
inline bool item_bool(const Handle &tensor, const char *what) {
  bool value = false;
  check(aoti_torch_item_bool(tensor.get(), &value), "aoti_torch_item_bool", what);
  return value;
}

} // namespace aoti
} // namespace rt
} // namespace wirc

#endif // WIRC_RUNTIME_AOTI_H
