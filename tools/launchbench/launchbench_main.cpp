// Host time per launch: wirc's emitted run() against raw cuLaunchKernel.
//
// WIRC_GENERATED is the wrapper of launchbench.py's graph: LAUNCHES launches
// of add_relu(a, b) -> c. Each repetition times only the host side (the
// launches are asynchronous; the stream is synchronized outside the timed
// region), so the figure is the wrapper's overhead, not the GPU's work.
#include WIRC_GENERATED

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CU(call) wirc::rt::check((call), #call, "launchbench")

namespace ns = wirc_graph_launchbench;
using Clock = std::chrono::steady_clock;

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 1024;
  int reps = argc > 2 ? std::atoi(argv[2]) : 200;
  wirc::rt::use_primary_context(0);
  CUstream stream;
  CHECK_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

  wirc::rt::Buffer a(n * 4), b(n * 4), c(n * 4);
  const int64_t size[] = {n}, stride[] = {1};
  wirc::rt::Tensor inputs[] = {wirc::rt::make_tensor(a.get(), 0, 1, size, stride),
                               wirc::rt::make_tensor(b.get(), 0, 1, size, stride),
                               wirc::rt::make_tensor(c.get(), 0, 1, size, stride)};
  ns::Kernels kernels;
  wirc::rt::Tensor outputs[1];
  wirc::rt::Buffer storage[1];

  // The same function and arguments for the raw loop.
  CUmodule module;
  CHECK_CU(cuModuleLoadData(&module, ns::kImage_add_relu_0));
  CUfunction function;
  CHECK_CU(cuModuleGetFunction(&function, module, "add_relu"));
  CUdeviceptr pa = a.get(), pb = b.get(), pc = c.get();
  int32_t numel = static_cast<int32_t>(n);
  void *args[] = {&pa, &pb, &pc, &numel};
  unsigned grid = static_cast<unsigned>((n + 127) / 128);

  auto timeWrapper = [&] {
    auto start = Clock::now();
    ns::run(kernels, inputs, nullptr, outputs, storage, stream);
    double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    CHECK_CU(cuStreamSynchronize(stream));
    return ns / LAUNCHES;
  };
  auto timeRaw = [&] {
    auto start = Clock::now();
    for (int i = 0; i < LAUNCHES; ++i)
      CHECK_CU(cuLaunchKernel(function, grid, 1, 1, 128, 1, 1, 0, stream, args, nullptr));
    double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    CHECK_CU(cuStreamSynchronize(stream));
    return ns / LAUNCHES;
  };
  // Warm up both (module loads, first-launch costs), then interleave so that
  // drift on a shared machine affects both alike.
  for (int i = 0; i < 10; ++i) {
    timeWrapper();
    timeRaw();
  }
  std::vector<double> wrapper, raw;
  for (int i = 0; i < reps; ++i) {
    wrapper.push_back(timeWrapper());
    raw.push_back(timeRaw());
  }
  double w = median(wrapper), r = median(raw);
  std::printf("launches per run: %d, repetitions: %d, numel: %lld\n", LAUNCHES, reps,
              static_cast<long long>(n));
  std::printf("wirc run(): %.0f ns per launch (median)\n", w);
  std::printf("raw cuLaunchKernel: %.0f ns per launch (median)\n", r);
  std::printf("ratio: %.3f\n", w / r);
  CHECK_CU(cuModuleUnload(module));
  CHECK_CU(cuStreamDestroy(stream));
  return 0;
}
