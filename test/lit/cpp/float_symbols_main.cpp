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

// The half values read: element 3 of `h` after each of these is put there.
static const uint16_t kHalves[] = {0x3C00, 0xC000, 0x0001, 0x7BFF, 0xFC00, 0x3555};

int main() {
  uint16_t h[4] = {};
  const uint16_t b = 0x3FC0;      // bfloat16 1.5
  const float f = 0.1f;           // widened exactly
  const double d = -2.5e-300;
  const int64_t hsize[] = {4}, hstride[] = {1}, none[] = {0};
  for (uint16_t half : kHalves) {
    h[3] = half;
    wirc::rt::Tensor inputs[] = {wirc::rt::make_tensor(address(h), 0, 1, hsize, hstride),
                                 wirc::rt::make_tensor(address(&b), 0, 0, none, none),
                                 wirc::rt::make_tensor(address(&f), 0, 0, none, none),
                                 wirc::rt::make_tensor(address(&d), 0, 0, none, none)};
    wirc::rt::Tensor outputs[4];
    wirc::rt::Buffer storage[4];
    wirc_graph_float_symbols::Kernels kernels;
    wirc_graph_float_symbols::run(kernels, inputs, nullptr, outputs, storage, nullptr);
    for (const wirc::rt::Tensor &t : outputs)
      std::printf("%s%.17g", &t == outputs ? "" : " ",
                  t.rank == -2 ? wirc::rt::float_value(t) : -1.0);
    std::printf("\n");
  }
  return 0;
}
