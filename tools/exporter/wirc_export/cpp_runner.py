"""Runs wirc's standalone C++ wrapper (`--emit=cpp`) in place of Inductor's.

The wrapper is built into a shared library together with a small C shim, so
that an Inductor output-code module can call it from Python: tensors go in as
device pointers with their sizes and strides, size symbols as integers, and
the outputs come back as tensors over memory the wrapper allocated (released
when the last tensor that views it is gone). This is how the validation runs
real programs through the C++ wrapper; nothing of it is needed to use the
wrapper from C++.
"""

import ctypes
import os
import re
import subprocess
import weakref

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.normpath(os.path.join(HERE, "..", "..", "..", "include"))
CUDA_ROOT = os.environ.get("CUDA_HOME", "/usr/local/cuda")
MAX_RANK = 8  # a bound of the shim's flat arrays, checked per call

SHIM = r"""
#include "{wrapper}"

#include <cstring>
#include <exception>
#include <vector>

namespace {{
struct Storage {{
  std::vector<wirc::rt::Buffer> buffers;
}};
{ns}::Kernels *kernels;
}} // namespace

extern "C" int wirc_shim_run(int numInputs, const unsigned long long *data, const int *ranks,
                             const int64_t *sizes, const int64_t *strides,
                             const int64_t *symbols, int numOutputs,
                             unsigned long long *outData, int *outRanks, int64_t *outSizes,
                             int64_t *outStrides, void **storage, void *stream, char *error,
                             int errorBytes) {{
  try {{
    if (!kernels)
      kernels = new {ns}::Kernels();
    std::vector<wirc::rt::Tensor> inputs(numInputs > 0 ? numInputs : 1);
    for (int i = 0; i < numInputs; ++i) {{
      inputs[i].data = data[i];
      inputs[i].rank = ranks[i];
      for (int d = 0; d < ranks[i]; ++d) {{
        inputs[i].sizes[d] = sizes[i * {max_rank} + d];
        inputs[i].strides[d] = strides[i * {max_rank} + d];
      }}
    }}
    std::vector<wirc::rt::Tensor> outputs(numOutputs > 0 ? numOutputs : 1);
    auto *owned = new Storage;
    owned->buffers.resize(numOutputs > 0 ? numOutputs : 1);
    try {{
      {ns}::run(*kernels, inputs.data(), symbols, outputs.data(), owned->buffers.data(),
                static_cast<CUstream>(stream));
    }} catch (...) {{
      delete owned;
      throw;
    }}
    for (int i = 0; i < numOutputs; ++i) {{
      outData[i] = outputs[i].data;
      outRanks[i] = outputs[i].rank;
      for (int d = 0; d < outputs[i].rank && d < {max_rank}; ++d) {{
        outSizes[i * {max_rank} + d] = outputs[i].sizes[d];
        outStrides[i * {max_rank} + d] = outputs[i].strides[d];
      }}
    }}
    *storage = owned;
    return 0;
  }} catch (const std::exception &e) {{
    std::strncpy(error, e.what(), errorBytes - 1);
    error[errorBytes - 1] = 0;
    return 1;
  }}
}}

extern "C" void wirc_shim_release(void *storage) {{ delete static_cast<Storage *>(storage); }}
"""

# __cuda_array_interface__ type strings; bfloat16 travels as int16 and is
# reinterpreted afterwards.
TYPESTR = {
    "bool": "|b1", "uint8": "|u1", "int8": "|i1", "int16": "<i2", "int32": "<i4",
    "int64": "<i8", "uint16": "<u2", "uint32": "<u4", "uint64": "<u8", "float16": "<f2",
    "bfloat16": "<i2", "float32": "<f4", "float64": "<f8",
}
ITEMSIZE = {"|b1": 1, "|u1": 1, "|i1": 1, "<i2": 2, "<u2": 2, "<f2": 2, "<i4": 4, "<u4": 4,
            "<f4": 4, "<i8": 8, "<u8": 8, "<f8": 8}


def build(cpp_path: str) -> str:
    """Builds the wrapper at cpp_path and its shim into a shared library."""
    with open(cpp_path, encoding="utf-8") as f:
        namespace = re.search(r"^namespace (\w+) \{", f.read(), re.M).group(1)
    shim_path = cpp_path[:-len(".cpp")] + "_shim.cpp"
    with open(shim_path, "w", encoding="utf-8") as f:
        f.write(SHIM.format(wrapper=os.path.basename(cpp_path), ns=namespace, max_rank=MAX_RANK))
    so_path = cpp_path[:-len(".cpp")] + ".so"
    command = [os.environ.get("CXX", "g++"), "-std=c++17", "-O2", "-shared", "-fPIC",
               f"-I{INCLUDE}", f"-I{os.path.join(CUDA_ROOT, 'include')}", shim_path,
               "-o", so_path, f"-L{os.path.join(CUDA_ROOT, 'lib64', 'stubs')}", "-lcuda"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"building {cpp_path} failed:\n{result.stderr[-4000:]}")
    return so_path


