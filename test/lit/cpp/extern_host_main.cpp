// Runs the wrappers wirc emits with --cpp-extern=hooks for extern-mm.json,
// extern-topk.json and extern-alloc.json (WIRC_GENERATED_MM, _TOPK, _ALLOC) on
// the host, without a GPU: this file defines the three CUDA driver functions
// a wrapper without kernels calls (allocation over host memory), so "device"
// pointers are host pointers the hooks can read. It checks the calling
// convention end to end: every kind of argument as the hooks decode it, the
// results, that an owner handle is released exactly once after the last
// buffer that uses it, that no allocation leaks, and the errors of missing,
// failing and misbehaving hooks.
#include WIRC_GENERATED_MM
#include WIRC_GENERATED_TOPK
#include WIRC_GENERATED_ALLOC

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace {
int liveAllocations = 0;
} // namespace

// Host memory in place of the driver's (the macros of cuda.h name the _v2
// entry points).
extern "C" CUresult CUDAAPI cuMemAlloc(CUdeviceptr *ptr, size_t bytes) {
  *ptr = reinterpret_cast<CUdeviceptr>(std::malloc(bytes));
  ++liveAllocations;
  return CUDA_SUCCESS;
}
extern "C" CUresult CUDAAPI cuMemFree(CUdeviceptr ptr) {
  std::free(reinterpret_cast<void *>(ptr));
  --liveAllocations;
  return CUDA_SUCCESS;
}
extern "C" CUresult CUDAAPI cuGetErrorName(CUresult, const char **name) {
  *name = "CUDA_ERROR_HOST_TEST";
  return CUDA_SUCCESS;
}

namespace {

using wirc::rt::ExternCall;
using wirc::rt::ExternKind;
using wirc::rt::ExternValue;
using wirc::rt::Tensor;

int failures = 0, passes = 0;

void expect(bool ok, const std::string &what) {
  std::printf("%s %s\n", ok ? "ok" : "FAIL", what.c_str());
  (ok ? passes : failures)++;
}

template <typename T> T *at(const Tensor &t) { return reinterpret_cast<T *>(t.data); }

template <typename T> T element(const Tensor &t, int64_t i, int64_t j = 0) {
  return at<T>(t)[i * t.strides[0] + (t.rank > 1 ? j * t.strides[1] : 0)];
}

/// What the hooks saw and did.
struct State {
  int releases = 0;
  int liveOwners = 0;
  bool withAddmm = true;
  bool failTopk = false;
  bool topkOwnerWithoutRelease = false;
  bool fullReturnsTwo = false;
  std::vector<std::string> valuesSeen; ///< the test op's arguments, decoded
  void *lastOwner = nullptr;
};
State *state;

/// Memory a hook returns: host vectors, released through the owner handle.
struct Owner {
  std::vector<std::vector<char>> blocks;
  Tensor add(int64_t elements, int64_t itemsize, std::vector<int64_t> sizes) {
    blocks.emplace_back(static_cast<size_t>(std::max<int64_t>(elements, 1) * itemsize));
    std::vector<int64_t> strides(sizes.size(), 1);
    for (size_t d = sizes.size(); d-- > 1;)
      strides[d - 1] = strides[d] * sizes[d];
    return wirc::rt::make_tensor(reinterpret_cast<CUdeviceptr>(blocks.back().data()), 0,
                                 static_cast<int>(sizes.size()), sizes.data(), strides.data());
  }
};

Owner *newOwner() {
  ++state->liveOwners;
  return new Owner;
}

void matmul(const Tensor *bias, const Tensor &a, const Tensor &b, const Tensor &out,
            double alpha, double beta) {
  for (int64_t i = 0; i < a.sizes[0]; ++i)
    for (int64_t j = 0; j < b.sizes[1]; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < a.sizes[1]; ++p)
        sum += double(element<float>(a, i, p)) * double(element<float>(b, p, j));
      at<float>(out)[i * out.strides[0] + j * out.strides[1]] =
          float(alpha * sum + (bias ? beta * double(element<float>(*bias, i, j)) : 0.0));
    }
}

