"""The exporter: a Python wrapper codegen registered for CUDA that writes
each graph's Wrapper IR, before memory planning, as a wirc graph document.

Inductor's own code generation then runs as usual (or, with replace=, the
program runs wirc's emitted wrapper instead), so the exported program still
computes its results.
"""

from __future__ import annotations

import ast
import base64
import contextlib
import json
import math
import os
import re
import resource
import subprocess
import time
from typing import Any, Optional

import sympy
import torch
from torch._inductor import config as inductor_config
from torch._inductor import ir
from torch._inductor.codegen import common as codegen_common
from torch._inductor.codegen import wrapper as W
from torch._inductor.virtualized import V
from torch.utils._sympy.functions import FloorDiv

from . import graphjson, lines, linetimer, native

FORMAT = "wirc.graph"
VERSION = 1



def c_shim_schema(op: str, out_form: bool, overload: Any = None) -> Optional[str]:
    """The schema of the aten overload whose AOTI C shim function
    (aoti_torch_<device>_<name>) runs this extern call, as torch prints it, or
    None when PyTorch generates no shim for it (then `wirc --cpp-abi=aoti`
    reports the op). extern_kernels.X maps to aten.X's out= overload when the
    node writes out=, else to its default; an in-place fallback (X_) without a
    shim of its own runs through the functional op's out= overload, writing
    its first argument, as Inductor's cpp_wrapper does for scatter_reduce_.
    """
    from torchgen.aoti.fallback_ops import inductor_fallback_ops

    candidates = []
    if isinstance(overload, torch._ops.OpOverload):
        candidates.append(overload)
    parts = op.split(".")
    if op.startswith("extern_kernels.") and len(parts) == 2:
        packet = getattr(torch.ops.aten, parts[1], None)
        if packet is not None:
            for name in (("out", "default") if out_form else ("default",)):
                if name in packet.overloads():
                    candidates.append(getattr(packet, name))
    elif op.startswith("aten.") and len(parts) == 3:
        packet = getattr(torch.ops.aten, parts[1], None)
        if packet is not None and parts[2] in packet.overloads():
            candidates.append(getattr(packet, parts[2]))
        if parts[1].endswith("_") and not out_form:
            functional = getattr(torch.ops.aten, parts[1][:-1], None)
            name = "out" if parts[2] == "default" else parts[2] + "_out"
            if functional is not None and name in functional.overloads():
                candidates.append(getattr(functional, name))
    for candidate in candidates:
        schema = candidate._schema
        if out_form and not any(a.is_out for a in schema.arguments):
            continue
        key = f"{schema.name.replace('::', '.')}.{schema.overload_name or 'default'}"
        if key in inductor_fallback_ops:
            return str(schema)
    return None

class ExportError(RuntimeError):
    """A construct the exporter cannot express in the graph format."""


class NotStandaloneError(ExportError):
    """A graph an emitter rejects by design (wirc's exit code 3): extern aten
    kernels in the standalone C++ wrapper, a C++ CPU kernel in an FX graph."""


_DTYPES = {
    torch.bool: "bool", torch.uint8: "uint8", torch.int8: "int8", torch.int16: "int16",
    torch.int32: "int32", torch.int64: "int64", torch.float16: "float16",
    torch.bfloat16: "bfloat16", torch.float32: "float32", torch.float64: "float64",
    torch.complex64: "complex64", torch.complex128: "complex128",
}
for _name in ("uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2"):
    if hasattr(torch, _name):
        _DTYPES[getattr(torch, _name)] = _name


def _dtype(dtype: torch.dtype) -> str:
    if dtype not in _DTYPES:
        raise ExportError(f"dtype {dtype} has no graph-format name")
    return _DTYPES[dtype]


def _device(device: torch.device) -> str:
    if device.type == "cpu":
        return "cpu"
    if device.type == "cuda":
        return f"cuda:{device.index if device.index is not None else 0}"
    raise ExportError(f"device type '{device.type}' is not supported")


def _non_finite(x: float) -> Optional[str]:
    """The graph format's spelling of a number JSON cannot spell, else None."""
    if math.isfinite(x):
        return None
    return "nan" if math.isnan(x) else "inf" if x > 0 else "-inf"


def _aliases_input(buf: Any) -> bool:
    """Whether Inductor's memory planning keeps \p buf out of its reuse pool
    as a view of an op's input (FreeIfNotReusedLine.plan's test)."""
    method = getattr(buf, "get_inputs_that_alias_output", None)
    try:
        return bool(method and method())
    except NotImplementedError:
        return False


def _output_spec(node: Any) -> Any:
    """A buffer's layout, or its MultiOutputLayout / NoneLayout (which
    get_layout() refuses, as they are not Layouts)."""
    spec = getattr(node, "layout", None)
    if spec is None and hasattr(node, "get_output_spec"):
        spec = node.get_output_spec()
    return spec if spec is not None else node.get_layout()


def _kernel_source(body: str) -> tuple[str, str]:
    """The entry name and Triton module of `async_compile.triton('entry', '''src''', ...)`."""
    try:
        call = ast.parse(body.strip()).body[0].value
        entry, source = call.args[0].value, call.args[1].value
    except Exception as e:  # noqa: BLE001 - any shape we do not know is an error
        raise ExportError(f"cannot read a kernel definition: {body[:80]!r}") from e
    return entry, source.lstrip("\n")


def _cpp_kernel(name: str, body: str) -> dict:
    """A C++ CPU kernel of Inductor's cpp backend:
    `async_compile.cpp_pybinding(['const float*', ...], r'''src''')`. The
    parameter names come from the source's `extern "C" void kernel(...)`."""
    try:
        call = ast.parse(body.strip()).body[0].value
        if not (isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "cpp_pybinding"):
            raise ValueError("not an async_compile.cpp_pybinding call")
        types = [t.value for t in call.args[0].elts]
        source = call.args[1].value
        if not all(isinstance(t, str) for t in types) or not isinstance(source, str):
            raise ValueError("the types or the source are not strings")
    except Exception as e:  # noqa: BLE001 - any shape we do not know is an error
        raise ExportError(f"cannot read the definition of cpp kernel {name}: {body[:80]!r}") from e
    match = re.search(r'extern\s+"C"[^(]*?\bkernel\s*\(([^)]*)\)', source)
    params = [p.strip() for p in match.group(1).split(",")] if match else []
    names = [m.group(1) for m in (re.search(r"(\w+)\s*$", p) for p in params if p) if m]
    if not match or len(names) != len(types):
        raise ExportError(f"cpp kernel {name}: cannot match the parameters of its "
                          f"`extern \"C\" void kernel(...)` to its {len(types)} argument types")
    return {"name": name, "language": "cpp", "source": lines.stable_source(source.lstrip("\n")),
            "signature": [{"name": n, "type": t} for n, t in zip(names, types)]}


class _ControlFlowMarker(W.WrapperLine):
    """Marks where Inductor's text for a torch.cond, a torch.while_loop or an
    invoke_subgraph starts; carries the node. The exported node stands for all
    of the text up to the _ControlFlowEnd."""

    def __init__(self, node: Any, kind: str):
        self.node = node
        self.kind = kind

    def codegen(self, code: Any) -> None:
        pass


class _ControlFlowEnd(W.WrapperLine):
    def codegen(self, code: Any) -> None:
        pass


class _MarksControlFlow:
    """Puts Inductor's text for each torch.cond, torch.while_loop and
    invoke_subgraph between markers, for the converter (mixed into the
    wrapper codegens, before Inductor's class)."""

    def codegen_conditional(self, conditional):
        self.writeline(_ControlFlowMarker(conditional, "cond"))
        super().codegen_conditional(conditional)
        self.writeline(_ControlFlowEnd())

    def codegen_while_loop(self, while_loop, *args, **kwargs):
        # Stacked outputs (the backward of a while_loop) are not exported.
        if kwargs.get("stack_output", args[0] if args else False):
            raise ExportError("torch.while_loop with stacked outputs "
                              "(while_loop_stack_output) is not exported yet")
        self.writeline(_ControlFlowMarker(while_loop, "while_loop"))
        super().codegen_while_loop(while_loop, *args, **kwargs)
        self.writeline(_ControlFlowEnd())

    def codegen_invoke_subgraph(self, invoke_subgraph):
        self.writeline(_ControlFlowMarker(invoke_subgraph, "invoke_subgraph"))
        super().codegen_invoke_subgraph(invoke_subgraph)
        self.writeline(_ControlFlowEnd())


# The grid types wirc computes itself (docs/graph-format.md); the launcher
# computes any other from Inductor's metadata, which the exporter evaluates.
_COMBO_GRID_TYPES = ("SequentialComboKernelGrid", "RoundRobinComboKernelGrid")
_WIRC_GRID_TYPES = ("Grid1D", "Grid2D", "Grid3D", "Grid2DWithYZOverflow",
                    "CooperativeReductionGrid", "SplitScanGrid", "FixedGrid",
                    "PrecomputedGrid", "BatchMatmulGrid3D") + _COMBO_GRID_TYPES


