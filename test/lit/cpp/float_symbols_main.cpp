// Runs the wrapper of cpp/Inputs/float-symbols.json, without its extern calls,
// on the host and prints the float symbols it returns (rank -2 descriptors).
// The "device" addresses are host arrays, which the stubbed copy reads.
#include WIRC_GENERATED

#include <cstdio>
#include <cstring>

extern "C" CUresult CUDAAPI cuStreamSynchronize(CUstream) { return CUDA_SUCCESS; }
extern "C" CUresult CUDAAPI cuMemcpyDtoH(void *to, CUdeviceptr from, size_t bytes) {
  std::memcpy(to, reinterpret_cast<const void *>(static_cast<uintptr_t>(from)), bytes);
  return CUDA_SUCCESS;
}
extern "C" CUresult CUDAAPI cuMemFree(CUdeviceptr) { return CUDA_SUCCESS; }
extern "C" CUresult CUDAAPI cuGetErrorName(CUresult, const char **name) {
  *name = "CUDA_ERROR_HOST_TEST";
  return CUDA_SUCCESS;
}

static CUdeviceptr address(const void *p) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
}

// The values read, one row a run: element 3 of `h` (half), element 1 of `q`
// (float8_e4m3fn) and `r` (float8_e5m2).
static const uint16_t kHalves[] = {0x3C00, 0xC000, 0x0001, 0x7BFF, 0xFC00, 0x3555};
static const uint8_t kE4M3[] = {0x38, 0xC0, 0x01, 0x7E, 0x7F, 0x2B};
static const uint8_t kE5M2[] = {0x3C, 0xC0, 0x01, 0x7B, 0xFC, 0x35};

int main() {
  uint16_t h[4] = {};
  const uint16_t b = 0x3FC0;      // bfloat16 1.5
  const float f = 0.1f;           // widened exactly
  const double d = -2.5e-300;
  uint8_t q[2] = {}, r = 0;
  const int64_t hsize[] = {4}, qsize[] = {2}, stride[] = {1}, none[] = {0};
  for (int i = 0; i < 6; ++i) {
    h[3] = kHalves[i];
    q[1] = kE4M3[i];
    r = kE5M2[i];
    wirc::rt::Tensor inputs[] = {wirc::rt::make_tensor(address(h), 0, 1, hsize, stride),
                                 wirc::rt::make_tensor(address(&b), 0, 0, none, none),
                                 wirc::rt::make_tensor(address(&f), 0, 0, none, none),
                                 wirc::rt::make_tensor(address(&d), 0, 0, none, none),
                                 wirc::rt::make_tensor(address(q), 0, 1, qsize, stride),
                                 wirc::rt::make_tensor(address(&r), 0, 0, none, none)};
    wirc::rt::Tensor outputs[6];
    wirc::rt::Buffer storage[6];
    wirc_graph_float_symbols::Kernels kernels;
    wirc_graph_float_symbols::run(kernels, inputs, nullptr, outputs, storage, nullptr);
    for (const wirc::rt::Tensor &t : outputs)
      std::printf("%s%.17g", &t == outputs ? "" : " ",
                  t.rank == -2 ? wirc::rt::float_value(t) : -1.0);
    std::printf("\n");
  }
  return 0;
}