double number(const ExternValue &v) {
  return v.kind == ExternKind::Double ? v.double_value : double(v.int_value);
}

int mmHook(void *, ExternCall *call) {
  matmul(nullptr, call->args[0].tensor, call->args[1].tensor, call->out->tensor, 1, 0);
  return 0;
}

int addmmHook(void *, ExternCall *call) {
  double alpha = 1, beta = 1;
  for (int i = call->num_args; i < call->num_args + call->num_kwargs; ++i) {
    if (std::strcmp(call->args[i].name, "alpha") == 0)
      alpha = number(call->args[i]);
    else if (std::strcmp(call->args[i].name, "beta") == 0)
      beta = number(call->args[i]);
  }
  matmul(&call->args[0].tensor, call->args[1].tensor, call->args[2].tensor, call->out->tensor,
         alpha, beta);
  return 0;
}

int topkHook(void *, ExternCall *call) {
  if (state->failTopk) {
    std::snprintf(call->error, static_cast<size_t>(call->error_bytes), "k out of range");
    return 1;
  }
  const Tensor &x = call->args[0].tensor;
  int64_t k = call->args[1].int_value;
  std::vector<int64_t> order(static_cast<size_t>(x.sizes[0]));
  std::iota(order.begin(), order.end(), int64_t(0));
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return element<float>(x, a) > element<float>(x, b);
  });
  Owner *owner = newOwner();
  call->results[0] = owner->add(k, 4, {k});
  call->results[1] = owner->add(k, 8, {k});
  for (int64_t i = 0; i < k; ++i) {
    at<float>(call->results[0])[i] = element<float>(x, order[static_cast<size_t>(i)]);
    at<int64_t>(call->results[1])[i] = order[static_cast<size_t>(i)];
  }
  call->num_results = 2;
  call->owner = owner;
  state->lastOwner = owner;
  return 0;
}

int fullHook(void *, ExternCall *call) {
  const ExternValue &size = call->args[0];
  int64_t rows = size.items[0].int_value, cols = size.items[1].int_value;
  Owner *owner = newOwner();
  call->results[0] = owner->add(rows * cols, 4, {rows, cols});
  for (int64_t i = 0; i < rows * cols; ++i)
    at<float>(call->results[0])[i] = float(call->args[1].double_value);
  call->num_results = 1;
  if (state->fullReturnsTwo) {
    call->results[1] = call->results[0];
    call->num_results = 2;
  }
  call->owner = owner;
  return 0;
}

int divHook(void *, ExternCall *call) {
  const Tensor &a = call->args[0].tensor, &b = call->args[1].tensor;
  bool floorMode = std::string(call->args[2].name) == "rounding_mode" &&
                   std::string(call->args[2].text, size_t(call->args[2].int_value)) == "floor";
  Owner *owner = newOwner();
  call->results[0] = owner->add(a.sizes[0], 4, {a.sizes[0]});
  for (int64_t i = 0; i < a.sizes[0]; ++i) {
    float q = element<float>(a, i) / element<float>(b, i);
    at<float>(call->results[0])[i] = floorMode ? std::floor(q) : q;
  }
  call->num_results = 1;
  call->owner = owner;
  return 0;
}

int clampHook(void *, ExternCall *call) {
  // clamp_(self, (min, max), None): in place, returns nothing.
  const Tensor &t = call->args[0].tensor;
  const ExternValue &bounds = call->args[1];
  for (int64_t i = 0; i < t.sizes[0]; ++i) {
    float &x = at<float>(t)[i * t.strides[0]];
    x = std::min(std::max(x, float(bounds.items[0].double_value)), float(bounds.items[1].double_value));
  }
  return 0;
}

