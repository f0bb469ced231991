// Prints every argument a --cpp-extern=hooks wrapper passes to its hooks, one
// call per line, in a canonical form that extern_values_roundtrip.py compares
// with the values of the graph it generated. Runs on the host: the wrapper
// (WIRC_GENERATED) launches no kernels and allocates nothing, and the input
// tensor's "device" address is a host address the harness never reads.
#include WIRC_GENERATED

#include <cstdio>
#include <cstring>
#include <string>

extern "C" CUresult CUDAAPI cuMemAlloc(CUdeviceptr *ptr, size_t) {
  *ptr = 0;
  return CUDA_ERROR_OUT_OF_MEMORY;
}
extern "C" CUresult CUDAAPI cuMemFree(CUdeviceptr) { return CUDA_SUCCESS; }
extern "C" CUresult CUDAAPI cuGetErrorName(CUresult, const char **name) {
  *name = "CUDA_ERROR_HOST_TEST";
  return CUDA_SUCCESS;
}

namespace {

CUdeviceptr base; ///< the input tensor's address; views print their offset from it

std::string hex(const void *data, size_t bytes) {
  std::string out;
  char digits[3];
  for (size_t i = 0; i < bytes; ++i) {
    std::snprintf(digits, sizeof digits, "%02x", static_cast<const unsigned char *>(data)[i]);
    out += digits;
  }
  return out;
}

std::string canonical(const wirc::rt::ExternValue &v) {
  using wirc::rt::ExternKind;
  std::string name = v.name ? std::string("k:") + v.name + "=" : "";
  switch (v.kind) {
  case ExternKind::None:
    return name + "none";
  case ExternKind::Bool:
    return name + "b:" + std::to_string(v.int_value);
  case ExternKind::Int:
    return name + "i:" + std::to_string(v.int_value);
  case ExternKind::Double:
    return name + "d:" + hex(&v.double_value, sizeof v.double_value);
  case ExternKind::String:
    return name + "s:" + hex(v.text, static_cast<size_t>(v.int_value)) +
           (v.text[v.int_value] == 0 ? "" : "!unterminated");
  case ExternKind::Tensor: {
    std::string s = name + "t:" + v.text + ":" + std::to_string(v.int_value) + ":" +
                    std::to_string(static_cast<long long>(v.tensor.data - base)) + ":";
    for (int d = 0; d < v.tensor.rank; ++d)
      s += std::to_string(v.tensor.sizes[d]) + "/" + std::to_string(v.tensor.strides[d]) + ",";
    return s;
  }
  case ExternKind::DType:
    return name + "dt:" + v.text;
  case ExternKind::Device:
    return name + "dev:" + v.text + ":" + std::to_string(v.int_value);
  case ExternKind::List:
  case ExternKind::Tuple: {
    std::string s = name + (v.kind == ExternKind::List ? "[" : "(");
    for (int i = 0; i < v.num_items; ++i)
      s += canonical(v.items[i]) + ";";
    return s + (v.kind == ExternKind::List ? "]" : ")");
  }
  }
  return "?";
}

int printValues(void *, wirc::rt::ExternCall *call) {
  std::string line;
  for (int i = 0; i < call->num_args + call->num_kwargs; ++i)
    line += canonical(call->args[i]) + " ";
  std::printf("%s|%s\n", call->op, line.c_str());
  return 0;
}

wirc::rt::ExternFn lookup(void *, const char *) { return printValues; }

} // namespace

int main(int argc, char **argv) {
  // argv[1]: the size symbol's value, the input's length.
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 4;
  static float storage[1];
  base = reinterpret_cast<CUdeviceptr>(storage);
  const int64_t size[] = {n}, stride[] = {1};
  wirc::rt::Tensor inputs[] = {wirc::rt::make_tensor(base, 0, 1, size, stride)};
  wirc::rt::ExternHooks hooks{nullptr, lookup, nullptr};
  wirc::rt::Tensor outputs[1];
  wirc::rt::Buffer outputStorage[1];
  WIRC_NAMESPACE::Kernels kernels;
  WIRC_NAMESPACE::run(kernels, hooks, inputs, nullptr, outputs, outputStorage, nullptr);
  return 0;
}
