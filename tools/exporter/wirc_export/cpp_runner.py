"""Runs wirc's standalone C++ wrapper (`--emit=cpp`) in place of Inductor's.

The wrapper is built into a shared library together with a small C shim, so
that an Inductor output-code module can call it from Python: tensors go in as
device pointers with their sizes and strides, size symbols as integers, and
the outputs come back as tensors over memory the wrapper allocated (released
when the last tensor that views it is gone). This is how the validation runs
real programs through the C++ wrapper; nothing of it is needed to use the
wrapper from C++.

A wrapper emitted with `--cpp-extern=hooks` calls extern kernels and fallbacks
through a hook table (wirc/runtime/Extern.h). Its shim installs one generic
hook that calls back into Python (ctypes), where the op runs with torch: the
arguments' tensor descriptors are wrapped as torch tensors over the same device
memory, and the tensors an op returns are kept alive until the wrapper
releases them.
"""

import ctypes
import keyword
import os
import re
import struct
import subprocess
import traceback
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
      {ns}::run(*kernels, {hooks}inputs.data(), symbols, outputs.data(), owned->buffers.data(),
                static_cast<CUstream>(stream));
    }} catch (...) {{
      delete owned;
      throw;
    }}
    for (int i = 0; i < numOutputs; ++i) {{
      outData[i] = outputs[i].data;
      outRanks[i] = outputs[i].rank;
      if (outputs[i].rank < 0) // a number: an integer (rank -1) or a float's bits (-2)
        outSizes[i * {max_rank}] = outputs[i].sizes[0];
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

# With --cpp-extern=hooks: run() takes a hook table; every op resolves to one
# generic hook that calls the Python function installed by wirc_shim_set_hooks.
HOOKS_SHIM = r"""
namespace {{
using PythonHook = int (*)(wirc::rt::ExternCall *call);
using PythonRelease = void (*)(void *owner);
PythonHook pythonHook;
PythonRelease pythonRelease;

int genericHook(void *, wirc::rt::ExternCall *call) {{ return pythonHook(call); }}
wirc::rt::ExternFn lookupHook(void *, const char *) {{ return pythonHook ? genericHook : nullptr; }}
void releaseHook(void *, void *owner) {{
  if (pythonRelease)
    pythonRelease(owner);
}}
const wirc::rt::ExternHooks hookTable{{nullptr, lookupHook, releaseHook}};
// The ctypes mirrors of these structs (cpp_runner.py) must match them.
static_assert(sizeof(wirc::rt::ExternValue) == {value_size}, "ExternValue layout");
static_assert(offsetof(wirc::rt::ExternValue, tensor) == {value_tensor}, "ExternValue layout");
static_assert(sizeof(wirc::rt::ExternCall) == {call_size}, "ExternCall layout");
static_assert(offsetof(wirc::rt::ExternCall, results) == {call_results}, "ExternCall layout");
}} // namespace

extern "C" void wirc_shim_set_hooks(PythonHook hook, PythonRelease release) {{
  pythonHook = hook;
  pythonRelease = release;
}}
"""

# __cuda_array_interface__ type strings; bfloat16 travels as int16 and is
# reinterpreted afterwards.
TYPESTR = {
    "bool": "|b1", "uint8": "|u1", "int8": "|i1", "int16": "<i2", "int32": "<i4",
    "int64": "<i8", "uint16": "<u2", "uint32": "<u4", "uint64": "<u8", "float16": "<f2",
    "bfloat16": "<i2", "float32": "<f4", "float64": "<f8",
}
ITEMSIZE = {"|b1": 1, "|u1": 1, "|i1": 1, "<i2": 2, "<u2": 2, "<f2": 2, "<i4": 4, "<u4": 4,
            "<f4": 4, "<i8": 8, "<u8": 8, "<f8": 8, "<c8": 8, "<c16": 16}
# Extern hooks see more dtypes than graph outputs: those the array interface
# lacks travel as an integer or complex type of their size and are
# reinterpreted afterwards.
HOOK_TYPESTR = dict(TYPESTR, complex64="<c8", complex128="<c16", float8_e4m3fn="|u1",
                    float8_e5m2="|u1")


def build(cpp_path: str) -> str:
    """Builds the wrapper at cpp_path and its shim into a shared library."""
    with open(cpp_path, encoding="utf-8") as f:
        source = f.read()
    namespace = re.search(r"^namespace (\w+) \{", source, re.M).group(1)
    # A wrapper emitted with --cpp-extern=hooks includes the hook runtime.
    hooks = '#include "wirc/runtime/Extern.h"' in source
    shim = SHIM.format(wrapper=os.path.basename(cpp_path), ns=namespace, max_rank=MAX_RANK,
                       hooks="hookTable, " if hooks else "")
    if hooks:
        head, _, tail = shim.partition("\nnamespace {\n")
        layout = HOOKS_SHIM.format(
            value_size=ctypes.sizeof(_Value), value_tensor=_Value.tensor.offset,
            call_size=ctypes.sizeof(_Call), call_results=_Call.results.offset)
        shim = head + layout + "\nnamespace {\n" + tail
    shim_path = cpp_path[:-len(".cpp")] + "_shim.cpp"
    with open(shim_path, "w", encoding="utf-8") as f:
        f.write(shim)
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


# The hook table's plain-data structs (wirc/runtime/Extern.h), field for field.
MAX_EXTERN_RESULTS = 16


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_ulonglong), ("rank", ctypes.c_int),
                ("sizes", ctypes.c_longlong * MAX_RANK), ("strides", ctypes.c_longlong * MAX_RANK)]


