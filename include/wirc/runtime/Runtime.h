//===- wirc/runtime/Runtime.h - Runtime of wirc's C++ wrappers --*- C++ -*-===//
//
// Header-only support for the C++ wrappers `wirc compile --emit=cpp` writes:
// tensors as device pointers with sizes and strides, owning device buffers,
// kernels loaded lazily from an embedded image, launches, and errors that
// name the kernel and the CUDA call that failed. Only the CUDA driver API is
// needed (link with -lcuda); no libtorch. Extern kernels run through the hook
// table of wirc/runtime/Extern.h.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_RUNTIME_RUNTIME_H
#define WIRC_RUNTIME_RUNTIME_H

#include "wirc/runtime/Arith.h"

#include <cuda.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

namespace wirc {
namespace rt {

/// A failed CUDA call or a violated run-time check.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

inline void check(CUresult result, const char *call, const char *what) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = nullptr;
  cuGetErrorName(result, &name);
  throw Error(std::string(what) + ": " + call + " failed: " + (name ? name : "unknown error"));
}

/// The maximum rank of a tensor the wrappers pass around.
constexpr int kMaxRank = 8;

/// A strided view of device memory. Tensors are plain values: ownership is
/// the business of Buffer.
struct Tensor {
  CUdeviceptr data = 0; ///< address of element 0 (storage offset applied)
  int rank = 0; ///< -1 and -2: a number a graph returns (int_output, float_output)
  int64_t sizes[kMaxRank] = {};
  int64_t strides[kMaxRank] = {};
};

/// Owning device memory: either allocated here (cuMemAlloc, freed with
/// cuMemFree) or adopted from an extern hook, whose owner handle is released
/// when the last Buffer sharing it is reset or destroyed (wirc/runtime/Extern.h).
class Buffer {
public:
  Buffer() = default;
  explicit Buffer(int64_t bytes) {
    if (bytes < 0)
      throw Error("negative allocation size");
    if (bytes > 0)
      check(cuMemAlloc(&ptr, static_cast<size_t>(bytes)), "cuMemAlloc", "allocation");
  }
  /// Adopts memory at \p address that \p owner keeps alive; cuMemFree is
  /// never called on it.
  Buffer(CUdeviceptr address, std::shared_ptr<void> keepAlive)
      : ptr(address), owner(std::move(keepAlive)) {}
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  Buffer(Buffer &&other) noexcept
      : ptr(std::exchange(other.ptr, 0)), owner(std::move(other.owner)) {}
  Buffer &operator=(Buffer &&other) noexcept {
    if (this != &other) {
      reset();
      ptr = std::exchange(other.ptr, 0);
      owner = std::move(other.owner);
    }
    return *this;
  }
  ~Buffer() { reset(); }
  void reset() {
    if (owner)
      owner.reset(); // the last sharer releases the hook's memory
    else if (ptr)
      cuMemFree(ptr);
    ptr = 0;
  }
  /// Gives up ownership of memory allocated here (outputs handed to the
  /// caller, who frees them with cuMemFree). Memory adopted from a hook cannot
  /// be freed that way: keep the Buffer instead.
  CUdeviceptr release() {
    if (owner)
      throw Error("release() of memory an extern hook owns; keep the Buffer instead");
    return std::exchange(ptr, 0);
  }
  CUdeviceptr get() const { return ptr; }
  /// True when the memory was adopted from an extern hook.
  bool adopted() const { return owner != nullptr; }
  /// Another Buffer at \p address keeping this one's adopted memory alive
  /// (the tensors of one extern call that returned several share an owner).
  Buffer share(CUdeviceptr address) const {
    if (!owner)
      throw Error("share() of memory no extern hook owns");
    return Buffer(address, owner);
  }

private:
  CUdeviceptr ptr = 0;
  std::shared_ptr<void> owner;
};

/// Bytes a strided layout spans: (sum((size - 1) * stride) + 1) * itemsize,
/// 0 for an empty tensor; checked arithmetic.
inline int64_t storage_bytes(int rank, const int64_t *sizes, const int64_t *strides,
                             int64_t itemsize) {
  int64_t extent = 0;
  for (int i = 0; i < rank; ++i) {
    if (sizes[i] == 0)
      return 0;
    extent = add(extent, mul(sizes[i] - 1, strides[i]));
  }
  return mul(add(extent, 1), itemsize);
}

/// Fills the bytes \p t spans (\p itemsize bytes an element) with zeros, on
/// \p stream.
inline void zero_storage(const Tensor &t, int64_t itemsize, CUstream stream, const char *what) {
  const int64_t bytes = storage_bytes(t.rank, t.sizes, t.strides, itemsize);
  if (bytes > 0)
    check(cuMemsetD8Async(t.data, 0, static_cast<size_t>(bytes), stream), "cuMemsetD8Async",
          what);
}

/// A copy of \p t in new memory with its sizes and strides (the span they
/// cover, \p itemsize bytes an element), on \p stream; \p t points at the
/// copy afterwards and the returned Buffer owns it.
inline Buffer copy_tensor(Tensor &t, int64_t itemsize, CUstream stream, const char *what) {
  const int64_t bytes = storage_bytes(t.rank, t.sizes, t.strides, itemsize);
  Buffer copy(bytes);
  if (bytes > 0)
    check(cuMemcpyDtoDAsync(copy.get(), t.data, static_cast<size_t>(bytes), stream),
          "cuMemcpyDtoDAsync", what);
  t.data = copy.get();
  return copy;
}

/// Initializes the driver and makes the primary context of device \p ordinal
/// current on this thread: what a program that runs wrappers without another
/// CUDA runtime does once before run(). Returns the device.
inline CUdevice use_primary_context(int ordinal) {
  check(cuInit(0), "cuInit", "use_primary_context");
  CUdevice device;
  check(cuDeviceGet(&device, ordinal), "cuDeviceGet", "use_primary_context");
  CUcontext context;
  check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain",
        "use_primary_context");
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent", "use_primary_context");
  return device;
}

