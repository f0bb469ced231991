// Runs the wrapper of cpp/Inputs/int-outputs.json on the host and prints its
// outputs: the tensor's rank and size, and each integer output (rank -1, the
// value in sizes[0]). The wrapper launches no kernels and allocates nothing;
// the input's "device" address is never read.
#include WIRC_GENERATED

#include <cstdio>

extern "C" CUresult CUDAAPI cuMemAlloc(CUdeviceptr *ptr, size_t) {
  *ptr = 0;
  return CUDA_ERROR_OUT_OF_MEMORY;
}
extern "C" CUresult CUDAAPI cuMemFree(CUdeviceptr) { return CUDA_SUCCESS; }
extern "C" CUresult CUDAAPI cuGetErrorName(CUresult, const char **name) {
  *name = "CUDA_ERROR_HOST_TEST";
  return CUDA_SUCCESS;
}

int main() {
  float host[5] = {};
  const int64_t size[] = {5}, stride[] = {1};
  wirc::rt::Tensor inputs[] = {
      wirc::rt::make_tensor(static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(host)), 0, 1,
                            size, stride)};
  const int64_t symbols[] = {5};
  wirc::rt::Tensor outputs[4];
  wirc::rt::Buffer storage[4];
  wirc_graph_int_outputs::Kernels kernels;
  wirc_graph_int_outputs::run(kernels, inputs, symbols, outputs, storage, nullptr);
  for (const wirc::rt::Tensor &t : outputs) {
    if (t.rank < 0)
      std::printf("int %lld\n", static_cast<long long>(t.sizes[0]));
    else
      std::printf("tensor rank %d size %lld\n", t.rank, static_cast<long long>(t.sizes[0]));
  }
  return 0;
}