class _Value(ctypes.Structure):
    pass


_Value._fields_ = [("kind", ctypes.c_int32), ("num_items", ctypes.c_int32),
                   ("name", ctypes.c_char_p), ("text", ctypes.c_void_p),
                   ("int_value", ctypes.c_int64), ("double_value", ctypes.c_double),
                   ("items", ctypes.POINTER(_Value)), ("tensor", _Tensor)]


class _Call(ctypes.Structure):
    _fields_ = [("op", ctypes.c_char_p), ("args", ctypes.POINTER(_Value)),
                ("num_args", ctypes.c_int32), ("num_kwargs", ctypes.c_int32),
                ("out", ctypes.POINTER(_Value)), ("stream", ctypes.c_void_p),
                ("num_results", ctypes.c_int32), ("error_bytes", ctypes.c_int32),
                ("error", ctypes.c_void_p), ("owner", ctypes.c_void_p),
                ("results", _Tensor * MAX_EXTERN_RESULTS)]


_HOOK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(_Call))
_RELEASE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
NONE, BOOL, INT, DOUBLE, STRING, TENSOR, DTYPE, DEVICE, LIST, TUPLE = range(10)


def resolve_op(op: str):
    """The Python callable an op name of the graph format names."""
    import torch
    parts = op.split(".")
    if parts[0] == "extern_kernels":
        from torch._inductor.select_algorithm import extern_kernels
        target, path = extern_kernels, parts[1:]
    elif parts[:2] == ["torch", "ops"]:
        target, path = torch.ops, parts[2:]
    elif parts[0] == "aten":
        target, path = torch.ops.aten, parts[1:]
    else:
        raise RuntimeError(f"no Python implementation is known for extern op '{op}'")
    for part in path:
        target = getattr(target, part)
    return target


def _wrap_tensor(t: _Tensor, dtype_name: str):
    """A torch tensor over the device memory a descriptor points to."""
    import torch
    dtype = getattr(torch, dtype_name)
    shape = [t.sizes[d] for d in range(t.rank)]
    stride = [t.strides[d] for d in range(t.rank)]
    if 0 in shape or t.data == 0:
        return torch.empty_strided(shape, stride, dtype=dtype, device="cuda")
    typestr = HOOK_TYPESTR[dtype_name]
    array = _DeviceArray(t.data, shape, stride, typestr, lambda: None)
    tensor = torch.as_tensor(array, device="cuda")
    return tensor.view(dtype) if tensor.dtype != dtype else tensor


# Host tensors an op returned, by the address of the device copy the wrapper
# holds (see _PythonHooks._call): an op that takes such a tensor back gets the
# host tensor, as it would in eager (SDPA's backward reads its philox seed and
# offset on the host).
_HOST_ORIGINS: dict = {}