/// A value as text, to check what the hook received.
std::string describe(const ExternValue &v) {
  switch (v.kind) {
  case ExternKind::None:
    return "None";
  case ExternKind::Bool:
    return v.int_value ? "True" : "False";
  case ExternKind::Int:
    return std::to_string(v.int_value);
  case ExternKind::Double: {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v.double_value);
    return text;
  }
  case ExternKind::String:
    return "'" + std::string(v.text, size_t(v.int_value)) + "'";
  case ExternKind::Tensor:
    return std::string("tensor ") + v.text + " itemsize " + std::to_string(v.int_value) +
           " rank " + std::to_string(v.tensor.rank) + " size0 " + std::to_string(v.tensor.sizes[0]) +
           " stride0 " + std::to_string(v.tensor.strides[0]);
  case ExternKind::DType:
    return std::string("dtype ") + v.text;
  case ExternKind::Device:
    return std::string("device ") + v.text + ":" + std::to_string(v.int_value);
  case ExternKind::List:
  case ExternKind::Tuple: {
    std::string s = v.kind == ExternKind::List ? "[" : "(";
    for (int i = 0; i < v.num_items; ++i)
      s += (i ? ", " : "") + describe(v.items[i]);
    return s + (v.kind == ExternKind::List ? "]" : ")");
  }
  }
  return "?";
}

CUdeviceptr viewData = 0; ///< the view argument's address, to check its offset

int valuesHook(void *, ExternCall *call) {
  for (int i = 0; i < call->num_args; ++i)
    state->valuesSeen.push_back(describe(call->args[i]));
  viewData = call->args[10].tensor.data - call->args[9].items[0].tensor.data;
  return 0;
}

wirc::rt::ExternFn lookup(void *, const char *op) {
  static const wirc::rt::ExternEntry table[] = {
      {"extern_kernels.mm", mmHook},          {"extern_kernels.addmm", addmmHook},
      {"aten.topk.default", topkHook},        {"aten.full.default", fullHook},
      {"aten.div.Tensor_mode", divHook},      {"aten.clamp_.default", clampHook},
      {"torch.ops.wirc_test.values.default", valuesHook}};
  if (!state->withAddmm && std::strcmp(op, "extern_kernels.addmm") == 0)
    return nullptr;
  return wirc::rt::find_extern(table, sizeof table / sizeof table[0], op);
}

void release(void *, void *owner) {
  ++state->releases;
  --state->liveOwners;
  delete static_cast<Owner *>(owner);
}

wirc::rt::ExternHooks hooks() { return {nullptr, lookup, release}; }

void testMatmul(int64_t rows) {
  State s;
  state = &s;
  std::vector<float> a(static_cast<size_t>(rows * 8)), w(8 * 16), bias(16);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = std::sin(0.1f * float(i));
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = std::cos(0.2f * float(i));
  for (size_t i = 0; i < bias.size(); ++i)
    bias[i] = 0.25f * float(i);
  const int64_t aSize[] = {rows, 8}, aStride[] = {8, 1}, wSize[] = {8, 16}, wStride[] = {16, 1},
                bSize[] = {16}, bStride[] = {1};
  Tensor inputs[] = {
      wirc::rt::make_tensor(reinterpret_cast<CUdeviceptr>(a.data()), 0, 2, aSize, aStride),
      wirc::rt::make_tensor(reinterpret_cast<CUdeviceptr>(w.data()), 0, 2, wSize, wStride),
      wirc::rt::make_tensor(reinterpret_cast<CUdeviceptr>(bias.data()), 0, 1, bSize, bStride)};
  int bad = 0;
  {
    Tensor outputs[2];
    wirc::rt::Buffer storage[2];
    wirc_graph_extern_mm::Kernels kernels;
    wirc_graph_extern_mm::run(kernels, hooks(), inputs, nullptr, outputs, storage, nullptr);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < 16; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < 8; ++p)
          sum += double(a[size_t(i * 8 + p)]) * double(w[size_t(p * 16 + j)]);
        bad += std::fabs(element<float>(outputs[0], i, j) - sum) > 1e-4;
        bad += std::fabs(element<float>(outputs[1], i, j) - (sum + 0.5 * bias[size_t(j)])) > 1e-4;
      }
  }
  expect(bad == 0 && liveAllocations == 0,
         "mm and addmm (broadcast view, alpha, beta) through hooks, rows=" + std::to_string(rows));
}

