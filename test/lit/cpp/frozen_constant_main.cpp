// Runs the wrapper wirc emits for Inputs/frozen-constant.json (included
// through WIRC_GENERATED) on the GPU: relu(x + w) with w a constant of the
// module, passed after the tensor input; then a constant of the wrong size,
// which run() must refuse before launching anything.
#include WIRC_GENERATED

#include <cmath>
#include <cstdio>
#include <vector>

#define CHECK_CU(call) wirc::rt::check((call), #call, "harness")

int main() {
  wirc::rt::use_primary_context(0);

  constexpr int64_t n = 1000;
  std::vector<float> x(n), w(n), out(n, -1.0f);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = std::sin(0.1f * i);
    w[i] = std::cos(0.3f * i) - 0.5f;
  }
  wirc::rt::Buffer dx(n * 4), dw(n * 4);
  CHECK_CU(cuMemcpyHtoD(dx.get(), x.data(), n * 4));
  CHECK_CU(cuMemcpyHtoD(dw.get(), w.data(), n * 4));
  const int64_t size[] = {n}, stride[] = {1};
  wirc::rt::Tensor inputs[] = {wirc::rt::make_tensor(dx.get(), 0, 1, size, stride),
                               wirc::rt::make_tensor(dw.get(), 0, 1, size, stride)};
  wirc::rt::Tensor outputs[1];
  wirc::rt::Buffer storage[1];
  wirc_graph_frozen_add_relu::Kernels kernels;
  wirc_graph_frozen_add_relu::run(kernels, inputs, nullptr, outputs, storage, nullptr);
  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuMemcpyDtoH(out.data(), outputs[0].data, n * 4));
  int bad = 0;
  for (int64_t i = 0; i < n; ++i)
    bad += out[i] != std::fmax(x[i] + w[i], 0.0f);
  std::printf("constant after the input: %s\n", bad ? "FAIL" : "ok");

  const int64_t shorter[] = {n - 1};
  inputs[1] = wirc::rt::make_tensor(dw.get(), 0, 1, shorter, stride);
  bool refused = false;
  try {
    wirc_graph_frozen_add_relu::run(kernels, inputs, nullptr, outputs, storage, nullptr);
  } catch (const wirc::rt::Error &e) {
    refused = true;
    std::printf("wrong constant refused: %s\n", e.what());
  }
  if (!refused)
    std::printf("FAIL: a constant of the wrong size was accepted\n");
  return bad != 0 || !refused;
}