/// Checks a tensor's rank, sizes and strides against what the graph expects.
inline void assert_size_stride(const Tensor &t, int rank, const int64_t *sizes,
                               const int64_t *strides, const char *what) {
  bool ok = t.rank == rank;
  for (int i = 0; ok && i < rank; ++i)
    ok = t.sizes[i] == sizes[i] && (sizes[i] <= 1 || t.strides[i] == strides[i]);
  if (!ok)
    throw Error(std::string(what) + ": unexpected size or stride");
}

inline Tensor make_tensor(CUdeviceptr base, int64_t offset_bytes, int rank,
                          const int64_t *sizes, const int64_t *strides) {
  if (rank > kMaxRank)
    throw Error("tensor rank above kMaxRank");
  Tensor t;
  t.data = base + static_cast<CUdeviceptr>(offset_bytes);
  t.rank = rank;
  for (int i = 0; i < rank; ++i) {
    t.sizes[i] = sizes[i];
    t.strides[i] = strides[i];
  }
  return t;
}

/// A kernel loaded on first launch from an image (PTX text, which the driver
/// compiles for the device, or a cubin).
class LazyKernel {
public:
  LazyKernel(const char *name, const char *entry, const void *image, int shared_bytes,
             int num_warps)
      : name(name), entry(entry), image(image), shared(shared_bytes), warps(num_warps) {}
  LazyKernel(const LazyKernel &) = delete;
  LazyKernel &operator=(const LazyKernel &) = delete;
  ~LazyKernel() {
    if (module)
      cuModuleUnload(module);
  }

  void launch(int64_t gx, int64_t gy, int64_t gz, CUstream stream, void **args) {
    if (!ready(gx, gy, gz))
      return;
    check(cuLaunchKernel(function, static_cast<unsigned>(gx), static_cast<unsigned>(gy),
                         static_cast<unsigned>(gz), 32u * static_cast<unsigned>(warps), 1, 1,
                         static_cast<unsigned>(shared), stream, args, nullptr),
          "cuLaunchKernel", name);
  }

