// Runs the wrappers wirc emits with --cpp-extern=hooks for extern-mm.json and
// extern-topk.json (included through WIRC_GENERATED_MM and
// WIRC_GENERATED_TOPK) on the GPU, with a hook table that implements
// extern_kernels.mm, extern_kernels.addmm and aten.topk.default on the host,
// and checks: the results against a host computation, that a returned
// tensor's owner handle is released exactly once, after the last output that
// uses it is dropped, and the errors of a missing and of a failing hook.
#include WIRC_GENERATED_MM
#include WIRC_GENERATED_TOPK

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#define CHECK_CU(call) wirc::rt::check((call), #call, "harness")

namespace {

struct State {
  int mmCalls = 0;
  int releases = 0;
  bool failTopk = false;
  bool withAddmm = true;
};

/// The elements of a float tensor (any strides) in row-major order.
std::vector<float> download(const wirc::rt::Tensor &t) {
  int64_t numel = 1, extent = 1;
  for (int d = 0; d < t.rank; ++d) {
    numel *= t.sizes[d];
    extent += (t.sizes[d] - 1) * t.strides[d];
  }
  std::vector<float> out(static_cast<size_t>(numel));
  if (numel == 0)
    return out;
  std::vector<float> span(static_cast<size_t>(extent));
  CHECK_CU(cuMemcpyDtoH(span.data(), t.data, static_cast<size_t>(extent) * 4));
  for (int64_t i = 0; i < numel; ++i) {
    int64_t rest = i, offset = 0;
    for (int d = t.rank - 1; d >= 0; --d) {
      offset += (rest % t.sizes[d]) * t.strides[d];
      rest /= t.sizes[d];
    }
    out[static_cast<size_t>(i)] = span[static_cast<size_t>(offset)];
  }
  return out;
}

/// Writes a contiguous 2-D result.
void upload(const wirc::rt::Tensor &t, const std::vector<float> &values) {
  if (!values.empty())
    CHECK_CU(cuMemcpyHtoD(t.data, values.data(), values.size() * 4));
}

double number(const wirc::rt::ExternValue &v) {
  return v.kind == wirc::rt::ExternKind::Double ? v.double_value
                                                : static_cast<double>(v.int_value);
}

/// out = beta * bias + alpha * a @ b, on the host.
void matmul(const wirc::rt::Tensor *bias, const wirc::rt::Tensor &a, const wirc::rt::Tensor &b,
            const wirc::rt::Tensor &out, double alpha, double beta) {
  int64_t m = a.sizes[0], k = a.sizes[1], n = b.sizes[1];
  std::vector<float> ha = download(a), hb = download(b), c(static_cast<size_t>(m * n));
  std::vector<float> hbias = bias ? download(*bias) : std::vector<float>();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += double(ha[i * k + p]) * double(hb[p * n + j]);
      c[i * n + j] = float(alpha * sum + (bias ? beta * hbias[i * n + j] : 0.0));
    }
  upload(out, c);
}

int mmHook(void *user, wirc::rt::ExternCall *call) {
  static_cast<State *>(user)->mmCalls++;
  matmul(nullptr, call->args[0].tensor, call->args[1].tensor, call->out->tensor, 1, 0);
  return 0;
}

int addmmHook(void *, wirc::rt::ExternCall *call) {
  double alpha = 1, beta = 1;
  for (int i = call->num_args; i < call->num_args + call->num_kwargs; ++i) {
    if (std::strcmp(call->args[i].name, "alpha") == 0)
      alpha = number(call->args[i]);
    if (std::strcmp(call->args[i].name, "beta") == 0)
      beta = number(call->args[i]);
  }
  matmul(&call->args[0].tensor, call->args[1].tensor, call->args[2].tensor, call->out->tensor,
         alpha, beta);
  return 0;
}

/// The memory of one topk call's two results.
struct TopkOwner {
  wirc::rt::Buffer values, indices;
};

