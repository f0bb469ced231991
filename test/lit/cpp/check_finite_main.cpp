// Runs wirc::rt::check_finite, the C++ wrappers' assert_finite, on the host
// without a GPU: this file defines the two CUDA driver functions it calls
// for a tensor on the device over host memory, so "device" pointers are
// host pointers. Each case builds a tensor's storage, puts a NaN or an
// infinity in it (or in storage the view does not reach) and checks whether
// the check throws, for every floating dtype the emitter checks.
#include "wirc/runtime/Runtime.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

extern "C" CUresult CUDAAPI cuStreamSynchronize(CUstream) { return CUDA_SUCCESS; }
extern "C" CUresult CUDAAPI cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes) {
  std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}
extern "C" CUresult CUDAAPI cuGetErrorName(CUresult, const char **name) {
  *name = "CUDA_ERROR_HOST_TEST";
  return CUDA_SUCCESS;
}

namespace {

int failures = 0, passes = 0;

void expect(bool ok, const std::string &what) {
  std::printf("%s %s\n", ok ? "ok" : "FAIL", what.c_str());
  (ok ? passes : failures)++;
}

/// Whether check_finite throws on \p t, and its message names the tensor.
bool throws(const wirc::rt::Tensor &t, int bytes, int parts, uint64_t mask, bool onDevice) {
  try {
    wirc::rt::check_finite(t, bytes, parts, mask, onDevice, nullptr, "buf7");
  } catch (const wirc::rt::Error &e) {
    return std::string(e.what()) == "buf7 holds a NaN or an infinity";
  }
  return false;
}

wirc::rt::Tensor tensor(void *data, std::vector<int64_t> sizes, std::vector<int64_t> strides) {
  wirc::rt::Tensor t;
  t.data = reinterpret_cast<CUdeviceptr>(data);
  t.rank = static_cast<int>(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) {
    t.sizes[d] = sizes[d];
    t.strides[d] = strides[d];
  }
  return t;
}

/// A 3x4 tensor of \p T (all \p fine), then the same with element (2, 1)
/// set to \p bad; on the device and on the host alike.
template <typename T>
void dtypeCase(const char *name, T fine, T bad, int bytes, int parts, uint64_t mask) {
  for (bool onDevice : {true, false}) {
    std::vector<T> storage(12, fine);
    wirc::rt::Tensor t = tensor(storage.data(), {3, 4}, {4, 1});
    std::string where = std::string(name) + (onDevice ? " on the device" : " on the host");
    expect(!throws(t, bytes, parts, mask, onDevice), where + ": finite values pass");
    storage[2 * 4 + 1] = bad;
    expect(throws(t, bytes, parts, mask, onDevice), where + ": a bad value throws");
  }
}

} // namespace

int main() {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  dtypeCase<float>("float32 NaN", 1.5f, nan, 4, 1, 0x7F800000);
  dtypeCase<float>("float32 -inf", -2.0f, -inf, 4, 1, 0x7F800000);
  dtypeCase<double>("float64 inf", 3.0, std::numeric_limits<double>::infinity(), 8, 1,
                    0x7FF0000000000000);
  // Half and bfloat16 by their bits: 1.0, then +inf and a NaN.
  dtypeCase<uint16_t>("float16 inf", 0x3C00, 0x7C00, 2, 1, 0x7C00);
  dtypeCase<uint16_t>("bfloat16 NaN", 0x3F80, 0x7FC1, 2, 1, 0x7F80);
  // float8: e4m3fn has no infinity (0x7E is 448, its largest), e5m2 has.
  dtypeCase<uint8_t>("float8_e4m3fn NaN", 0x7E, 0xFF, 1, 1, 0x7F);
  dtypeCase<uint8_t>("float8_e5m2 -inf", 0x3C, 0xFC, 1, 1, 0x7C);

  // complex64: either part not finite.
  {
    std::vector<float> storage(8, 0.5f);
    wirc::rt::Tensor t = tensor(storage.data(), {4}, {1});
    expect(!throws(t, 4, 2, 0x7F800000, true), "complex64: finite values pass");
    storage[5] = nan; // the imaginary part of element 2
    expect(throws(t, 4, 2, 0x7F800000, true), "complex64: a NaN imaginary part throws");
  }
  // A strided view: a NaN the view does not reach passes, one it reaches
  // through its offset and strides throws.
  {
    std::vector<float> storage(20, 1.0f);
    storage[0] = nan;  // before the view's first element
    storage[6] = inf;  // between its rows' elements
    wirc::rt::Tensor t = tensor(storage.data() + 1, {2, 3}, {10, 2});
    expect(!throws(t, 4, 1, 0x7F800000, true), "view: values outside the view pass");
    storage[1 + 10 + 4] = nan; // element (1, 2)
    expect(throws(t, 4, 1, 0x7F800000, true), "view: its last element throws");
  }
  // A 0-d tensor, an empty one (nothing read: its data pointer is null) and
  // a broadcast one (stride 0).
  {
    float one = inf;
    expect(throws(tensor(&one, {}, {}), 4, 1, 0x7F800000, true), "0-d: an infinity throws");
    expect(!throws(tensor(nullptr, {3, 0}, {0, 1}), 4, 1, 0x7F800000, true),
           "empty: nothing to read");
    float value = 2.0f;
    expect(!throws(tensor(&value, {5, 7}, {0, 0}), 4, 1, 0x7F800000, true),
           "broadcast: one finite element");
  }
  std::printf("%d passed, %d failed\n", passes, failures);
  return failures == 0 ? 0 : 1;
}