def _combo_grid(kernel: str, inductor_meta: dict) -> dict:
    """A combo kernel's sub-kernels from Inductor's combo_grid_meta: each
    numel an integer, or None where launches pass it (xnumel_<i>)."""
    meta = inductor_meta.get("combo_grid_meta")
    if not isinstance(meta, dict) or not isinstance(meta.get("num_kernels"), int):
        raise ExportError(f"kernel {kernel}: combo grid without its sub-kernels")

    def numel(value: Any) -> Optional[int]:
        if value is None or (isinstance(value, int) and not isinstance(value, bool)):
            return value
        raise ExportError(f"kernel {kernel}: combo grid numel {value!r} is not an integer")
    parts = []
    for i in range(meta["num_kernels"]):
        part = {"xnumel": numel(meta.get(f"xnumel_{i}")),
                "no_x_dim": bool(meta.get(f"no_x_dim_{i}", False))}
        if f"ynumel_{i}" in meta:
            part["ynumel"] = numel(meta[f"ynumel_{i}"])
        if f"znumel_{i}" in meta:
            raise ExportError(f"kernel {kernel}: a combo sub-kernel with a z dimension")
        parts.append(part)
    return {"kernels": parts, "min_blocks": int(meta.get("min_blocks") or 0),
            "default_config": {k: int(v) for k, v in (meta.get("default_config") or {}).items()}}


def _static_grid(kernel: str, inductor_meta: dict, cfg: Any) -> list:
    """The launch grid Inductor's launcher computes for `cfg`, when it is
    the same for every launch (no size parameter in it)."""
    from torch._inductor.runtime.triton_heuristics import GridExpr
    grid_type = inductor_meta.get("grid_type")
    try:
        grid = GridExpr.from_meta(inductor_meta, cfg, mode="python")
    except Exception as e:  # noqa: BLE001 - an unknown or malformed grid type
        raise ExportError(f"kernel {kernel}: grid type {grid_type} cannot be "
                          f"evaluated: {e}") from e
    dims = []
    for dim in (grid.x_grid, grid.y_grid, grid.z_grid):
        if isinstance(dim, str):
            try:
                dim = lines.constant_int(dim)
            except ValueError as e:
                raise ExportError(f"kernel {kernel}: its {grid_type} grid depends on "
                                  f"sizes passed at launch ({dim}); not exported yet") from e
        if grid.prefix or not isinstance(dim, int) or isinstance(dim, bool):
            raise ExportError(f"kernel {kernel}: its {grid_type} grid is not a constant")
        dims.append(dim)
    return dims


_tensor_names = lines.tensor_names