class _DeviceArray:
    """A view of wrapper-owned device memory that torch.as_tensor accepts."""

    def __init__(self, pointer, shape, strides, typestr, release):
        itemsize = ITEMSIZE[typestr]
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "strides": tuple(s * itemsize for s in strides),
            "typestr": typestr, "data": (pointer, False), "version": 2}
        weakref.finalize(self, release)


class Runner:
    """call(args) for one compiled graph, as Inductor's output code defines it."""

    def __init__(self, so_path: str, input_kinds: list, output_dtypes: list):
        self.lib = ctypes.CDLL(so_path)
        self.lib.wirc_shim_run.restype = ctypes.c_int
        self.lib.wirc_shim_release.argtypes = [ctypes.c_void_p]
        self.input_kinds = input_kinds
        self.output_dtypes = output_dtypes

    def __call__(self, args):
        import torch
        tensors = [a for a, kind in zip(args, self.input_kinds) if kind == "tensor"]
        symbols = [int(a) for a, kind in zip(args, self.input_kinds) if kind == "symbol"]
        args.clear()  # Inductor's convention: the callee owns the argument list
        n, m = len(tensors), len(self.output_dtypes)
        data = (ctypes.c_ulonglong * max(n, 1))(*[t.data_ptr() for t in tensors])
        ranks = (ctypes.c_int * max(n, 1))(*[t.dim() for t in tensors])
        sizes = (ctypes.c_longlong * (max(n, 1) * MAX_RANK))()
        strides = (ctypes.c_longlong * (max(n, 1) * MAX_RANK))()
        for i, t in enumerate(tensors):
            if t.dim() > MAX_RANK:
                raise RuntimeError(f"input {i} has rank {t.dim()} > {MAX_RANK}")
            for d in range(t.dim()):
                sizes[i * MAX_RANK + d] = t.size(d)
                strides[i * MAX_RANK + d] = t.stride(d)
        syms = (ctypes.c_longlong * max(len(symbols), 1))(*symbols)
        out_data = (ctypes.c_ulonglong * max(m, 1))()
        out_ranks = (ctypes.c_int * max(m, 1))()
        out_sizes = (ctypes.c_longlong * (max(m, 1) * MAX_RANK))()
        out_strides = (ctypes.c_longlong * (max(m, 1) * MAX_RANK))()
        storage = ctypes.c_void_p()
        error = ctypes.create_string_buffer(2048)
        stream = torch.cuda.current_stream().cuda_stream
        rc = self.lib.wirc_shim_run(n, data, ranks, sizes, strides, syms, m, out_data, out_ranks,
                                    out_sizes, out_strides, ctypes.byref(storage),
                                    ctypes.c_void_p(stream), error, len(error))
        if rc != 0:
            raise RuntimeError(f"wirc C++ wrapper: {error.value.decode(errors='replace')}")
        # The outputs share one storage block; it is released with the last of them.
        owner = storage.value
        alive = [m]

        def release_one():
            alive[0] -= 1
            if alive[0] == 0:
                self.lib.wirc_shim_release(owner)

        if m == 0:
            self.lib.wirc_shim_release(owner)
        outputs = []
        for i, dtype in enumerate(self.output_dtypes):
            rank = out_ranks[i]
            shape = [out_sizes[i * MAX_RANK + d] for d in range(rank)]
            stride = [out_strides[i * MAX_RANK + d] for d in range(rank)]
            typestr = TYPESTR[dtype]
            array = _DeviceArray(out_data[i], shape, stride, typestr, release_one)
            if 0 in shape or out_data[i] == 0:
                # No storage behind an empty tensor: make one torch owns.
                tensor = torch.empty_strided(shape, stride, dtype=getattr(torch, dtype),
                                             device="cuda")
                del array
            else:
                tensor = torch.as_tensor(array, device="cuda")
                if dtype == "bfloat16":
                    tensor = tensor.view(torch.bfloat16)
            outputs.append(tensor)
        return outputs


def module_source(so_path: str, doc: dict) -> str:
    """An Inductor output-code module whose call() runs the built wrapper."""
    kinds = [i.get("kind", "tensor") for i in doc["inputs"]]
    layouts = {b["name"]: b for b in doc.get("buffers", [])}
    layouts.update({i["name"]: i for i in doc["inputs"]})
    dtypes = []
    for value in doc["outputs"]:
        name = value.get("buffer") if isinstance(value, dict) else None
        if name is None and isinstance(value, dict) and "view" in value:
            name = value["view"]["base"]
        entry = layouts.get(name, {})
        layout = entry.get("layout", entry)
        dtypes.append(layout.get("dtype", "float32"))
    return (f"from wirc_export.cpp_runner import Runner\n"
            f"call = Runner({so_path!r}, {kinds!r}, {dtypes!r})\n")
