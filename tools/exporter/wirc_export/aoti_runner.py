"""Runs a wirc C++ wrapper of the AOTI flavour (`--emit=cpp --cpp-abi=aoti`)
in place of Inductor's output code.

The wrapper is built against libtorch into a shared library with a small C
entry point. Tensors cross as AtenTensorHandles, made and taken back with
torch's own helpers (torch._C._aoti.unsafe_alloc_void_ptrs_from_tensors and
alloc_tensors_by_stealing_from_void_ptrs, as Inductor's cpp_wrapper does), so
the outputs are ordinary torch tensors on PyTorch's allocator. This is how
the validation runs programs through the AOTI flavour; a C++ embedder calls
run() directly.
"""

import ctypes
import os
import re
import subprocess

from .cpp_runner import CUDA_ROOT, INCLUDE

SHIM = r"""
#include "{wrapper}"

#include <cstring>
#include <exception>

namespace {{
{ns}::Kernels *kernels;
}} // namespace

extern "C" int wirc_aoti_run(void **inputs, const int64_t *symbols, void **outputs,
                             void *stream, char *error, int errorBytes) {{
  try {{
    if (!kernels)
      kernels = new {ns}::Kernels();
    {ns}::run(*kernels, reinterpret_cast<AtenTensorHandle *>(inputs), symbols,
              reinterpret_cast<AtenTensorHandle *>(outputs), static_cast<CUstream>(stream));
    return 0;
  }} catch (const std::exception &e) {{
    std::strncpy(error, e.what(), errorBytes - 1);
    error[errorBytes - 1] = 0;
    return 1;
  }}
}}
"""


def build(cpp_path: str) -> str:
    """Builds the wrapper at cpp_path and its C entry point against libtorch."""
    import torch
    from torch.utils import cpp_extension
    with open(cpp_path, encoding="utf-8") as f:
        source = f.read()
    namespace = re.search(r"^namespace (\w+) \{", source, re.M).group(1)
    shim_path = cpp_path[:-len(".cpp")] + "_aoti.cpp"
    with open(shim_path, "w", encoding="utf-8") as f:
        f.write(SHIM.format(wrapper=os.path.basename(cpp_path), ns=namespace))
    so_path = cpp_path[:-len(".cpp")] + ".so"
    torch_lib = os.path.join(os.path.dirname(torch.__file__), "lib")
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    command = [os.environ.get("CXX", "g++"), "-std=c++17", "-O2", "-shared", "-fPIC",
               f"-D_GLIBCXX_USE_CXX11_ABI={abi}", f"-I{INCLUDE}",
               f"-I{os.path.join(CUDA_ROOT, 'include')}"]
    command += [f"-I{p}" for p in cpp_extension.include_paths()]
    command += [shim_path, "-o", so_path, f"-L{torch_lib}", f"-Wl,-rpath,{torch_lib}",
                "-ltorch", "-ltorch_cpu", "-ltorch_cuda", "-lc10", "-lc10_cuda",
                f"-L{os.path.join(CUDA_ROOT, 'lib64', 'stubs')}", "-lcuda"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"building {cpp_path} failed:\n{result.stderr[-4000:]}")
    return so_path


_CAPSULE_NAME = None


def _address(handle) -> int:
    """The AtenTensorHandle inside what torch._C._aoti hands out (an int, or a
    PyCapsule holding the pointer)."""
    global _CAPSULE_NAME
    if isinstance(handle, int):
        return handle
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    _CAPSULE_NAME = api.PyCapsule_GetName(handle)
    return api.PyCapsule_GetPointer(handle, _CAPSULE_NAME)


def _handle(address: int, like):
    """The form torch._C._aoti takes back: the same as like's (an int or a
    PyCapsule; a capsule when there is none to follow)."""
    if isinstance(like, int):
        return address
    api = ctypes.pythonapi
    api.PyCapsule_New.restype = ctypes.py_object
    api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return api.PyCapsule_New(address, _CAPSULE_NAME, None)


class Runner:
    """call(args) for one compiled graph, as Inductor's output code defines it."""

    def __init__(self, so_path: str, input_kinds: list, num_outputs: int,
                 int_outputs: tuple = (), float_outputs: tuple = ()):
        self.lib = ctypes.CDLL(so_path)
        self.lib.wirc_aoti_run.restype = ctypes.c_int
        self.lib.wirc_aoti_run.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                           ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
        self.input_kinds = input_kinds
        self.num_outputs = num_outputs
        # Integer and float outputs arrive as 0-d int64 and float64 CPU tensors.
        self.int_outputs = frozenset(int_outputs)
        self.float_outputs = frozenset(float_outputs)

    def __call__(self, args, constants=()):
        import torch
        tensors = [a for a, kind in zip(args, self.input_kinds) if kind == "tensor"]
        # Size symbols and the integer inputs nothing reads (the only scalar
        # inputs wirc's C++ wrappers take), in graph input order.
        symbols = [int(a) for a, kind in zip(args, self.input_kinds)
                   if kind in ("symbol", "scalar")]
        args.clear()  # Inductor's convention: the callee owns the argument list
        # The graph's constants follow its tensor inputs (see run()'s comment);
        # run() takes their new handles over too, not the tensors.
        tensors += constants
        # New handles that run() takes over: it drops each input at its last
        # use, so the inputs' memory can go during the run, as in Inductor.
        handles = torch._C._aoti.unsafe_alloc_void_ptrs_from_tensors(tensors)
        del tensors
        inputs = (ctypes.c_void_p * max(len(handles), 1))(*[_address(h) for h in handles])
        syms = (ctypes.c_longlong * max(len(symbols), 1))(*symbols)
        outputs = (ctypes.c_void_p * max(self.num_outputs, 1))()
        error = ctypes.create_string_buffer(2048)
        stream = torch.cuda.current_stream().cuda_stream
        rc = self.lib.wirc_aoti_run(inputs, syms, outputs, ctypes.c_void_p(stream), error,
                                    len(error))
        if rc != 0:
            raise RuntimeError(f"wirc C++ wrapper (aoti): {error.value.decode(errors='replace')}")
        # Each output is a new handle the caller owns; null stands for None.
        # The plural helper deletes the handles it takes the tensors from;
        # the singular one (alloc_tensor_by_stealing_from_void_ptr) copies
        # the tensor and leaves its handle, and with it the memory, behind.
        like = handles[0] if handles else None
        present = [i for i in range(self.num_outputs) if outputs[i]]
        taken = torch._C._aoti.alloc_tensors_by_stealing_from_void_ptrs(
            [_handle(outputs[i], like) for i in present]) if present else []
        results = [None] * self.num_outputs
        for i, tensor in zip(present, taken):
            results[i] = tensor
        for i in self.int_outputs:
            results[i] = int(results[i].item())
        for i in self.float_outputs:
            results[i] = float(results[i].item())
        return results


def module_source(so_path: str, doc: dict) -> str:
    """An Inductor output-code module whose call() runs the built wrapper."""
    from .cpp_runner import _is_float_output, _is_int_output, runner_call
    kinds = [i.get("kind", "tensor") for i in doc["inputs"]]
    ints = tuple(i for i, value in enumerate(doc["outputs"])
                 if _is_int_output(value, kinds, doc))
    floats = tuple(i for i, value in enumerate(doc["outputs"]) if _is_float_output(value, doc))
    return (f"from wirc_export.aoti_runner import Runner\n"
            + runner_call(f"Runner({so_path!r}, {kinds!r}, {len(doc['outputs'])}, {ints!r}, "
                          f"{floats!r})", doc))