class _GraphConverter:
    """Converts one wrapper's lines into a graph document."""

    def __init__(self, wrapper: W.PythonWrapperCodegen, name: str, artifacts: bool,
                 subgraphs: Optional[dict] = None, kernel_defs: Optional[dict] = None):
        self.wrapper = wrapper
        # Kernels defined so far by any graph of this compilation (name ->
        # (kernel, tuner)): Inductor defines a kernel once, in the first
        # subgraph to use it, and other subgraphs just call it.
        self.kernel_defs = kernel_defs if kernel_defs is not None else {}
        self.graph = V.graph
        self.name = name
        self.artifacts = artifacts
        self.symbols: dict[str, dict] = {}
        self.buffers: dict[str, dict] = {}
        self.kernels: dict[str, dict] = {}
        self.tuners: dict[str, Any] = {}
        self.nodes: list[dict] = []
        self.mutated: set[str] = set()
        self.reuses = lines.InPlaceReuses(getattr(self.graph, "removed_buffers", ()))
        self.subgraphs = subgraphs if subgraphs is not None else {}
        self.used_subgraphs: list[str] = []
        self.skipping = False
        # Unbacked symbols: bound so far, waiting for a multi_output, and the
        # assert_scalar node whose message the next text line carries.
        self.bound: set[str] = set()
        self.pending_binds: list[tuple] = []
        self.assert_message: Optional[int] = None
        self.slice_lines: list[str] = []
        self.input_names = list(self.graph.graph_inputs.keys())
        self.constant_names = list(self.graph.constants.keys())
        # Buffers the wrapper allocated that no node has used yet.
        self.fresh: set[str] = set()
        # Workspaces (WorkspaceArg) the wrapper allocated, by name.
        self.workspaces: set[str] = set()
        self.checked_nodes = 0

    # --- values -------------------------------------------------------------

    def symbol(self, sym: sympy.Symbol) -> None:
        name = str(sym)
        if name in self.symbols:
            return
        if _is_unbacked(sym):
            # Bound by a bind_symbol node where Inductor binds it; plans
            # compare its sizes symbolically. A data-dependent float (zuf0,
            # a float tensor's .item()) is a float64 symbol: never a size.
            if _is_unbacked_float(sym):
                self.symbols[name] = {"name": name, "unbacked": True, "dtype": "float64"}
            elif sym.is_integer:
                self.symbols[name] = {"name": name, "unbacked": True}
            else:
                raise ExportError(f"unbacked symbol {name} is neither an integer nor a float")
            return
        try:
            hint = int(self.graph.sizevars.size_hint(sym))
        except Exception as e:  # noqa: BLE001
            raise ExportError(f"symbol {name} has no size hint (data-dependent shapes "
                              "are not exported yet)") from e
        self.symbols[name] = {"name": name, "hint": hint}

    def expr(self, e: Any) -> Any:
        if hasattr(e, "inner_expr"):  # SymbolicCallArg: a precomputed size symbol
            if any(_is_unbacked(s) for s in sympy.sympify(e.inner_expr).free_symbols):
                # Known only once its unbacked symbols are bound: passed as
                # its expression rather than a symbol computed at entry.
                return self.expr(e.inner_expr)
            name = str(e.inner)
            if name not in self.symbols:
                value = self.expr(e.inner_expr)
                self.symbols[name] = {"name": name,
                                      "hint": int(self.graph.sizevars.size_hint(e.inner_expr)),
                                      "expr": value}
            return name
        if isinstance(e, bool):
            raise ExportError("a boolean where a size was expected")
        if isinstance(e, int):
            return e
        # Text (a C++ kernel's size argument) parses into the environment's
        # own symbols, whose hints and assumptions a fresh Symbol lacks.
        e = sympy.sympify(e, locals=self.shape_symbols()) if isinstance(e, str) else \
            sympy.sympify(e)
        if e.is_Integer:
            return int(e)
        if e.is_Symbol and _is_unbacked_float(e):
            # A data-dependent float passed by itself (a kernel's argument).
            self.symbol(e)
            return str(e)
        floats = sorted(str(f) for f in e.free_symbols if _is_unbacked_float(f))
        if floats:
            raise ExportError(f"expression {e} computes with the data-dependent float "
                              f"{floats[0]}; wirc takes such a float only by itself")
        e = lines.integer_form(e, FloorDiv)
        if e.is_Integer:
            return int(e)
        if (any(not r.is_Integer for r in e.atoms(sympy.Rational)) or e.atoms(sympy.Float)
                or e.has(sympy.floor, sympy.ceiling)):
            raise ExportError(f"size expression {e} is not an integer expression (it keeps "
                              "a fraction)")
        for sym in sorted(e.free_symbols, key=str):
            self.symbol(sym)
        return str(e)

    def shape_symbols(self) -> dict:
        """The shape environment's symbols (backed and unbacked) by name."""
        env = self.graph.sizevars.shape_env
        return {str(sym): sym for sym in (*env.var_to_val, *env.var_to_range)}

    def layout_fields(self, layout: ir.Layout) -> dict:
        return {
            "dtype": _dtype(layout.dtype),
            "device": _device(layout.device),
            "size": [self.expr(s) for s in layout.size],
            "stride": [self.expr(s) for s in layout.stride],
            "offset": self.expr(layout.offset),
        }

    def workspace(self, ws: Any) -> None:
        """A kernel's scratch memory (cooperative reductions, split scans):
        a one-dimensional buffer of `count` elements that the kernels using
        it are passed by name."""
        name = ws.get_name()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ExportError(f"workspace name is not a name: {name!r}")
        self.workspaces.add(name)
        self.buffers[name] = {"name": name, "dtype": _dtype(ws.dtype),
                              "device": _device(ws.device), "size": [self.expr(ws.count)],
                              "stride": [1], "offset": 0}

    def note_buffer(self, name: str) -> None:
        """Records an intermediate buffer's entry the first time it is seen."""
        if name in self.buffers or name in self.graph.graph_inputs or name in self.graph.constants:
            return
        buf = self.graph.try_get_buffer(name) if hasattr(self.graph, "try_get_buffer") \
            else self.graph.get_buffer(name)
        if buf is None:
            raise ExportError(f"unknown buffer {name}")
        layout = _output_spec(buf)
        entry: dict[str, Any] = {"name": name}
        if isinstance(layout, ir.MultiOutputLayout):
            entry["tuple"] = True
        elif isinstance(layout, ir.NoneLayout):
            raise ExportError(f"buffer {name} has no layout")
        else:
            if isinstance(layout, ir.NonOwningLayout):
                base = layout.view.data
                base_name = base.get_name()
                self.note_buffer(base_name)
                entry["view_of"] = base_name
                layout = layout.view.get_layout()
            elif _aliases_input(buf):
                # A view op's result (view_as_real, view.dtype, ...): its
                # storage is an input's, which Inductor never offers for reuse.
                entry["aliases_input"] = True
            entry.update(self.layout_fields(layout))
        self.buffers[name] = entry

    def value(self, x: Any) -> Any:
        if x is None or isinstance(x, (bool, str)):
            return x
        if isinstance(x, int):
            return x
        if isinstance(x, float):
            spelled = _non_finite(x)
            return x if spelled is None else {"float": spelled}
        if isinstance(x, complex):
            return {"complex": [p if _non_finite(p) is None else _non_finite(p)
                                for p in (x.real, x.imag)]}
        if isinstance(x, list):
            return [self.value(v) for v in x]
        if isinstance(x, tuple):
            return {"tuple": [self.value(v) for v in x]}
        if isinstance(x, torch.dtype):
            return {"dtype": _dtype(x)}
        if isinstance(x, torch.device):
            return {"device": _device(x)}
        if isinstance(x, sympy.Expr):
            return {"expr": self.expr(x)}
        if isinstance(x, (ir.TensorBox, ir.StorageBox)):
            return self.value(x.data)
        if isinstance(x, ir.ReinterpretView):
            base = x.data
            while isinstance(base, (ir.TensorBox, ir.StorageBox)):
                base = base.data
            base_name = base.get_name()
            self.note_buffer(base_name)
            layout = x.get_layout()
            return {"view": {"base": base_name,
                             "size": [self.expr(s) for s in layout.size],
                             "stride": [self.expr(s) for s in layout.stride],
                             "offset": self.expr(layout.offset)}}
        if isinstance(x, ir.ShapeAsConstantBuffer):
            return {"expr": self.expr(x.expr)}
        if isinstance(x, ir.NoneAsConstantBuffer):
            return None
        if hasattr(x, "get_name"):
            name = x.get_name()
            self.note_buffer(name)
            return {"buffer": name}
        raise ExportError(f"cannot export a value of type {type(x).__name__}")

    # --- kernels ------------------------------------------------------------

    def define_kernel(self, line: W.KernelDefinitionLine) -> None:
        name = line.kernel_name
        if name in self.kernels:
            return
        if not getattr(line, "gpu", True):
            self.kernels[name] = _cpp_kernel(name, line.kernel_body)
            self.tuners[name] = None
            self.kernel_defs[name] = (self.kernels[name], None)
            return
        entry, source = _kernel_source(line.kernel_body)
        from torch._inductor.async_compile import AsyncCompile
        tuner = AsyncCompile().triton(entry, source, device_str="cuda")
        if hasattr(tuner, "result"):
            tuner = tuner.result()
        if self.artifacts and not getattr(tuner, "compile_results", None):
            # Compiled lazily otherwise (on the first launch): artifacts need
            # every config's binary now.
            tuner.precompile()
        self.tuners[name] = tuner
        signature = [{"name": k, "type": str(v)}
                     for k, v in tuner.triton_meta.get("signature", {}).items()]
        # Precompiling drops the autotuner's config list; the compile results
        # keep one config each.
        results = getattr(tuner, "compile_results", None) or []
        candidates = [r.config for r in results] or list(getattr(tuner, "configs", None) or [])
        if not candidates:
            raise ExportError(f"kernel {name} has no configs")
        configs = []
        for index, cfg in enumerate(candidates):
            config = {"kwargs": {k: int(v) for k, v in cfg.kwargs.items()},
                      "num_warps": int(cfg.num_warps), "num_stages": int(cfg.num_stages)}
            if self.artifacts:
                config["artifacts"] = self.kernel_artifacts(tuner, index)
            configs.append(config)
        grid_type = tuner.inductor_meta.get("grid_type", "Grid1D")
        combo = None
        if grid_type in _COMBO_GRID_TYPES:
            combo = _combo_grid(name, tuner.inductor_meta)
        elif grid_type not in _WIRC_GRID_TYPES or grid_type == "PrecomputedGrid":
            # Inductor's own grid for each config, as a precomputed grid:
            # grid types wirc does not know, and Inductor's own precomputed
            # grids (a user kernel autotuned over configs whose grids differ),
            # whose values sit in its metadata.
            for config, cfg in zip(configs, candidates):
                config["grid"] = _static_grid(name, tuner.inductor_meta, cfg)
            grid_type = "PrecomputedGrid"
        self.kernels[name] = {
            "name": name,
            **({"entry": entry} if entry != name else {}),
            "language": "triton",
            "source": lines.stable_source(source),
            "signature": signature,
            "grid_type": grid_type,
            **({"cooperative": True}
               if (tuner.triton_meta or {}).get("launch_cooperative_grid") else {}),
            **({"combo_grid": combo} if combo is not None else {}),
            "configs": configs,
        }
        self.kernel_defs[name] = (self.kernels[name], tuner)

    @staticmethod
    def kernel_artifacts(tuner: Any, index: int) -> dict:
        results = getattr(tuner, "compile_results", None) or []
        if index >= len(results):
            return {}
        kernel = getattr(results[index], "kernel", None)
        asm = getattr(kernel, "asm", {}) or {}
        meta = getattr(kernel, "metadata", None)
        out: dict[str, Any] = {}
        if "ptx" in asm:
            out["ptx"] = asm["ptx"]
        if "cubin" in asm:
            out["cubin"] = base64.b64encode(asm["cubin"]).decode("ascii")
        if meta is not None:
            out["entry_name"] = getattr(meta, "name", "")
            out["shared_mem"] = int(getattr(meta, "shared", 0) or 0)
            out["global_scratch"] = int(getattr(meta, "global_scratch_size", 0) or 0)
            out["profile_scratch"] = int(getattr(meta, "profile_scratch_size", 0) or 0)
        return out

    def define_elsewhere(self, name: str) -> None:
        """Takes the definition of a kernel that another graph of this
        compilation defined: a subgraph converted before, or an enclosing
        graph, whose lines are not converted yet."""
        if self.kernel_defs.get(name):
            self.kernels[name], self.tuners[name] = self.kernel_defs[name]
            return
        parent = getattr(self.wrapper, "parent_wrapper", None)
        while parent is not None:
            for line in parent.lines:
                if type(line).__name__ == "KernelDefinitionLine" and line.kernel_name == name:
                    self.define_kernel(line)
                    return
            parent = getattr(parent, "parent_wrapper", None)

    def kernel_call(self, line: W.KernelCallLine) -> None:
        name = line.kernel_name
        if name not in self.kernels:
            self.define_elsewhere(name)
        if name not in self.kernels:
            raise ExportError(f"kernel {name} is called before it is defined")
        kernel = self.kernels[name]
        if kernel["language"] == "cpp":
            self.cpp_kernel_call(line, kernel)
            return
        if not line.triton:
            raise ExportError(f"kernel {name} is not a Triton kernel")
        tuner = self.tuners[name]
        tuned = set(kernel["configs"][0]["kwargs"]) if kernel["configs"] else set()
        params = [p["name"] for p in kernel["signature"] if p["name"] not in tuned]
        raw_args = list(line.raw_args) if line.raw_args else list(line.call_args)
        call_texts = list(line.call_args)
        node: dict[str, Any] = {"op": "kernel_call", "kernel": name}
        # A user kernel with one grid gets it as trailing launcher arguments.
        extra = list(tuner.inductor_meta.get("extra_launcher_args", []) or [])
        if extra:
            if kernel["grid_type"] != "FixedGrid" or len(extra) != 3:
                raise ExportError(f"kernel {name}: launcher arguments {extra} with grid type "
                                  f"{kernel['grid_type']} are not exported yet")
            node["grid"] = [self.expr(g) for g in raw_args[-3:]]
            raw_args, call_texts = raw_args[:-3], call_texts[:-3]
        mutated_names = set(getattr(tuner, "mutated_arg_names", None) or [])
        if len(params) > len(raw_args):
            # Constexprs fixed at definition (a user kernel's BLOCK=64) are not
            # passed: they belong with the config's block sizes.
            constants = tuner.triton_meta.get("constants", {}) or {}
            types = {p["name"]: p["type"] for p in kernel["signature"]}
            fixed = [p for p in params if types.get(p) == "constexpr" and p in constants
                     and isinstance(constants[p], int)]
            dropped = fixed[len(fixed) - (len(params) - len(raw_args)):] \
                if len(fixed) >= len(params) - len(raw_args) else []
            for p in dropped:
                for config in kernel["configs"]:
                    config["kwargs"][p] = int(constants[p])
            params = [p for p in params if p not in dropped]
        if len(params) != len(raw_args):
            raise ExportError(f"kernel {name}: {len(raw_args)} call arguments for parameters "
                              f"{params}")
        args, numels = [], {}
        for param, raw, text in zip(params, raw_args, call_texts):
            if raw is None:
                raw = text
            # xnumel, r0_numel, ...; a combo kernel's xnumel_0, ynumel_1, ...
            if re.fullmatch(r"(?:[xyz]|r\d_)numel(?:_\d+)?", param):
                numels[param] = self.expr(raw)
                continue
            role = ("in_out" if param.startswith("in_out_ptr") else
                    "input" if param.startswith("in_ptr") else
                    "output" if param.startswith("out_ptr") else
                    "size" if re.fullmatch(r"ks\d+", param) else None)
            # User-written kernels name their pointers freely; their roles come
            # from the kernel's mutated arguments.
            if role is None and self.is_tensor(raw):
                role = "in_out" if param in mutated_names else "input"
                # A buffer the wrapper allocated for this call (a template's
                # logsumexp, which the kernel writes without naming it an
                # output, or an empty placeholder) is defined here.
                if isinstance(raw, str) and raw in self.fresh:
                    role = "output"
            if role in ("input", "output", "in_out"):
                args.append(self.tensor_arg(role, param, raw))
            elif role == "size":
                args.append(self.ks_arg(param, raw))
            else:
                value = self.value(raw) if not isinstance(raw, str) else raw
                if isinstance(value, dict) and ("expr" in value or "float" in value):
                    pass
                elif not isinstance(value, (int, float, bool)):
                    raise ExportError(f"kernel {name}: parameter {param} has an unsupported "
                                      f"argument {text!r}")
                args.append({"role": "scalar", "name": param, "value": value})
        node["args"] = args
        if numels:
            node["numels"] = numels
        self.nodes.append(node)

    def ks_arg(self, param: str, raw: Any) -> dict:
        """A `ks` parameter: a size, or a data-dependent float passed by itself
        (a scalar argument: the graph format's sizes are integers)."""
        value = self.expr(raw)
        floating = isinstance(value, str) and self.symbols.get(value, {}).get("dtype") == "float64"
        return {"role": "scalar" if floating else "size", "name": param, "value": {"expr": value}}

    def tensor_arg(self, role: str, param: str, raw: Any) -> dict:
        """A kernel's tensor argument. An in_out argument on a buffer that
        Inductor's reuse renamed writes the storage it took over."""
        ref = self.tensor_ref(raw)
        arg = {"role": role, "name": param, **ref}
        storage = self.reuses.take(ref["buffer"]) \
            if role == "in_out" and "buffer" in ref else None
        if storage is not None:
            arg["result"] = ref["buffer"]
            arg["buffer"] = storage
        if role != "input":
            self.mutated.add(arg.get("buffer") or arg["view"]["base"])
        return arg

    def cpp_kernel_call(self, line: W.KernelCallLine, kernel: dict) -> None:
        """A call of a C++ CPU kernel: every parameter is passed, pointers as
        tensors (the binding takes their data pointers), sizes as integers."""
        name = kernel["name"]
        params = kernel["signature"]
        raw_args = list(line.raw_args) if line.raw_args else list(line.call_args)
        if len(raw_args) != len(params):
            raise ExportError(f"cpp kernel {name}: {len(raw_args)} call arguments for "
                              f"{len(params)} parameters")
        args = []
        for param, raw in zip(params, raw_args):
            pname, ctype = param["name"], param["type"]
            if ctype.endswith("*"):
                if not self.is_tensor(raw):
                    raise ExportError(f"cpp kernel {name}: pointer parameter {pname} gets "
                                      f"{raw!r}, not a tensor")
                role = ("in_out" if pname.startswith("in_out_ptr") else
                        "output" if pname.startswith("out_ptr") or not ctype.startswith("const")
                        else "input")
                args.append(self.tensor_arg(role, pname, raw))
            elif re.fullmatch(r"ks\d+", pname):
                args.append(self.ks_arg(pname, raw))
            else:
                value = self.value(raw) if not isinstance(raw, (str, int, float, bool)) else raw
                if isinstance(value, str):
                    value = {"expr": self.expr(value)}
                args.append({"role": "scalar", "name": pname, "value": value})
        self.nodes.append({"op": "kernel_call", "kernel": name, "args": args})

    def is_tensor(self, raw: Any) -> bool:
        if isinstance(raw, str) and raw in self.workspaces:
            return True
        if isinstance(raw, str):
            return raw in self.graph.graph_inputs and not isinstance(
                self.graph.graph_inputs[raw], sympy.Expr) or self.graph.try_get_buffer(raw) is not None
        return isinstance(raw, (ir.IRNode,)) and not isinstance(
            raw, (ir.ShapeAsConstantBuffer, ir.NoneAsConstantBuffer))

    def tensor_ref(self, raw: Any) -> dict:
        if isinstance(raw, str):
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", raw):
                raise ExportError(f"tensor argument is not a name: {raw!r}")
            self.note_buffer(raw)
            return {"buffer": raw}
        value = self.value(raw)
        if not isinstance(value, dict) or not ({"buffer", "view"} & value.keys()):
            raise ExportError(f"tensor argument is not a tensor: {raw!r}")
        return value

    # --- extern kernels -----------------------------------------------------

    @staticmethod
    def op_name(node: Any) -> str:
        name = getattr(node, "python_kernel_name", None) or node.get_kernel_name()
        if name.startswith("torch.ops.aten."):
            name = "aten." + name[len("torch.ops.aten."):]
        return name

    @staticmethod
    def shim_schema(node: Any, op: str, out_form: bool) -> Optional[str]:
        """The aten schema of the C shim function for this call (see c_shim_schema)."""
        overload = getattr(node, "op_overload", None)
        return c_shim_schema(op, out_form, overload)

    def extern_args(self, node: Any) -> tuple[list, dict]:
        unflatten = getattr(node, "unflatten_args", None)
        if unflatten is not None:
            result = unflatten(node.inputs, node.constant_args)
            if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], dict):
                args, kwargs = result
            else:
                args, kwargs = result, {}
            kwargs = {**kwargs, **(getattr(node, "kwargs", None) or {})}
        else:
            args = list(node.inputs) + list(node.constant_args)
            kwargs = dict(getattr(node, "kwargs", None) or {})
        return ([self.value(a) for a in args],
                {k: self.value(v) for k, v in kwargs.items() if k != "out"})

    def extern_out(self, line: Any) -> None:
        node = line.node
        args, kwargs = self.extern_args(node)
        out = self.value(node.output_view) if getattr(node, "output_view", None) else None
        if out is None:
            self.note_buffer(node.get_name())
            out = {"buffer": node.get_name()}
        entry = {"op": "extern_out", "kernel": self.op_name(node), "args": args,
                 "kwargs": kwargs, "out": out}
        schema = self.shim_schema(node, entry["kernel"], True)
        if schema:
            entry["schema"] = schema
        self.nodes.append(entry)

    def extern_alloc(self, line: Any) -> None:
        node = line.node
        args, kwargs = self.extern_args(node)
        is_fallback = isinstance(node, ir.FallbackKernel)
        entry: dict[str, Any] = {"op": "fallback" if is_fallback else "extern_alloc",
                                 "kernel": self.op_name(node), "args": args, "kwargs": kwargs}
        if not isinstance(_output_spec(node), ir.NoneLayout):
            self.note_buffer(node.get_name())
            entry["result"] = node.get_name()
        mutated = []
        for m in getattr(node, "mutation_outputs", None) or []:
            target = m.get_mutation_names()[0] if hasattr(m, "get_mutation_names") else None
            if target:
                mutated.append(target)
                self.mutated.add(target)
        if mutated:
            if not is_fallback:
                entry["op"] = "fallback"
            entry["mutated"] = mutated
        schema = self.shim_schema(node, entry["kernel"], False)
        if schema:
            entry["schema"] = schema
        self.nodes.append(entry)

    def scatter_fallback(self, line: Any) -> None:
        node = line.node
        x, index = node.inputs[0], node.inputs[1]
        src = node.inputs[2] if getattr(node, "src_is_tensor", len(node.inputs) > 2) \
            else node.constant_args[1]
        dim = node.constant_args[0]
        kwargs = {k: self.value(v) for k, v in (getattr(node, "kwargs", None) or {}).items()
                  if v is not None}
        target = self.value(x)["buffer"]
        self.mutated.add(target)
        entry = {"op": "fallback", "kernel": self.op_name(node),
                 "args": [self.value(x), dim, self.value(index), self.value(src)],
                 "kwargs": kwargs, "mutated": [target]}
        schema = self.shim_schema(node, entry["kernel"], False)
        if schema:
            entry["schema"] = schema
        self.nodes.append(entry)

    def index_put_fallback(self, line: Any) -> None:
        node = line.node
        x, values = node.inputs[0], node.inputs[1]
        indices = [None if i is None else self.value(i) for i in line.indices]
        accumulate = bool(node.constant_args[0]) if node.constant_args else False
        target = self.value(x)["buffer"]
        self.mutated.add(target)
        entry = {"op": "fallback", "kernel": self.op_name(node),
                 "args": [self.value(x), indices, self.value(values), accumulate],
                 "mutated": [target]}
        schema = self.shim_schema(node, entry["kernel"], False)
        if schema:
            entry["schema"] = schema
        self.nodes.append(entry)

    # --- lines --------------------------------------------------------------

    def assert_line(self, text: str) -> None:
        """Inductor writes size asserts as plain text; read them back."""
        try:
            call = ast.parse(text.strip()).body[0].value
            assert isinstance(call, ast.Call) and call.func.id == "assert_size_stride"
        except Exception as e:  # noqa: BLE001
            raise ExportError(f"wrapper line is plain text, not Wrapper IR: {text.strip()[:80]!r}") from e
        name = call.args[0].id
        self.note_buffer(name)

        def dims(node: ast.AST) -> list:
            out = []
            for elt in node.elts:
                seg = ast.unparse(elt)
                out.append(int(seg) if re.fullmatch(r"-?\d+", seg) else
                           self.expr(sympy.sympify(seg, locals=self.sympy_locals())))
            return out
        entry = {"op": "assert_size_stride", "buffer": name,
                 "size": dims(call.args[1]), "stride": dims(call.args[2])}
        if len(call.args) > 3:
            entry["what"] = lines.stable_text(call.args[3].value)
        self.nodes.append(entry)

    def finite_assert(self, name: str, check: str) -> None:
        """Inductor's nan_asserts write two lines a tensor, `isnan` then
        `isinf`: one assert_finite node stands for both."""
        last = self.nodes[-1] if self.nodes else {}
        if check == "inf":
            if last != {"op": "assert_finite", "buffer": name}:
                raise ExportError(f"an isinf assert on {name} without the isnan assert "
                                  "before it")
            return
        if not self.is_tensor(name):
            raise ExportError(f"a NaN assert on {name}, which is not a tensor")
        self.note_buffer(name)
        self.nodes.append({"op": "assert_finite", "buffer": name})

    def sympy_locals(self) -> dict:
        names = {name: sympy.Symbol(name, integer=True, positive=True) for name in self.symbols}
        return {"max": sympy.Max, "min": sympy.Min, **names}

    # --- unbacked symbols ---------------------------------------------------

    def bind(self, sym: Any, tensor: Optional[dict], read: str, dim: Optional[int] = None,
             index: Optional[list] = None, expr: Any = None) -> None:
        name = str(sym)
        if name in self.bound:
            return
        self.bound.add(name)
        self.symbol(sym)
        node = {"op": "bind_symbol", "symbol": name, "read": read}
        if tensor is not None:
            node["tensor"] = tensor
        if expr is not None:
            node["expr"] = self.expr(expr)
        if dim is not None:
            node["dim"] = dim
        if index:
            node["index"] = index
        self.nodes.append(node)

    def dynamic_scalar(self, node: Any) -> None:
        """`u0 = buf.item()` (DynamicScalarLine): a bool binds 0 or 1."""
        for key in node.keypath:
            if type(key).__name__ != "ConvertIntKey":
                raise ExportError(f".item() bound through {type(key).__name__} is not exported")
        self.bind(node.sym, self.value(node.inputs[0]), "item")

    def unbacked_defs(self, line: Any) -> None:
        """`u0 = buf1.size(0)` (UnbackedSymbolDefsLine). What an op returns as a
        tuple is read from the buffer a multi_output unpacks it into, when one
        does: the binding waits for that line."""
        source = line.output_name
        for sym, keypath in (line.unbacked_bindings or {}).items():
            keys = list(keypath)
            index = []
            while keys and type(keys[0]).__name__ == "SequenceKey":
                index.append(int(keys.pop(0).idx))
            kinds = [type(k).__name__ for k in keys]
            method = getattr(keys[0], "name", None) if keys else None
            if kinds == ["CallMethodKey", "SequenceKey"] and method in ("size", "stride"):
                read, dim = method, int(keys[1].idx)
            elif kinds == ["CallMethodKey"] and method == "storage_offset":
                read, dim = "storage_offset", None
            else:
                raise ExportError(f"unbacked symbol {sym} bound through the key path "
                                  f"{keypath} is not exported")
            self.note_buffer(source)
            self.pending_binds.append((source, index, sym, read, dim))

    def flush_binds(self) -> None:
        """Bindings no multi_output took: read through the tuple's items."""
        pending, self.pending_binds = self.pending_binds, []
        for source, index, sym, read, dim in pending:
            self.bind(sym, {"buffer": source}, read, dim, index)

    def unpacked(self, source: str, index: list, result: str) -> None:
        """A multi_output took `source[index]` into `result`: the bindings
        waiting for it read `result`."""
        waiting = []
        for entry in self.pending_binds:
            if entry[0] == source and entry[1] == index:
                self.bind(entry[2], {"buffer": result}, entry[3], entry[4])
            else:
                waiting.append(entry)
        self.pending_binds = waiting

    def slice_size(self, name: str, text: str) -> None:
        """`u1_start = ...`, `u1_end = ...`, `u1 = ...`: Inductor's text for the
        length of a slice whose bounds are data-dependent (DynamicSliceSize),
        bound as an expression: Python's slice rules (a negative bound counts
        from the end, then both are clamped to [0, size]) in Min and Max."""
        node = next((op for op in getattr(self.graph, "operations", [])
                     if type(op).__name__ == "DynamicSliceSize"
                     and str(op.unbacked_size_symbol) == name), None)
        if node is None:
            raise ExportError(f"wrapper line is plain text, not Wrapper IR: {text[:80]!r}")
        size, step = sympy.sympify(node.size), sympy.sympify(node.step)
        if not (step.is_Integer and step >= 1):
            raise ExportError(f"a data-dependent slice with step {step} is not exported")

        def bound(x: Any) -> Any:
            x = sympy.sympify(x)
            negative = sympy.Min(sympy.Max(-x, 0), 1)  # x < 0, for an integer x
            return sympy.Min(sympy.Max(x + size * negative, 0), size)

        span = bound(node.end) - bound(node.start)
        length = sympy.Max(0, span if step == 1 else -FloorDiv(-span, step))
        self.bind(node.unbacked_size_symbol, None, "expr", expr=length)
        self.slice_lines = [f"{name}_end", name]

    def select_offset(self, text: str) -> bool:
        """`u3 = base + stride * (index...)`: Inductor's text for the storage
        offset of a select or slice at a data-dependent index
        (DynamicSelectStorageOffset), bound as an expression. False when the
        line is not one."""
        name = text.split(" = ", 1)[0]
        node = next((op for op in getattr(self.graph, "operations", [])
                     if str(getattr(op, "unbacked_offset_symbol", "")) == name), None)
        if node is None:
            return False
        size = sympy.sympify(node.size)
        index = sympy.sympify(node.index)
        index = index + size * sympy.Min(sympy.Max(-index, 0), 1)  # from the end if negative
        if getattr(node, "clamp", "max(0, min(" in text):
            index = sympy.Min(sympy.Max(index, 0), size)
        offset = sympy.sympify(node.base_offset) + sympy.sympify(node.base_dim_stride) * index
        self.bind(node.unbacked_offset_symbol, None, "expr", expr=offset)
        return True

    def device_copy(self, text: str) -> bool:
        """`dst.copy_(src, non_blocking)`: Inductor's text for a copy between
        devices (ir.DeviceCopy). Exported as the ops that run it: a new
        buffer from aten.empty_strided (its layout is Inductor's), then
        aten.copy_ into it. False when the line is not one."""
        parts = lines.device_copy(text)
        if parts is None:
            return False
        target, _, non_blocking = parts
        for op in getattr(self.graph, "operations", []):
            if not isinstance(op, ir.DeviceCopy):
                continue
            view = getattr(op, "output_view", None)
            if view is not None:
                if view.codegen_reference() != target:
                    continue
                dst = self.value(view)
            elif op.get_name() == target:
                self.note_buffer(target)
                self.empty_strided(target)
                dst = {"buffer": target}
            else:
                continue
            written = dst.get("buffer") or dst["view"]["base"]
            self.mutated.add(written)
            self.nodes.append({"op": "fallback", "kernel": "aten.copy_.default",
                               "args": [dst, self.value(op.inputs[0]), non_blocking],
                               "mutated": [written]})
            return True
        raise ExportError(f"a device copy into {target[:60]!r} that no ir.DeviceCopy of the "
                          "graph writes")

    def scalar_assert(self, text: str) -> None:
        """`if not (u0 >= 0):` from Inductor's AssertScalar; the raise and
        the `bufN = None` after it follow as text."""
        condition = text[len("if not ("):-2]
        ops = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
               ast.GtE: ">="}
        try:
            tree = ast.parse(condition, mode="eval").body
            assert isinstance(tree, ast.Compare) and len(tree.ops) == 1
            cmp = ops[type(tree.ops[0])]
            sides = [sympy.sympify(ast.unparse(side), locals=self.sympy_locals())
                     for side in (tree.left, tree.comparators[0])]
        except Exception as e:  # noqa: BLE001
            raise ExportError(f"a run-time assert on sizes is not exported: {text!r}") from e
        self.nodes.append({"op": "assert_scalar", "lhs": self.expr(sides[0]), "cmp": cmp,
                           "rhs": self.expr(sides[1]), "message": condition})
        self.assert_message = len(self.nodes) - 1

    def input_finite_asserts(self) -> None:
        """With nan_asserts, Inductor checks every tensor input (a
        subgraph's too) in the wrapper's prefix, which has no lines: one
        assert_finite node each, before the first line's."""
        if inductor_config.nan_asserts:
            for name, value in self.graph.graph_inputs.items():
                if not isinstance(value, sympy.Expr):
                    self.nodes.append({"op": "assert_finite", "buffer": name})

    def convert(self) -> dict:
        self.input_finite_asserts()
        for line in self.wrapper.lines:
            self.line(line)
        self.flush_binds()
        if self.reuses.waiting():
            raise ExportError("an in-place reuse is not followed by a kernel using it: "
                              f"{self.reuses.waiting()}")
        return self.document()

    def called_subgraph(self, sub: Any, op: str) -> str:
        """The name of a subgraph a cond or while_loop calls, generated by now."""
        name = sub.graph.name
        if name not in self.subgraphs:
            raise ExportError(f"subgraph {name} of a {op} was not generated")
        if name not in self.used_subgraphs:
            self.used_subgraphs.append(name)
        return name

    def while_loop(self, loop: Any) -> None:
        cond = self.called_subgraph(loop.cond_subgraph, "torch.while_loop")
        body = self.called_subgraph(loop.body_subgraph, "torch.while_loop")
        result = loop.get_name()
        self.note_buffer(result)
        self.nodes.append({"op": "while_loop", "cond_graph": cond, "body_graph": body,
                           "carried": [self.value(v) for v in loop.carried_inputs],
                           "additional": [self.value(v) for v in loop.additional_inputs],
                           "result": result})

    def invoke_subgraph(self, invoke: Any) -> None:
        graph = self.called_subgraph(invoke.subgraph, "invoke_subgraph")
        result = invoke.get_name()
        self.note_buffer(result)
        self.nodes.append({"op": "invoke_subgraph", "subgraph": graph,
                           "operands": [self.value(v) for v in invoke.inputs],
                           "result": result})

    def size_comparison(self, rel: Any) -> Optional[dict]:
        """`{"lhs", "cmp", "rhs"}` of a comparison of sizes, or None."""
        if isinstance(rel, sympy.core.relational.Relational) and \
                rel.rel_op in ("==", "!=", "<", "<=", ">", ">="):
            return {"lhs": self.expr(rel.lhs), "cmp": rel.rel_op, "rhs": self.expr(rel.rhs)}
        return None

    def cond(self, conditional: Any) -> None:
        predicate = getattr(conditional.predicate, "expr", None)
        exported: Any
        single = self.size_comparison(predicate)
        joined = [self.size_comparison(a) for a in predicate.args] \
            if isinstance(predicate, (sympy.And, sympy.Or)) else None
        if isinstance(predicate, sympy.logic.boolalg.BooleanAtom):
            exported = bool(predicate)
        elif single is not None:
            # A comparison of sizes (x.shape[0] > 4), a SymBool.
            exported = {"compare": single}
        elif joined is not None and None not in joined:
            # Comparisons joined by & or | (sympy's And, Or).
            exported = {"all" if isinstance(predicate, sympy.And) else "any": joined}
        elif isinstance(predicate, sympy.logic.boolalg.Boolean):
            raise ExportError(f"torch.cond on the size predicate {predicate}: one comparison "
                              "of sizes (==, !=, <, <=, >, >=), or several joined all by And "
                              f"or all by Or, is exported; this {type(predicate).__name__} is "
                              "neither")
        else:
            exported = self.value(conditional.predicate)
        names = [self.called_subgraph(sub, "torch.cond")
                 for sub in (conditional.true_subgraph, conditional.false_subgraph)]
        result = conditional.get_name()
        self.note_buffer(result)
        self.nodes.append({"op": "cond", "predicate": exported,
                           "true_graph": names[0], "false_graph": names[1],
                           "operands": [self.value(o) for o in conditional.operands],
                           "result": result})

    def line(self, line: Any) -> None:
        # What the nodes made since the last line use is no longer fresh.
        if self.fresh:
            self.unfresh(self.nodes[self.checked_nodes:])
        self.checked_nodes = len(self.nodes)
        # Inductor's own text for a torch.cond or torch.while_loop lies
        # between the markers; the exported node stands for all of it.
        if isinstance(line, _ControlFlowEnd):
            self.skipping = False
            return
        if self.skipping:
            return
        if isinstance(line, _ControlFlowMarker):
            {"cond": self.cond, "while_loop": self.while_loop,
             "invoke_subgraph": self.invoke_subgraph}[line.kind](line.node)
            self.skipping = True
            return
        kind = type(line).__name__
        if self.pending_binds and kind not in ("MultiOutputLine", "FreeIfNotReusedLine",
                                               "FreeLine", "LineContext", "NullLine"):
            self.flush_binds()
        if isinstance(line, str):
            stripped = line.strip()
            if stripped.startswith("assert_size_stride("):
                self.assert_line(stripped)
            elif stripped.startswith("assert_alignment(") or not stripped:
                pass
            elif stripped.startswith("if not (") and stripped.endswith("):"):
                self.scalar_assert(stripped)
            elif stripped.startswith("raise RuntimeError(") and self.assert_message is not None:
                try:
                    message = ast.literal_eval(stripped[len("raise RuntimeError("):-1])
                except Exception as e:  # noqa: BLE001
                    raise ExportError(f"unexpected assert message: {stripped[:80]!r}") from e
                self.nodes[self.assert_message]["message"] = lines.stable_text(str(message))
                self.assert_message = None
            elif re.fullmatch(r"[A-Za-z_]\w* = None", stripped):
                pass  # Inductor names what an assert or .item() left: nothing
            elif m := re.match(r"([A-Za-z_]\w*)_start = ", stripped):
                self.slice_size(m.group(1), stripped)
            elif self.slice_lines and stripped.startswith(self.slice_lines[0] + " = "):
                self.slice_lines.pop(0)  # the rest of the slice length's text
            elif self.select_offset(stripped):
                pass
            elif self.device_copy(stripped):
                pass
            elif m := re.fullmatch(r"assert not ([A-Za-z_]\w*)\.is(nan|inf)\(\)\.any\(\)\.item\(\)",
                                   stripped):
                self.finite_assert(m.group(1), m.group(2))
            elif (m := re.fullmatch(r"([A-Za-z_]\w*)\.zero_\(\)", stripped)) \
                    and m.group(1) in self.workspaces:
                # A workspace kernels expect zeroed (WorkspaceZeroMode).
                self.nodes.append({"op": "zero", "buffer": m.group(1)})
            else:
                raise ExportError(f"wrapper line is plain text, not Wrapper IR: {stripped[:80]!r}")
            return
        if kind == "AllocateLine":
            self.fresh.add(line.node.get_name())
            if type(line.node).__name__ == "WorkspaceArg":
                self.workspace(line.node)
            return
        if kind in ("LineContext", "NullLine", "FreeIfNotReusedLine", "FreeLine"):
            return
        self.dispatch(line, kind)

    def dispatch(self, line: Any, kind: str) -> None:
        if kind == "KernelDefinitionLine":
            self.define_kernel(line)
        elif kind == "KernelCallLine":
            self.kernel_call(line)
        elif kind == "CommentLine":
            text = getattr(line, "line", "")
            text = text.line if hasattr(text, "line") else str(text)
            text = text.lstrip("#").strip()
            if text:
                self.nodes.append({"op": "comment", "text": lines.stable_text(text)})
        elif kind == "EnterDeviceContextManagerLine":
            self.nodes.append({"op": "device_guard_enter", "device": int(line.device_idx)})
        elif kind == "ExitDeviceContextManagerLine":
            self.nodes.append({"op": "device_guard_exit"})
        elif kind == "ReuseLine":
            old, new = line.node.get_name(), line.reused_as.get_name()
            # A removed buffer's reuse is dropped: neither name is a buffer.
            if not self.reuses.drops(old):
                self.note_buffer(old)
                self.note_buffer(new)
                dropped = self.reuses.reuse(old, new, self.nodes)
                if dropped is not None:
                    self.buffers.pop(dropped, None)
        elif kind == "ReinterpretLine":
            self.note_buffer(line.reused_as.get_name())
        elif kind == "ExternKernelOutLine":
            self.extern_out(line)
        elif kind == "ExternKernelAllocLine":
            self.extern_alloc(line)
        elif kind == "ScatterFallbackLine":
            self.scatter_fallback(line)
        elif kind == "IndexPutFallbackLine":
            self.index_put_fallback(line)
        elif kind == "MultiOutputLine":
            indices = []
            for container, index in line.indices:
                cname = getattr(container, "__name__", str(container))
                indices.append(["dict" if cname == "dict" else
                                "list" if cname == "list" else "tuple",
                                index if cname == "dict" else int(index)])
            self.note_buffer(line.result_name)
            self.nodes.append({"op": "multi_output", "result": line.result_name,
                               "source": line.arg_name, "indices": indices})
            if self.pending_binds and all(c != "dict" for c, _ in indices):
                self.unpacked(line.arg_name, [i for _, i in indices], line.result_name)
        elif kind == "UnbackedSymbolDefsLine":
            self.unbacked_defs(line)
        elif kind == "DynamicScalarLine":
            self.dynamic_scalar(line.node)
        elif kind == "SymbolicCallArgLine":
            self.expr(line.arg)
        else:
            raise ExportError(f"wrapper line {kind} is not supported by the exporter")

    def unfresh(self, nodes: list) -> None:
        """What `nodes` use is no longer fresh (lines.drop_used)."""
        lines.drop_used(self.fresh, nodes, self.buffers)

    def allocate_unwritten(self, outputs: list) -> None:
        """An output buffer Inductor allocates and no node writes (a tensor
        with a dimension of size 0, which no kernel launch touches) is made
        by aten.empty_strided, with its layout, where the graph ends."""
        self.unfresh(self.nodes[self.checked_nodes:])
        self.checked_nodes = len(self.nodes)
        for name in sorted(_tensor_names(outputs) & self.fresh):
            entry = self.buffers.get(name)
            if entry is None or entry.get("tuple") or entry.get("view_of"):
                continue
            self.empty_strided(name)
            self.fresh.discard(name)

    def empty_strided(self, name: str) -> None:
        """A node making buffer `name` (noted) with its own layout:
        aten.empty_strided, which build-wrapper-ir turns into an allocation."""
        entry = self.buffers[name]

        def dims(xs: list) -> list:
            return [x if isinstance(x, int) else {"expr": x} for x in xs]
        self.nodes.append({
            "op": "extern_alloc", "kernel": "aten.empty_strided.default",
            "args": [dims(entry["size"]), dims(entry["stride"])],
            "kwargs": {"dtype": {"dtype": entry["dtype"]}, "device": {"device": entry["device"]}},
            "result": name})

    def graph_fields(self) -> dict:
        """inputs, constants, buffers, nodes, outputs of this graph."""
        inputs = []
        for name, value in self.graph.graph_inputs.items():
            if isinstance(value, sympy.Expr):
                entry = lines.symbolic_input(name, value)
                if entry is None:
                    raise ExportError(f"input {name} is the expression {value}, "
                                      "which is not an integer")
                if entry["kind"] == "symbol":
                    # A subgraph's symbol input (torch.cond, torch.while_loop
                    # or a nested compile region under dynamic shapes) binds
                    # the caller's symbol of the same name: the shape
                    # environment is shared.
                    self.symbol(value)
                inputs.append(entry)
                continue
            entry = {"name": name, **self.layout_fields(value.get_layout())}
            if name in self.mutated or name in getattr(self.graph, "mutated_inputs", set()):
                entry["mutated"] = True
            inputs.append(entry)
        constants = []
        for name, tensor in self.graph.constants.items():
            constants.append({"name": name, "dtype": _dtype(tensor.dtype),
                              "device": _device(tensor.device),
                              "size": list(tensor.shape), "stride": list(tensor.stride()),
                              "offset": tensor.storage_offset()})
        outputs = [self.value(o) for o in self.graph.graph_outputs]
        self.allocate_unwritten(outputs)
        fields = {"name": self.name, "inputs": inputs}
        if constants:
            fields["constants"] = constants
        fields["buffers"] = list(self.buffers.values())
        fields["nodes"] = self.nodes
        fields["outputs"] = outputs
        return fields

    def reachable_subgraphs(self) -> list[str]:
        """The subgraphs this graph calls, directly or through others, each
        after those it calls."""
        order: list[str] = []
        seen: set[str] = set()

        def visit(name: str) -> None:
            if name in seen:
                return
            seen.add(name)
            for callee in self.subgraphs[name][3]:
                visit(callee)
            order.append(name)

        for name in self.used_subgraphs:
            visit(name)
        return order

    def document(self) -> dict:
        fields = self.graph_fields()
        doc = {"format": FORMAT, "version": VERSION, "name": self.name,
               "metadata": {"producer": "wirc_export", "torch": torch.__version__}}
        # Subgraphs share the document's symbols and kernel table. Those
        # that subgraphs call (a cond inside a while_loop's body, ...) come
        # along, each once.
        subgraphs = []
        for name in self.reachable_subgraphs():
            sub_fields, sub_symbols, sub_kernels, _ = self.subgraphs[name]
            subgraphs.append(sub_fields)
            for sym in sub_symbols:
                self.symbols.setdefault(sym["name"], sym)
            for kernel in sub_kernels:
                self.kernels.setdefault(kernel["name"], kernel)
        doc["symbols"] = list(self.symbols.values())
        doc["inputs"] = fields["inputs"]
        if "constants" in fields:
            doc["constants"] = fields["constants"]
        doc["buffers"] = fields["buffers"]
        doc["kernels"] = list(self.kernels.values())
        doc["nodes"] = fields["nodes"]
        doc["outputs"] = fields["outputs"]
        if subgraphs:
            doc["subgraphs"] = subgraphs
        return doc