int topkHook(void *user, wirc::rt::ExternCall *call) {
  if (static_cast<State *>(user)->failTopk) {
    std::snprintf(call->error, static_cast<size_t>(call->error_bytes), "k out of range");
    return 1;
  }
  std::vector<float> x = download(call->args[0].tensor);
  int64_t k = call->args[1].int_value;
  std::vector<int64_t> order(x.size());
  std::iota(order.begin(), order.end(), int64_t(0));
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return x[a] > x[b]; });
  std::vector<float> values;
  std::vector<int64_t> indices(order.begin(), order.begin() + k);
  for (int64_t i : indices)
    values.push_back(x[static_cast<size_t>(i)]);
  auto *owner = new TopkOwner{wirc::rt::Buffer(k * 4), wirc::rt::Buffer(k * 8)};
  CHECK_CU(cuMemcpyHtoD(owner->values.get(), values.data(), static_cast<size_t>(k) * 4));
  CHECK_CU(cuMemcpyHtoD(owner->indices.get(), indices.data(), static_cast<size_t>(k) * 8));
  const int64_t size[] = {k}, stride[] = {1};
  call->num_results = 2;
  call->results[0] = wirc::rt::make_tensor(owner->values.get(), 0, 1, size, stride);
  call->results[1] = wirc::rt::make_tensor(owner->indices.get(), 0, 1, size, stride);
  call->owner = owner;
  return 0;
}

wirc::rt::ExternFn lookup(void *user, const char *op) {
  static const wirc::rt::ExternEntry table[] = {{"extern_kernels.mm", mmHook},
                                                {"extern_kernels.addmm", addmmHook},
                                                {"aten.topk.default", topkHook}};
  if (!static_cast<State *>(user)->withAddmm && std::strcmp(op, "extern_kernels.addmm") == 0)
    return nullptr;
  return wirc::rt::find_extern(table, sizeof table / sizeof table[0], op);
}

void release(void *user, void *owner) {
  static_cast<State *>(user)->releases++;
  delete static_cast<TopkOwner *>(owner);
}

int failures = 0, passes = 0;

void expect(bool ok, const std::string &what) {
  std::printf("%s %s\n", ok ? "ok" : "FAIL", what.c_str());
  (ok ? passes : failures)++;
}

void testMatmul(int64_t rows) {
  State state;
  wirc::rt::ExternHooks hooks{&state, lookup, release};
  std::vector<float> a(static_cast<size_t>(rows * 8)), w(8 * 16), bias(16);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = std::sin(0.1f * float(i));
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = std::cos(0.2f * float(i));
  for (size_t i = 0; i < bias.size(); ++i)
    bias[i] = 0.25f * float(i);
  wirc::rt::Buffer da(rows * 32), dw(8 * 16 * 4), db(16 * 4);
  if (rows)
    CHECK_CU(cuMemcpyHtoD(da.get(), a.data(), a.size() * 4));
  CHECK_CU(cuMemcpyHtoD(dw.get(), w.data(), w.size() * 4));
  CHECK_CU(cuMemcpyHtoD(db.get(), bias.data(), bias.size() * 4));
  const int64_t aSize[] = {rows, 8}, aStride[] = {8, 1}, wSize[] = {8, 16}, wStride[] = {16, 1},
                bSize[] = {16}, bStride[] = {1};
  wirc::rt::Tensor inputs[] = {wirc::rt::make_tensor(da.get(), 0, 2, aSize, aStride),
                               wirc::rt::make_tensor(dw.get(), 0, 2, wSize, wStride),
                               wirc::rt::make_tensor(db.get(), 0, 1, bSize, bStride)};
  wirc::rt::Tensor outputs[2];
  wirc::rt::Buffer storage[2];
  wirc_graph_extern_mm::Kernels kernels;
  wirc_graph_extern_mm::run(kernels, hooks, inputs, nullptr, outputs, storage, nullptr);
  CHECK_CU(cuCtxSynchronize());
  std::vector<float> mm = download(outputs[0]), addmm = download(outputs[1]);
  int bad = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < 16; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < 8; ++p)
        sum += double(a[i * 8 + p]) * double(w[p * 16 + j]);
      bad += std::fabs(mm[i * 16 + j] - sum) > 1e-4;
      bad += std::fabs(addmm[i * 16 + j] - (sum + 0.5 * bias[j])) > 1e-4;
    }
  expect(bad == 0 && state.mmCalls == 1, "mm and addmm through hooks, rows=" +
                                             std::to_string(rows));
}