void testTopk() {
  State s;
  state = &s;
  float x[] = {0.5f, -1.0f, 3.0f, 2.0f, 7.0f, 0.0f, -4.0f, 6.5f};
  const int64_t size[] = {8}, stride[] = {1};
  Tensor inputs[] = {
      wirc::rt::make_tensor(reinterpret_cast<CUdeviceptr>(x), 0, 1, size, stride)};
  Tensor outputs[2];
  wirc::rt::Buffer storage[2];
  wirc_graph_extern_topk::Kernels kernels;
  wirc_graph_extern_topk::run(kernels, hooks(), inputs, nullptr, outputs, storage, nullptr);
  expect(at<float>(outputs[0])[0] == 7.0f && at<float>(outputs[0])[1] == 6.5f &&
             at<int64_t>(outputs[1])[0] == 4 && at<int64_t>(outputs[1])[1] == 7,
         "topk through a hook returning a tuple, unpacked by multi_output");
  expect(s.releases == 0, "the owner is kept while the outputs live");
  bool threw = false;
  try {
    storage[0].release();
  } catch (const wirc::rt::Error &) {
    threw = true;
  }
  expect(threw && s.releases == 0, "Buffer::release() refuses memory a hook owns");
  storage[0].reset();
  expect(s.releases == 0, "the owner is kept while one output lives");
  storage[1].reset();
  expect(s.releases == 1 && s.liveOwners == 0, "the owner is released once, after the last output");
}

void testAlloc() {
  State s;
  state = &s;
  std::vector<float> a = {7.0f, -3.0f, 1.0f, 0.5f}, b = {2.0f, 2.0f, 4.0f, 1.0f};
  const int64_t size[] = {4}, stride[] = {1};
  Tensor inputs[] = {
      wirc::rt::make_tensor(reinterpret_cast<CUdeviceptr>(a.data()), 0, 1, size, stride),
      wirc::rt::make_tensor(reinterpret_cast<CUdeviceptr>(b.data()), 0, 1, size, stride)};
  {
    Tensor outputs[2];
    wirc::rt::Buffer storage[2];
    wirc_graph_extern_alloc::Kernels kernels;
    wirc_graph_extern_alloc::run(kernels, hooks(), inputs, nullptr, outputs, storage, nullptr);
    bool full = outputs[0].rank == 2 && outputs[0].sizes[0] == 4 && outputs[0].sizes[1] == 2;
    for (int64_t i = 0; full && i < 8; ++i)
      full = at<float>(outputs[0])[i] == 1.5f;
    expect(full, "aten.full: a list of a symbolic size and an int, a double, dtype kwarg");
    // floor(a / b) = 3, -2, 0, 0, clamped to [-0.25, 1e-05].
    const float want[] = {1e-05f, -0.25f, 0.0f, 0.0f};
    bool div = true;
    for (int64_t i = 0; i < 4; ++i)
      div = div && at<float>(outputs[1])[i] == want[i];
    expect(div, "aten.div.Tensor_mode with a string kwarg, then clamp_ in place");
    const std::vector<std::string> values = {
        "None", "True", "-7", "0.1",
        std::string("'a \"quoted\"\nline, a back\\slash, ?\?=, \303\251 and a \0 byte'", 53),
        "dtype int64", "device cuda:0",
        "9", "[[1, 2], []]", "(tensor float32 itemsize 4 rank 2 size0 4 stride0 2, 3)",
        "tensor float32 itemsize 4 rank 1 size0 2 stride0 2"};
    expect(s.valuesSeen == values, "every kind of argument decodes as the graph wrote it");
    for (size_t i = 0; i < s.valuesSeen.size() && s.valuesSeen != values; ++i)
      std::printf("  arg %zu: %s\n", i, s.valuesSeen[i].c_str());
    expect(viewData == 4, "a view's offset is applied to its data pointer");
  }
  expect(s.liveOwners == 0 && s.releases == 2 && liveAllocations == 0,
         "every owner released once, nothing leaked");
}