def _to_python(v: _Value):
    import torch
    if v.kind == NONE:
        return None
    if v.kind == BOOL:
        return bool(v.int_value)
    if v.kind == INT:
        return int(v.int_value)
    if v.kind == DOUBLE:
        return float(v.double_value)
    if v.kind == STRING:
        return ctypes.string_at(v.text, v.int_value).decode("utf-8", "surrogateescape")
    if v.kind == TENSOR:
        host = _HOST_ORIGINS.get(v.tensor.data) if v.tensor.data else None
        if host is not None and list(host.shape) == [v.tensor.sizes[d]
                                                     for d in range(v.tensor.rank)]:
            return host
        return _wrap_tensor(v.tensor, ctypes.string_at(v.text).decode())
    if v.kind == DTYPE:
        return getattr(torch, ctypes.string_at(v.text).decode())
    if v.kind == DEVICE:
        kind = ctypes.string_at(v.text).decode()
        return torch.device(kind) if kind == "cpu" else torch.device(kind, v.int_value)
    if v.kind in (LIST, TUPLE):
        items = [_to_python(v.items[i]) for i in range(v.num_items)]
        return items if v.kind == LIST else tuple(items)
    raise RuntimeError(f"unknown extern value kind {v.kind}")


class _PythonHooks:
    """The one generic hook: runs each extern op with torch and keeps the
    tensors it returns alive until the wrapper releases them."""

    def __init__(self):
        self.ops = {}
        self.kept = {}
        self.next_owner = 1
        self.errors = []  # tracebacks of failed calls, newest last
        self.hook = _HOOK(self._call)
        self.release = _RELEASE(self._release)

    def _call(self, call_ptr):
        call = call_ptr.contents
        try:
            import torch
            op = call.op.decode()
            fn = self.ops.get(op) or self.ops.setdefault(op, resolve_op(op))
            args = [_to_python(call.args[i]) for i in range(call.num_args)]
            kwargs = {call.args[i].name.decode(): _to_python(call.args[i])
                      for i in range(call.num_args, call.num_args + call.num_kwargs)}
            if call.out:
                fn(*args, **kwargs, out=_to_python(call.out.contents))
                return 0
            result = fn(*args, **kwargs)
            items = ([] if result is None else list(result) if isinstance(result, (tuple, list))
                     else [result])
            if len(items) > MAX_EXTERN_RESULTS:
                raise RuntimeError(f"{op} returned {len(items)} values, more than "
                                   f"{MAX_EXTERN_RESULTS}")
            keep = []
            for i, item in enumerate(items):
                target = call.results[i]
                ctypes.memset(ctypes.byref(target), 0, ctypes.sizeof(target))
                if not isinstance(item, torch.Tensor):
                    continue  # a zero descriptor stands for a value that is no tensor
                if not item.is_cuda:
                    # The wrapper holds device tensors only. Small host results
                    # (SDPA's philox seed and offset) travel as device copies;
                    # an op given the copy back gets the host tensor.
                    host = item
                    item = item.cuda()
                    items[i] = item
                    if item.data_ptr():
                        _HOST_ORIGINS[item.data_ptr()] = host
                        keep.append(host)
                if item.dim() > MAX_RANK:
                    raise RuntimeError(f"{op} returned a {item.device} tensor of rank {item.dim()}; "
                                       f"the wrapper takes CUDA tensors up to rank {MAX_RANK}")
                target.data = item.data_ptr()
                target.rank = item.dim()
                for d in range(item.dim()):
                    target.sizes[d] = item.size(d)
                    target.strides[d] = item.stride(d)
                keep.append(item)
            call.num_results = len(items)
            if keep:
                owner = self.next_owner
                self.next_owner += 1
                self.kept[owner] = keep
                call.owner = owner
            return 0
        except BaseException as e:  # noqa: BLE001 - reported through the wrapper's Error
            self.errors.append(traceback.format_exc())
            message = f"{type(e).__name__}: {e}".encode(errors="replace")
            message = message[:max(call.error_bytes - 1, 0)]
            if call.error and call.error_bytes > 0:
                ctypes.memmove(call.error, message + b"\0", len(message) + 1)
            return 1

    def _release(self, owner):
        import torch
        for t in self.kept.pop(owner, None) or []:
            if isinstance(t, torch.Tensor) and t.is_cuda:
                _HOST_ORIGINS.pop(t.data_ptr(), None)