def _is_unbacked(sym: Any) -> bool:
    """A data-dependent symbol (u0, ...): its value is known only at run time."""
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
    return bool(free_unbacked_symbols(sym))


def _is_unbacked_float(sym: Any) -> bool:
    """A data-dependent float (zuf0: a float tensor's .item())."""
    from torch.utils._sympy.symbol import SymT, symbol_is_type
    return isinstance(sym, sympy.Symbol) and symbol_is_type(sym, SymT.UNBACKED_FLOAT)


class _Exporter:
    def __init__(self, out_dir: str, artifacts: bool, replace: Optional[str], wirc: str,
                 wirc_args: list, time_again: bool = False, time_lines: bool = False):
        self.out_dir = out_dir
        self.artifacts = artifacts
        self.replace = replace
        self.wirc = wirc
        self.wirc_args = list(wirc_args)
        self.time_again = time_again
        self.time_lines = time_lines
        # libwirc-c, loaded once, when the export starts (a one-time cost,
        # about a millisecond): each graph's recorded time is then its compile.
        self.library = native.load(wirc) if replace and native.is_library(wirc) else None
        self.count = 0
        self.written: list[str] = []
        # Per graph: seconds Inductor's wrapper generation took (_generate)
        # and seconds `wirc compile` took end to end: process start included,
        # or the call into libwirc-c.
        self.timings: list[dict] = []
        # Subgraphs are generated (by Inductor) before the graph that calls
        # them: name -> (fields, symbols, kernels).
        self.subgraphs: dict[str, tuple] = {}
        # Kernels the graph being compiled and its subgraphs defined so far.
        self.kernel_defs: dict[str, Any] = {}

    def export(self, wrapper: W.PythonWrapperCodegen) -> str:
        _decline_wrapper_settings()
        name = f"graph{self.count}"
        self.count += 1
        doc = _GraphConverter(wrapper, name, self.artifacts, self.subgraphs,
                              self.kernel_defs).convert()
        # Kernel names are per compilation: the next graph starts afresh.
        self.kernel_defs = {}
        path = os.path.join(self.out_dir, f"{name}.json")
        os.makedirs(self.out_dir, exist_ok=True)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(graphjson.dumps(doc))
        os.replace(tmp, path)
        self.written.append(path)
        return path

    def run_wirc(self, args: list) -> subprocess.CompletedProcess:
        """`wirc ARGS...`: in this process when self.wirc names libwirc-c,
        else as a command."""
        if self.library is not None:
            return self.library.run(args)
        return subprocess.run([self.wirc, *args], capture_output=True, text=True)

    def emitted(self, path: str) -> str:
        if self.replace == "cpp":
            return self.emitted_cpp(path)
        args = ["compile", path, f"--emit={self.replace}", *self.wirc_args]
        faults = _minor_faults()
        start = time.perf_counter()
        result = self.run_wirc(args)
        timing = self.timings[-1]
        timing["wirc_s"] = time.perf_counter() - start
        timing["wirc_page_faults"] = _minor_faults() - faults
        if self.time_again and self.library is not None and result.returncode == 0:
            # The same call again, for measurements only: what a first call in
            # a process costs beyond it (fresh memory, cold caches) shows in
            # the difference.
            start = time.perf_counter()
            self.run_wirc(args)
            timing["wirc_again_s"] = time.perf_counter() - start
        if result.returncode == 3:
            raise NotStandaloneError(f"wirc cannot emit {path} as asked:\n{result.stderr}")
        if result.returncode != 0:
            raise ExportError(f"wirc failed on {path}:\n{result.stderr}")
        return result.stdout

    def emitted_cpp(self, path: str) -> str:
        """The standalone C++ wrapper, built into a library that the
        returned Python module calls (wirc_export.cpp_runner)."""
        from . import cpp_runner
        cpp_path = path[:-len(".json")] + ".cpp"
        start = time.perf_counter()
        result = self.run_wirc(["compile", path, "--emit=cpp", "-o", cpp_path, *self.wirc_args])
        self.timings[-1]["wirc_s"] = time.perf_counter() - start
        if result.returncode == 3:
            raise NotStandaloneError(f"wirc cannot run {path} without Python:\n{result.stderr}")
        if result.returncode != 0:
            raise ExportError(f"wirc failed on {path}:\n{result.stderr}")
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        if "--cpp-abi=aoti" in self.wirc_args:
            # Tensor handles and PyTorch's C shim (wirc_export.aoti_runner).
            from . import aoti_runner
            return aoti_runner.module_source(aoti_runner.build(cpp_path), doc)
        so_path = cpp_runner.build(cpp_path)
        return cpp_runner.module_source(so_path, doc)