void testTopk() {
  State state;
  wirc::rt::ExternHooks hooks{&state, lookup, release};
  const float x[] = {0.5f, -1.0f, 3.0f, 2.0f, 7.0f, 0.0f, -4.0f, 6.5f};
  wirc::rt::Buffer dx(sizeof x);
  CHECK_CU(cuMemcpyHtoD(dx.get(), x, sizeof x));
  const int64_t size[] = {8}, stride[] = {1};
  wirc::rt::Tensor inputs[] = {wirc::rt::make_tensor(dx.get(), 0, 1, size, stride)};
  wirc::rt::Tensor outputs[2];
  wirc::rt::Buffer storage[2];
  wirc_graph_extern_topk::Kernels kernels;
  wirc_graph_extern_topk::run(kernels, hooks, inputs, nullptr, outputs, storage, nullptr);
  float values[2];
  int64_t indices[2];
  CHECK_CU(cuMemcpyDtoH(values, outputs[0].data, sizeof values));
  CHECK_CU(cuMemcpyDtoH(indices, outputs[1].data, sizeof indices));
  expect(values[0] == 7.0f && values[1] == 6.5f && indices[0] == 4 && indices[1] == 7,
         "topk through a hook returning a tuple");
  expect(state.releases == 0, "owner kept while the outputs live");
  storage[0].reset();
  expect(state.releases == 0, "owner kept while one output lives");
  storage[1].reset();
  expect(state.releases == 1, "owner released once, after the last output");
}

void testErrors() {
  State state;
  state.withAddmm = false;
  wirc::rt::ExternHooks hooks{&state, lookup, release};
  const int64_t aSize[] = {1, 8}, aStride[] = {8, 1};
  wirc::rt::Tensor inputs[3] = {wirc::rt::make_tensor(0, 0, 2, aSize, aStride)};
  wirc::rt::Tensor outputs[2];
  wirc::rt::Buffer storage[2];
  std::string message;
  try {
    wirc_graph_extern_mm::Kernels kernels;
    wirc_graph_extern_mm::run(kernels, hooks, inputs, nullptr, outputs, storage, nullptr);
  } catch (const wirc::rt::Error &e) {
    message = e.what();
  }
  expect(message.find("extern_kernels.addmm: no extern hook implements this op") == 0 &&
             state.mmCalls == 0,
         "a missing hook names the op before anything runs: " + message);

  state.failTopk = true;
  const int64_t size[] = {8}, stride[] = {1};
  wirc::rt::Tensor topkInputs[] = {wirc::rt::make_tensor(0, 0, 1, size, stride)};
  message.clear();
  try {
    wirc_graph_extern_topk::Kernels kernels;
    wirc_graph_extern_topk::run(kernels, hooks, topkInputs, nullptr, outputs, storage, nullptr);
  } catch (const wirc::rt::Error &e) {
    message = e.what();
  }
  expect(message == "aten.topk.default: the extern hook failed: k out of range",
         "a failing hook's message: " + message);
}

} // namespace

int main() {
  wirc::rt::use_primary_context(0);
  for (int64_t rows : {int64_t(0), int64_t(1), int64_t(5)})
    testMatmul(rows);
  testTopk();
  testErrors();
  std::printf("%d passed, %d failed\n", passes, failures);
  return failures != 0;
}