  /// A launch whose blocks are all resident at once (they wait for each
  /// other): a grid the device cannot hold fails here instead of hanging.
  void launch_cooperative(int64_t gx, int64_t gy, int64_t gz, CUstream stream, void **args) {
    if (!ready(gx, gy, gz))
      return;
    check(cuLaunchCooperativeKernel(function, static_cast<unsigned>(gx),
                                    static_cast<unsigned>(gy), static_cast<unsigned>(gz),
                                    32u * static_cast<unsigned>(warps), 1, 1,
                                    static_cast<unsigned>(shared), stream, args),
          "cuLaunchCooperativeKernel", name);
  }

private:
  /// False for an empty grid, which launches nothing; loads on first use.
  bool ready(int64_t gx, int64_t gy, int64_t gz) {
    if (gx == 0 || gy == 0 || gz == 0)
      return false;
    if (gx > INT32_MAX || gy > 65535 || gz > 65535 || gx < 0 || gy < 0 || gz < 0)
      throw Error(std::string(name) + ": launch grid out of range");
    if (!function)
      load();
    return true;
  }
  void load() {
    check(cuModuleLoadData(&module, image), "cuModuleLoadData", name);
    check(cuModuleGetFunction(&function, module, entry), "cuModuleGetFunction", name);
    // Kernels that use more than the default 48 KiB of dynamic shared memory
    // must opt in.
    if (shared > 48 * 1024)
      check(cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               shared),
            "cuFuncSetAttribute", name);
  }

  const char *name;
  const char *entry;
  const void *image;
  int shared;
  int warps;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
};

/// The value of a one-element bool tensor in device memory (torch.cond's
/// predicate); waits for \p stream first.
inline bool read_bool(const Tensor &t, CUstream stream, const char *what) {
  check(cuStreamSynchronize(stream), "cuStreamSynchronize", what);
  unsigned char value = 0;
  check(cuMemcpyDtoH(&value, t.data, 1), "cuMemcpyDtoH", what);
  return value != 0;
}

/// The element of type \p T at \p at in device memory, as an integer (an
/// unbacked symbol's `.item()`; a bool reads 0 or 1); waits for \p stream
/// first.
template <typename T> int64_t read_scalar(CUdeviceptr at, CUstream stream, const char *what) {
  check(cuStreamSynchronize(stream), "cuStreamSynchronize", what);
  T value{};
  check(cuMemcpyDtoH(&value, at, sizeof(T)), "cuMemcpyDtoH", what);
  return static_cast<int64_t>(value);
}

/// A half (IEEE binary16), bfloat16 or float8 element, as its bits;
/// read_float widens it exactly.
struct Float16 {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};
struct Float8E4M3FN {
  uint8_t bits;
};
struct Float8E5M2 {
  uint8_t bits;
};
inline double to_double(float value) { return value; }
inline double to_double(double value) { return value; }
inline double to_double(BFloat16 value) {
  // The upper half of a float32.
  const uint32_t word = uint32_t(value.bits) << 16;
  float f;
  std::memcpy(&f, &word, sizeof f);
  return f;
}
inline double to_double(Float16 value) {
  const uint32_t sign = value.bits >> 15, exponent = (value.bits >> 10) & 0x1F,
                 mantissa = value.bits & 0x3FF;
  double magnitude;
  if (exponent == 0x1F)
    magnitude = mantissa ? std::numeric_limits<double>::quiet_NaN()
                         : std::numeric_limits<double>::infinity();
  else if (exponent == 0) // zero or subnormal
    magnitude = std::ldexp(static_cast<double>(mantissa), -24);
  else
    magnitude = std::ldexp(static_cast<double>(mantissa | 0x400), int(exponent) - 25);
  return sign ? -magnitude : magnitude;
}
inline double to_double(Float8E5M2 value) {
  // The upper half of a binary16.
  return to_double(Float16{static_cast<uint16_t>(value.bits << 8)});
}
inline double to_double(Float8E4M3FN value) {
  // Bias 7, no infinities; all exponent and mantissa bits set is NaN.
  const uint32_t sign = value.bits >> 7, exponent = (value.bits >> 3) & 0xF,
                 mantissa = value.bits & 0x7;
  double magnitude;
  if (exponent == 0xF && mantissa == 0x7)
    magnitude = std::numeric_limits<double>::quiet_NaN();
  else if (exponent == 0)
    magnitude = std::ldexp(static_cast<double>(mantissa), -9);
  else
    magnitude = std::ldexp(static_cast<double>(mantissa | 0x8), int(exponent) - 10);
  return sign ? -magnitude : magnitude;
}

