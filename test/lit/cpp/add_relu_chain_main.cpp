// Runs the wrapper wirc emits for Inputs/add-relu-chain.json (included through
// WIRC_GENERATED, emitted with a pool or arena memory plan) on the GPU and
// checks it against the host: intermediates carved from one allocation at
// offsets must not disturb each other.
#include WIRC_GENERATED

#include <cmath>
#include <cstdio>
#include <vector>

#define CHECK_CU(call) wirc::rt::check((call), #call, "harness")

int main() {
  wirc::rt::use_primary_context(0);

  const int64_t n = 1000;
  std::vector<float> a(n), b(n), out(n, -1.0f);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = std::sin(0.1f * i);
    b[i] = std::cos(0.3f * i) - 0.5f;
  }
  wirc::rt::Buffer da(n * 4), db(n * 4);
  CHECK_CU(cuMemcpyHtoD(da.get(), a.data(), n * 4));
  CHECK_CU(cuMemcpyHtoD(db.get(), b.data(), n * 4));
  const int64_t size[] = {n}, stride[] = {1};
  wirc::rt::Tensor inputs[] = {wirc::rt::make_tensor(da.get(), 0, 1, size, stride),
                               wirc::rt::make_tensor(db.get(), 0, 1, size, stride)};
  wirc::rt::Tensor outputs[1];
  wirc::rt::Buffer storage[1];
  wirc_graph_add_relu_chain::Kernels kernels;
  wirc_graph_add_relu_chain::run(kernels, inputs, nullptr, outputs, storage, nullptr);
  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuMemcpyDtoH(out.data(), outputs[0].data, n * 4));
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    float buf0 = std::fmax(a[i] + b[i], 0.0f);
    float buf1 = std::fmax(buf0 + a[i], 0.0f);
    float buf2 = std::fmax(buf1 + buf0, 0.0f);
    bad += out[i] != std::fmax(buf2 + buf1, 0.0f);
  }
  std::printf("%s\n", bad ? "FAIL" : "ok");
  return bad != 0;
}