class Runner:
    """call(args) for one compiled graph, as Inductor's output code defines it."""

    def __init__(self, so_path: str, input_kinds: list, output_dtypes: list):
        self.lib = ctypes.CDLL(so_path)
        self.lib.wirc_shim_run.restype = ctypes.c_int
        self.lib.wirc_shim_release.argtypes = [ctypes.c_void_p]
        self.input_kinds = input_kinds
        self.output_dtypes = output_dtypes
        # A wrapper built with --cpp-extern=hooks: extern ops run in Python.
        self.hooks = None
        if hasattr(self.lib, "wirc_shim_set_hooks"):
            self.hooks = _PythonHooks()
            self.lib.wirc_shim_set_hooks.argtypes = [_HOOK, _RELEASE]
            self.lib.wirc_shim_set_hooks(self.hooks.hook, self.hooks.release)

    def __call__(self, args, constants=()):
        import torch
        tensors = [a for a, kind in zip(args, self.input_kinds) if kind == "tensor"]
        # Size symbols and the integer inputs nothing reads (the only scalar
        # inputs wirc's C++ wrappers take), in graph input order.
        symbols = [int(a) for a, kind in zip(args, self.input_kinds)
                   if kind in ("symbol", "scalar")]
        args.clear()  # Inductor's convention: the callee owns the argument list
        # The graph's constants follow its tensor inputs (see run()'s comment).
        tensors += constants
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
            detail = ""
            if self.hooks is not None and self.hooks.errors:
                detail = "\nin the Python extern hook:\n" + self.hooks.errors[-1][-1500:]
            raise RuntimeError(f"wirc C++ wrapper: {error.value.decode(errors='replace')}{detail}")
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
            if rank == -2:  # a float symbol: the double's bits
                outputs.append(struct.unpack("<d", struct.pack("<q", out_sizes[i * MAX_RANK]))[0])
                release_one()
                continue
            if rank < 0:  # an integer output (a size the backward takes)
                outputs.append(int(out_sizes[i * MAX_RANK]))
                release_one()
                continue
            if dtype is None:  # a None output (data 0, rank 0): None, not a tensor
                outputs.append(None)
                release_one()
                continue
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


def _is_float_output(value, doc: dict) -> bool:
    """True for a graph output that is a float symbol (always by itself)."""
    floats = {s["name"] for s in doc.get("symbols", []) if s.get("dtype") == "float64"}
    return (isinstance(value, dict) and isinstance(value.get("expr"), str)
            and value["expr"].strip() in floats)


def _is_int_output(value, kinds: list, doc: dict) -> bool:
    """True for a graph output that is an integer: an expression of sizes, a
    literal, or a size-symbol input returned as it is."""
    if isinstance(value, bool) or isinstance(value, int):
        return True
    if not isinstance(value, dict):
        return False
    if "expr" in value:
        return not _is_float_output(value, doc)
    symbols = {i["name"] for i, kind in zip(doc["inputs"], kinds) if kind == "symbol"}
    return value.get("buffer") in symbols


def module_source(so_path: str, doc: dict) -> str:
    """An Inductor output-code module whose call() runs the built wrapper."""
    kinds = [i.get("kind", "tensor") for i in doc["inputs"]]
    layouts = {b["name"]: b for b in doc.get("buffers", [])}
    layouts.update({i["name"]: i for i in doc["inputs"]})
    dtypes = []
    for value in doc["outputs"]:
        if value is None:
            dtypes.append(None)
            continue
        if _is_int_output(value, kinds, doc):
            dtypes.append("int64")  # arrives as an integer (rank -1)
            continue
        if _is_float_output(value, doc):
            dtypes.append("float64")  # arrives as a float (rank -2)
            continue
        name = value.get("buffer") if isinstance(value, dict) else None
        if name is None and isinstance(value, dict) and "view" in value:
            name = value["view"]["base"]
        entry = layouts.get(name, {})
        layout = entry.get("layout", entry)
        dtypes.append(layout.get("dtype", "float32"))
    return (f"from wirc_export.cpp_runner import Runner\n"
            + runner_call(f"Runner({so_path!r}, {kinds!r}, {dtypes!r})", doc))


def runner_call(runner: str, doc: dict) -> str:
    """`call`, Inductor's entry point, over \p runner: the runner itself, or
    for a graph with constants a function that passes them after the inputs.
    Constants are module globals that Inductor's loader sets, as in the
    output code it writes."""
    names = [c["name"] for c in doc.get("constants", [])]
    if not names:
        return f"call = {runner}\n"
    for name in names:
        if not name.isidentifier() or keyword.iskeyword(name):
            raise ValueError(f"constant name {name!r} is not a Python identifier")
    lines = [f"{name} = None  # set by the loader\n" for name in names]
    lines.append(f"_runner = {runner}\n\n\n")
    lines.append(f"def call(args):\n    return _runner(args, [{', '.join(names)}])\n")
    return "".join(lines)