/// The floating-point element of type \p T at \p at in device memory, as a
/// double (a float symbol's `.item()`); waits for \p stream first.
template <typename T> double read_float(CUdeviceptr at, CUstream stream, const char *what) {
  check(cuStreamSynchronize(stream), "cuStreamSynchronize", what);
  T value{};
  check(cuMemcpyDtoH(&value, at, sizeof(T)), "cuMemcpyDtoH", what);
  return to_double(value);
}

/// Throws naming \p what if an element of \p t is a NaN or an infinity
/// (Inductor's nan_asserts). An element is \p parts floating-point numbers
/// of \p part_bytes (2, 4 or 8) each, a complex one two; a number is not
/// finite when all of \p mask's bits (its exponent's, or e4m3fn's NaN
/// pattern) are set. A CUDA tensor's storage is copied to the host after
/// \p stream is done; a CPU tensor (\p on_device false) is read in place.
inline void check_finite(const Tensor &t, int part_bytes, int parts, uint64_t mask,
                         bool on_device, CUstream stream, const char *what) {
  const int64_t itemsize = int64_t(part_bytes) * parts;
  const int64_t bytes = storage_bytes(t.rank, t.sizes, t.strides, itemsize);
  if (bytes <= 0)
    return;
  std::unique_ptr<unsigned char[]> copy;
  const unsigned char *base =
      reinterpret_cast<const unsigned char *>(static_cast<uintptr_t>(t.data));
  if (on_device) {
    copy.reset(new unsigned char[static_cast<size_t>(bytes)]);
    check(cuStreamSynchronize(stream), "cuStreamSynchronize", what);
    check(cuMemcpyDtoH(copy.get(), t.data, static_cast<size_t>(bytes)), "cuMemcpyDtoH", what);
    base = copy.get();
  }
  // Every element the sizes reach, as an odometer over the dimensions.
  int64_t index[kMaxRank] = {};
  while (true) {
    int64_t offset = 0;
    for (int d = 0; d < t.rank; ++d)
      offset += index[d] * t.strides[d];
    for (int p = 0; p < parts; ++p) {
      uint64_t bits = 0;
      std::memcpy(&bits, base + offset * itemsize + p * part_bytes,
                  static_cast<size_t>(part_bytes));
      if ((bits & mask) == mask)
        throw Error(std::string(what) + " holds a NaN or an infinity");
    }
    int d = t.rank - 1;
    while (d >= 0 && ++index[d] == t.sizes[d])
      index[d--] = 0;
    if (d < 0)
      return;
  }
}

/// An integer output of a graph (a size a forward graph returns for its
/// backward): a descriptor of rank -1 whose sizes[0] holds the value.
inline Tensor int_output(int64_t value) {
  Tensor t;
  t.rank = -1;
  t.sizes[0] = value;
  return t;
}

/// A floating-point output of a graph (a float symbol it returns): a
/// descriptor of rank -2 whose sizes[0] holds the double's bits; float_value
/// reads it back.
inline Tensor float_output(double value) {
  Tensor t;
  t.rank = -2;
  std::memcpy(&t.sizes[0], &value, sizeof value);
  return t;
}
inline double float_value(const Tensor &t) {
  double value;
  std::memcpy(&value, &t.sizes[0], sizeof value);
  return value;
}

/// The one element of a CPU tensor, which a kernel takes as a scalar
/// parameter (a 0-d CPU input of a CUDA graph).
template <typename T> T host_scalar(const Tensor &t) {
  T value{};
  std::memcpy(&value, reinterpret_cast<const void *>(static_cast<uintptr_t>(t.data)), sizeof(T));
  return value;
}

/// Narrows a size to a kernel's 32-bit parameter, checked.
inline int32_t to_i32(int64_t value, const char *what) {
  if (value < INT32_MIN || value > INT32_MAX)
    throw Error(std::string(what) + ": value does not fit a 32-bit kernel argument");
  return static_cast<int32_t>(value);
}

} // namespace rt
} // namespace wirc

#endif // WIRC_RUNTIME_RUNTIME_H
