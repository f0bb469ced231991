// Runs the wrapper wirc emits for samples/cpp/add-relu-ptx.json (included
// through WIRC_GENERATED) on the GPU and checks it against the host: the
// C++ path end to end, with no Python and no libtorch.
#include WIRC_GENERATED

#include <cmath>
#include <cstdio>
#include <vector>

#define CHECK_CU(call) wirc::rt::check((call), #call, "harness")

int main() {
  wirc::rt::use_primary_context(0);

  int failures = 0;
  // Sizes around the block size, zero included: dynamic shapes and empty grids.
  for (int64_t n : {int64_t(0), int64_t(1), int64_t(127), int64_t(128), int64_t(129),
                    int64_t(100000)}) {
    std::vector<float> a(n), b(n), out(n, -1.0f);
    for (int64_t i = 0; i < n; ++i) {
      a[i] = std::sin(0.1f * i);
      b[i] = std::cos(0.3f * i) - 0.5f;
    }
    wirc::rt::Buffer da(n * 4), db(n * 4);
    if (n) {
      CHECK_CU(cuMemcpyHtoD(da.get(), a.data(), n * 4));
      CHECK_CU(cuMemcpyHtoD(db.get(), b.data(), n * 4));
    }
    const int64_t size[] = {n}, stride[] = {1};
    wirc::rt::Tensor inputs[] = {wirc::rt::make_tensor(da.get(), 0, 1, size, stride),
                                 wirc::rt::make_tensor(db.get(), 0, 1, size, stride)};
    wirc::rt::Tensor outputs[1];
    wirc::rt::Buffer storage[1];
    wirc_graph_add_relu::Kernels kernels;
    wirc_graph_add_relu::run(kernels, inputs, nullptr, outputs, storage, nullptr);
    CHECK_CU(cuCtxSynchronize());
    if (n)
      CHECK_CU(cuMemcpyDtoH(out.data(), outputs[0].data, n * 4));
    int bad = 0;
    for (int64_t i = 0; i < n; ++i)
      bad += out[i] != std::fmax(a[i] + b[i], 0.0f);
    std::printf("n=%lld %s\n", static_cast<long long>(n), bad ? "FAIL" : "ok");
    failures += bad != 0;
  }
  std::printf("%d passed, %d failed\n", 6 - failures, failures);
  return failures != 0;
}