_ACTIVE: Optional[_Exporter] = None


def _minor_faults() -> int:
    """Page faults of this process so far that needed no disk read."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


class WircExportWrapperCodegen(_MarksControlFlow, W.PythonWrapperCodegen):
    """Inductor's Python wrapper codegen, exporting each graph it generates."""

    @staticmethod
    def create(is_subgraph, subgraph_name, parent_wrapper, partition_signatures=None):
        if is_subgraph:
            wrapper = W.PythonWrapperCodegen.create(is_subgraph, subgraph_name, parent_wrapper,
                                                    partition_signatures)
            if type(wrapper) is not W.SubgraphPythonWrapperCodegen:
                raise ExportError(f"subgraph wrapper {type(wrapper).__name__} is not supported")
            wrapper.__class__ = _ExportingSubgraphCodegen
            return wrapper
        # Inductor's wrapper writes its header and `call`'s prefix (input
        # unpacking, symbols read from inputs, the inputs' size asserts) as it
        # is made: that is wrapper generation too, timed as inductor_init_s.
        start = time.perf_counter()
        wrapper = WircExportWrapperCodegen()
        wrapper._wirc_init_s = time.perf_counter() - start
        return wrapper

    def push_codegened_graph(self, graph):
        super().push_codegened_graph(graph)
        # The first push starts the scheduler's code generation for this
        # wrapper: time the lines it builds (wirc_export.linetimer).
        if (_ACTIVE is not None and _ACTIVE.time_lines
                and "_wirc_line_timer" not in self.__dict__):
            self._wirc_line_timer = linetimer.LineTimer()
            self._wirc_line_timer.install(self)

    def _generate(self, is_inference):
        exporter = _ACTIVE
        timer = self.__dict__.get("_wirc_line_timer")
        if timer is not None:
            timer.remove(self)
        path = exporter.export(self) if exporter is not None else None
        start = time.perf_counter()
        result = super()._generate(is_inference)
        if exporter is not None:
            generate_s = time.perf_counter() - start
            line_count = str(getattr(result[0], "value", result[0])).count("\n")
            timing = {"graph": os.path.basename(path), "inductor_generate_s": generate_s,
                      "inductor_wrapper_lines": line_count}
            if "_wirc_init_s" in self.__dict__:
                timing["inductor_init_s"] = self._wirc_init_s
            if timer is not None:
                timing["inductor_lines_s"] = timer.seconds()
                timing["inductor_line_calls"] = timer.outer_calls + timer.inner_calls
            exporter.timings.append(timing)
        if exporter is not None and exporter.replace:
            code = exporter.emitted(path)
            first = result[0]
            replaced = type(first)(code, []) if hasattr(first, "line_map") else code
            result = (replaced,) + tuple(result[1:])
        return result