template <typename Run> std::string errorOf(Run run) {
  try {
    run();
  } catch (const wirc::rt::Error &e) {
    return e.what();
  }
  return "(no error)";
}

void testErrors() {
  State s;
  state = &s;
  float x[8] = {};
  const int64_t size[] = {8}, stride[] = {1}, aSize[] = {1, 8}, aStride[] = {8, 1};
  Tensor outputs[2];
  wirc::rt::Buffer storage[2];

  s.withAddmm = false;
  Tensor mmInputs[3] = {wirc::rt::make_tensor(0, 0, 2, aSize, aStride)};
  std::string message = errorOf([&] {
    wirc_graph_extern_mm::Kernels kernels;
    wirc_graph_extern_mm::run(kernels, hooks(), mmInputs, nullptr, outputs, storage, nullptr);
  });
  expect(message.find("extern_kernels.addmm: no extern hook implements this op") == 0 &&
             liveAllocations == 0,
         "a missing hook names the op before anything runs: " + message);
  message = errorOf([&] {
    wirc_graph_extern_mm::Kernels kernels;
    wirc_graph_extern_mm::run(kernels, wirc::rt::ExternHooks(), mmInputs, nullptr, outputs,
                              storage, nullptr);
  });
  expect(message.find("extern_kernels.mm: no extern hook") == 0,
         "an empty hook table names the first op: " + message);

  Tensor topkInputs[] = {
      wirc::rt::make_tensor(reinterpret_cast<CUdeviceptr>(x), 0, 1, size, stride)};
  s.failTopk = true;
  message = errorOf([&] {
    wirc_graph_extern_topk::Kernels kernels;
    wirc_graph_extern_topk::run(kernels, hooks(), topkInputs, nullptr, outputs, storage, nullptr);
  });
  expect(message == "aten.topk.default: the extern hook failed: k out of range",
         "a failing hook's message, with the op: " + message);
  s.failTopk = false;

  message = errorOf([&] {
    wirc::rt::ExternHooks noRelease{nullptr, lookup, nullptr};
    wirc_graph_extern_topk::Kernels kernels;
    wirc_graph_extern_topk::run(kernels, noRelease, topkInputs, nullptr, outputs, storage,
                                nullptr);
  });
  expect(message.find("aten.topk.default: the hook returned an owner handle, but") == 0,
         "an owner handle without a release function: " + message);
  // The wrapper could not release that owner (the table has no function to).
  release(nullptr, s.lastOwner);

  s.fullReturnsTwo = true;
  float a[4] = {1, 1, 1, 1};
  const int64_t oneSize[] = {4};
  Tensor allocInputs[] = {
      wirc::rt::make_tensor(reinterpret_cast<CUdeviceptr>(a), 0, 1, oneSize, stride),
      wirc::rt::make_tensor(reinterpret_cast<CUdeviceptr>(a), 0, 1, oneSize, stride)};
  int releasesBefore = s.releases;
  message = errorOf([&] {
    wirc_graph_extern_alloc::Kernels kernels;
    wirc_graph_extern_alloc::run(kernels, hooks(), allocInputs, nullptr, outputs, storage,
                                 nullptr);
  });
  expect(message == "aten.full.default: the hook returned 2 tensors, expected 1" &&
             s.releases == releasesBefore + 1 && s.liveOwners == 0,
         "a tensor result with two tensors is an error, and the owner is released: " + message);
}

} // namespace

int main() {
  for (int64_t rows : {int64_t(0), int64_t(1), int64_t(5)})
    testMatmul(rows);
  testTopk();
  testAlloc();
  testErrors();
  std::printf("%d passed, %d failed\n", passes, failures);
  return failures != 0;
}