class _ExportingSubgraphCodegen(_MarksControlFlow, W.SubgraphPythonWrapperCodegen):
    """A subgraph's wrapper (a torch.cond branch, a loop's cond or body, a
    nested compile region): converts its lines for the document of the graph
    that calls it."""

    def _generate(self, is_inference):
        exporter = _ACTIVE
        if exporter is not None:
            converter = _GraphConverter(self, self.subgraph_name, exporter.artifacts,
                                        exporter.subgraphs, exporter.kernel_defs)
            converter.input_finite_asserts()
            for line in self.lines:
                converter.line(line)
            fields = converter.graph_fields()
            # Subgraphs it calls were generated before it, as for the main
            # graph; the document that calls it takes them along.
            exporter.subgraphs[self.subgraph_name] = (
                fields, list(converter.symbols.values()), list(converter.kernels.values()),
                list(converter.used_subgraphs))
        return super()._generate(is_inference)


def _not_exported(what: str, instead: str) -> type:
    """A stand-in for one of Inductor's other wrapper codegens while
    exporting: a graph compiled with it gets a wrapper the exporter does not
    read, which is an error naming the setting rather than a graph silently
    left out. (A wrapper codegen class, for the class attributes Inductor
    reads before it creates one.)"""
    def create(*args, **kwargs):
        raise ExportError(f"Inductor's {what}, which the exporter does not read, so nothing "
                          f"would be exported; {instead}")
    return type("_NotExported", (W.PythonWrapperCodegen,), {"create": staticmethod(create)})


_CppWrapperNotExported = _not_exported(
    "cpp_wrapper is on (torch._inductor.config.cpp_wrapper, or AOTInductor): the graph's "
    "wrapper would be C++",
    "compile with cpp_wrapper=False (wirc's --emit=cpp writes a C++ wrapper from the "
    "exported graph)")
_FxWrapperNotExported = _not_exported(
    "FX wrapper is on (torch._inductor.config.fx_wrapper): the graph's wrapper would be an "
    "FX graph",
    "compile without it (wirc's --emit=fx and --emit=fx-module write the FX graph from the "
    "exported graph)")


# Inductor settings that add calls to its wrapper as it prints it, which the
# Wrapper IR does not hold: wirc's wrappers would leave them out, silently.
_DECLINED_SETTINGS = {
    "generate_intermediate_hooks": "the wrapper calls run_intermediate_hooks on "
                                   "intermediate results",
    "profile_bandwidth": "the wrapper times its kernels and reports their bandwidth",
}


def _decline_wrapper_settings() -> None:
    for setting, what in _DECLINED_SETTINGS.items():
        if getattr(inductor_config, setting, False):
            raise ExportError(
                f"Inductor's {setting} is on ({what}); the exported graph does not hold "
                f"those calls and wirc's wrappers would leave them out: compile without it")


def _register_exporting(device: str, previous) -> None:
    """Registers the exporting wrapper codegen for \p device in place of
    \p previous's, keeping its scheduling and the device's custom pass and
    codegen config."""
    codegen_common.register_backend_for_device(
        device, previous.scheduling, WircExportWrapperCodegen,
        device_cpp_wrapper_codegen=_CppWrapperNotExported,
        device_fx_wrapper_codegen=_FxWrapperNotExported,
        device_custom_pass=codegen_common.custom_backend_passes.get(device),
        device_custom_config=codegen_common.custom_backend_codegen_configs.get(device))


@contextlib.contextmanager
def exporting(out_dir: str, *, artifacts: bool = False, replace: Optional[str] = None,
              wirc: str = "wirc", wirc_args: tuple = (), time_again: bool = False,
              time_lines: bool = False):
    """Exports every graph Inductor compiles while the context is active.

    Caches that would skip code generation are turned off, as are graph
    partitions and alignment asserts, which the graph format does not carry.
    A graph compiled with Inductor's cpp_wrapper or FX wrapper is an
    ExportError: its wrapper would be C++ or FX, which the exporter does not
    read. The devices' custom passes and codegen configs stay in effect.
    With replace="python" or "fx-module", the program runs wirc's emitted
    wrapper (a Python module, or a module running the FX GraphModule); with
    replace="cpp" (and artifacts=True), wirc's standalone C++ wrapper, built
    into a library (cpp_runner.py);
    wirc is the executable, or libwirc-c.so (include/wirc-c/wirc.h) to
    compile in this process; wirc_args are added to the `wirc compile`
    command line. Each graph's timings hold the time Inductor took to make
    its wrapper (inductor_init_s: the header and `call`'s prefix) and to
    generate it (inductor_generate_s); with time_lines, also the time
    Inductor's scheduler spent building the wrapper's lines (linetimer.py).
    With time_again (and libwirc-c), each compile is made a
    second time and its time recorded too (validate.py's wirc_again_s).
    """
    global _ACTIVE
    codegen_common.init_backend_registration()
    previous = codegen_common.device_codegens.get("cuda")
    if previous is None:
        raise ExportError("no CUDA backend is registered in this build of PyTorch")
    exporter = _Exporter(out_dir, artifacts, replace, wirc, list(wirc_args), time_again,
                         time_lines)
    patches = {"fx_graph_cache": False, "fx_graph_remote_cache": False,
               "alignment_asserts": False}
    if artifacts and hasattr(inductor_config, "use_static_cuda_launcher"):
        # The static launcher keeps only a cubin; Triton's own compiled kernel
        # also has the PTX and the scratch sizes the C++ wrapper needs.
        patches["use_static_cuda_launcher"] = False
    if hasattr(inductor_config, "graph_partition"):
        patches["graph_partition"] = False
    previous_cpu = codegen_common.device_codegens.get("cpu")
    # Registering sets the device's custom pass and config: restored after.
    passes = dict(codegen_common.custom_backend_passes)
    configs = dict(codegen_common.custom_backend_codegen_configs)
    _ACTIVE = exporter
    try:
        _register_exporting("cuda", previous)
        if previous_cpu is not None:
            # CPU graphs too: their C++ kernels become cpp kernels.
            _register_exporting("cpu", previous_cpu)
        with inductor_config.patch(patches):
            yield exporter
    finally:
        _ACTIVE = None
        codegen_common.device_codegens["cuda"] = previous
        if previous_cpu is not None:
            codegen_common.device_codegens["cpu"] = previous_cpu
        for table, saved in ((codegen_common.custom_backend_passes, passes),
                             (codegen_common.custom_backend_codegen_configs, configs)):
            table.clear()
            table.update(saved)
