#!/usr/bin/env python3
"""Synthetic graph-format documents for wirc's compile-speed benchmark.

Writes a scheduled Inductor graph (docs/graph-format.md) of exactly N nodes
that looks like a transformer stack after Inductor's scheduler: pointwise and
reduction Triton launches (some in place, some with a removed argument, some
2-D with size arguments), extern_kernels.mm/addmm calls with out=, fallbacks
with multi-output unpacking and size asserts, named views (cat into a buffer),
reinterpret views of weights and activations, a mutated input, provenance
comments, and dynamic shapes (batch and sequence symbols, a precomputed size
symbol, symbolic layouts and numels). Kernels are reused: N nodes launch a
few hundred distinct kernels at most, as real graphs with repeated layers do.

The output depends only on the arguments: the same seed gives the same bytes.

  graphgen.py --nodes 100000 [--seed 1] [--static] [--kernels K] [-o OUT.json]
"""

import argparse
import json
import math
import random
import sys

HIDDEN = 768
HEADS = 12
HEAD_DIM = HIDDEN // HEADS
FFN = 4 * HIDDEN


class Shapes:
    """Size and stride spellings for the dynamic or the static variant."""

    def __init__(self, dynamic):
        self.dynamic = dynamic
        self.batch = "s0" if dynamic else 8
        self.seq = "s1" if dynamic else 512
        # Rows of a [batch*seq, hidden] activation; ps0 is a precomputed size.
        self.rows = "ps0" if dynamic else 8 * 512

    def mul(self, *factors):
        """The product of ints and symbol names, folded and spelled as wirc reads it."""
        const = 1
        syms = []
        for f in factors:
            if isinstance(f, int):
                const *= f
            else:
                syms.append(f)
        if not syms:
            return const
        text = "*".join(syms)
        return text if const == 1 else f"{const}*{text}"

    def layouts(self):
        r, b, s = self.rows, self.batch, self.seq
        return {
            # name: (dtype, size, stride)
            "act": ("float32", [r, HIDDEN], [HIDDEN, 1]),
            "wide": ("float32", [r, FFN], [FFN, 1]),
            "row": ("float32", [r], [1]),
            "cat": ("float32", [r, 2 * HIDDEN], [2 * HIDDEN, 1]),
            "attn": ("float32", [b, HEADS, s, HEAD_DIM],
                     [self.mul(HIDDEN, s), HEAD_DIM, HIDDEN, 1]),
            "lse": ("float32", [b, HEADS, s], [self.mul(HEADS, s), s, 1]),
            "tok": ("int64", [r], [1]),
            "w_hh": ("float32", [HIDDEN, HIDDEN], [HIDDEN, 1]),
            "w_hf": ("float32", [FFN, HIDDEN], [HIDDEN, 1]),
            "w_fh": ("float32", [HIDDEN, FFN], [FFN, 1]),
            "vec_h": ("float32", [HIDDEN], [1]),
            "vec_f": ("float32", [FFN], [1]),
            "emb": ("float32", [32000, HIDDEN], [HIDDEN, 1]),
        }

    def numel(self, layout):
        return self.mul(*layout[1])


POINTWISE_OPS = ["add", "mul", "gelu", "silu", "sub", "div", "neg", "where", "exp",
                 "tanh", "sigmoid", "clone", "relu", "rsqrt", "pow", "native_dropout"]
REDUCTION_OPS = ["sum", "mean", "amax", "var_mean", "native_layer_norm", "softmax",
                 "argmax", "logsumexp"]


def triton_type(dtype):
    return {"float32": "*fp32", "int64": "*i64", "bfloat16": "*bf16"}[dtype]


def arg_names(roles):
    """Inductor's parameter names: in_ptrN, out_ptrN, in_out_ptrN and ksN
    count separately; a removed argument keeps its slot in its old role."""
    counters = {}
    names = []
    for role in roles:
        prefix = {"input": "in_ptr", "output": "out_ptr", "in_out": "in_out_ptr",
                  "removed": "out_ptr", "size": "ks"}[role]
        n = counters.get(prefix, 0)
        counters[prefix] = n + 1
        names.append(f"{prefix}{n}")
    return names


def kernel_source(name, kind, params, numels, meta):
    """A Triton module in the shape Inductor writes, about 1.5 KB."""
    sig = ", ".join(f"'{p}': '{t}'" for p, t in params)
    args = ", ".join(p for p, t in params if t != "constexpr")
    blocks = ", ".join(f"{p} : tl.constexpr" for p, t in params if t == "constexpr")
    heuristic = "reduction" if kind in ("red", "per") else "pointwise"
    body = [
        "    xoffset = tl.program_id(0) * XBLOCK",
        "    xindex = xoffset + tl.arange(0, XBLOCK)[:]",
        "    xmask = xindex < xnumel",
    ]
    if "r0_numel" in numels:
        body += ["    r0_index = tl.arange(0, R0_BLOCK)[None, :]",
                 "    r0_mask = r0_index < r0_numel"]
    for i, (p, t) in enumerate(params):
        if p.startswith("in_"):
            body.append(f"    tmp{i} = tl.load({p} + (xindex), xmask).to(tl.float32)")
    body.append(f"    tmp_out = {meta} + 1.0")
    for p, t in params:
        if p.startswith("out_") or p.startswith("in_out_"):
            body.append(f"    tl.store({p} + (xindex), tmp_out, xmask)")
    return "\n".join([
        "import triton",
        "import triton.language as tl",
        "",
        "from torch._inductor.runtime import triton_helpers, triton_heuristics",
        "from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math",
        "from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, "
        "DeviceProperties",
        "triton_helpers.set_driver_to_gpu()",
        "",
        f"@triton_heuristics.{heuristic}(",
        "    size_hints={'x': 4096},",
        "    filename=__file__,",
        f"    triton_meta={{'signature': {{{sig}}}, 'device': DeviceProperties(type='cuda', "
        "index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, "
        "max_threads_per_multi_processor=2048, warp_size=32), 'constants': {}},",
        f"    inductor_meta={{'kernel_name': '{name}', 'mutated_arg_names': [], "
        "'no_x_dim': False}},",
        ")",
        "@triton.jit",
        f"def {name}({args}, {blocks}):",
    ] + body) + "\n"


class Kernel:
    """A kernel and the call shape every launch of it has."""

    def __init__(self, index, rng, shapes, kind):
        self.kind = kind
        L = shapes.layouts()
        cls = "wide" if rng.random() < 0.25 else "act"
        self.grid_type = "Grid1D"
        self.size_args = []
        if kind == "poi":
            ins = [cls] * rng.choice([1, 1, 2, 2, 3])
            if rng.random() < 0.3:
                ins.append("vec_h" if cls == "act" else "vec_f")
            slots = [("input", c) for c in ins] + [("output", cls)]
            if rng.random() < 0.1:
                slots.append(("output", cls))
            if rng.random() < 0.08:
                # A store fusion removed: the slot stays, the argument is not passed.
                slots.insert(len(ins), ("removed", cls))
            self.numels = {"xnumel": shapes.numel(L[cls])}
            kwargs = [{"XBLOCK": 1024}, {"XBLOCK": 512}]
        elif kind == "inplace":
            slots = [("in_out", cls)] + [("input", cls)] * rng.choice([0, 1, 1, 2])
            self.numels = {"xnumel": shapes.numel(L[cls])}
            kwargs = [{"XBLOCK": 1024}]
        elif kind == "poi2d":
            slots = [("input", "act"), ("output", "act")]
            if shapes.dynamic:
                slots.append(("size", "ps0"))
            self.grid_type = "Grid2D"
            self.numels = {"ynumel": shapes.rows, "xnumel": HIDDEN}
            kwargs = [{"YBLOCK": 64, "XBLOCK": 64}, {"YBLOCK": 32, "XBLOCK": 128}]
        else:  # red / per: row reductions, layer norms, softmax statistics
            slots = [("input", "act")] * rng.choice([1, 2])
            if rng.random() < 0.5:
                slots.append(("input", "vec_h"))
            slots.append(("output", "row"))
            if rng.random() < 0.5:
                slots.append(("output", "act"))
            self.numels = {"xnumel": shapes.rows, "r0_numel": HIDDEN}
            kwargs = ([{"XBLOCK": 1, "R0_BLOCK": 1024}] if kind == "per"
                      else [{"XBLOCK": 8, "R0_BLOCK": 128}, {"XBLOCK": 1, "R0_BLOCK": 2048}])
        self.slots = slots
        ops = "_".join(rng.sample(REDUCTION_OPS if kind in ("red", "per") else POINTWISE_OPS,
                                  rng.choice([1, 2, 3])))
        prefix = "poi" if kind in ("poi", "inplace", "poi2d") else kind
        self.name = f"triton_{prefix}_fused_{ops}_{index}"
        roles = [r for r, _ in slots]
        names = arg_names(roles)
        self.names = names
        params = []
        for (role, c), n in zip(slots, names):
            if role == "removed":
                continue
            params.append((n, "i32" if role == "size" else triton_type(L[c][0])))
        params += [(n, "i32") for n in self.numels]
        params += [(b, "constexpr") for b in kwargs[0]]
        self.configs = [{"kwargs": k, "num_warps": rng.choice([2, 4, 8]), "num_stages": 1}
                        for k in kwargs]
        self.json = {
            "name": self.name, "language": "triton",
            "source": kernel_source(self.name, kind, params, self.numels, ops),
            "signature": [{"name": n, "type": t} for n, t in params],
            "grid_type": self.grid_type, "configs": self.configs,
        }


class Generator:
    def __init__(self, nodes, seed, dynamic, num_kernels):
        self.target = nodes
        self.rng = random.Random(seed)
        self.shapes = Shapes(dynamic)
        self.layouts = self.shapes.layouts()
        self.inputs = []
        self.buffers = []
        self.nodes = []
        self.live = {}  # layout class -> recent tensors, newest last
        self.buffer_count = 0
        self.input_count = 0
        self.weights = {}
        if num_kernels is None:
            num_kernels = max(8, min(400, round(math.sqrt(nodes) / 2.5)))
        kinds = ["poi"] * 10 + ["inplace"] * 3 + ["red"] * 3 + ["per"] * 2 + ["poi2d"] * 2
        self.kernels = [Kernel(i, self.rng, self.shapes, kinds[i % len(kinds)])
                        for i in range(num_kernels)]
        self.by_kind = {}
        for k in self.kernels:
            self.by_kind.setdefault(k.kind, []).append(k)

    # --- tensors ----------------------------------------------------------

    def layout_json(self, cls):
        dtype, size, stride = self.layouts[cls]
        return {"dtype": dtype, "device": "cuda:0", "size": size, "stride": stride}

    def add_input(self, cls, mutated=False, prefix="arg"):
        self.input_count += 1
        # Inductor's spellings: argN_1 for inference inputs, primals_N for
        # parameters and state.
        name = (f"primals_{self.input_count}" if prefix == "primals_"
                else f"{prefix}{self.input_count}_1")
        entry = {"name": name, **self.layout_json(cls)}
        if mutated:
            entry["mutated"] = True
        self.inputs.append(entry)
        return name

    def new_buffer(self, cls, **extra):
        name = f"buf{self.buffer_count}"
        self.buffer_count += 1
        entry = {"name": name}
        if cls is not None:
            entry.update(self.layout_json(cls))
        entry.update(extra)
        self.buffers.append(entry)
        return name

    def produced(self, cls, name):
        pool = self.live.setdefault(cls, [])
        pool.append(name)
        if len(pool) > 12:
            del pool[0]

    def pick(self, cls):
        """A recent tensor of \\p cls: mostly the newest, as in a chain of ops."""
        if cls in ("w_hh", "w_hf", "w_fh", "vec_h", "vec_f", "emb"):
            # Parameters are used layer by layer: the graph walks through a
            # table that grows with its size (one per 400 nodes and class).
            pool = self.weights.setdefault(cls, [])
            cap = 1 if cls == "emb" else max(6, self.target // 400)
            index = min(cap - 1, len(self.nodes) * cap // self.target + self.rng.randrange(3))
            while len(pool) <= index:
                pool.append(self.add_input(cls, prefix="primals_"))
            return pool[index]
        pool = self.live.get(cls)
        if not pool:
            name = self.add_input(cls)
            self.produced(cls, name)
            return name
        back = min(len(pool), 1 + int(self.rng.expovariate(0.7)))
        return pool[-back]

    def pick_buffer(self, cls):
        """A recent intermediate (not a graph input) of \\p cls, or None."""
        for name in reversed(self.live.get(cls, [])):
            if name.startswith("buf"):
                return name
        return None

    def view_of_act(self, name):
        s = self.shapes
        return {"view": {"base": name, "size": [s.batch, s.seq, HIDDEN],
                         "stride": [s.mul(HIDDEN, s.seq), HIDDEN, 1], "offset": 0}}

    # --- node groups ------------------------------------------------------

    def comment(self, what):
        self.nodes.append({"op": "comment",
                           "text": f"Topologically Sorted Source Nodes: [{what}], "
                                   f"Original ATen: [aten.{what}]"})

    def launch(self, kernel, outputs_to=None):
        args = []
        made = []
        for (role, cls), name in zip(kernel.slots, kernel.names):
            if role == "input":
                src = self.pick(cls)
                if cls == "act" and self.rng.random() < 0.1:
                    arg = {"role": "input", **self.view_of_act(src)}
                else:
                    arg = {"role": "input", "buffer": src}
            elif role == "output" and outputs_to:
                # A named view: written here, read later through its base.
                arg = {"role": "output", "buffer": outputs_to.pop(0)}
            elif role == "output":
                dest = self.new_buffer(cls)
                arg = {"role": "output", "buffer": dest}
                made.append((cls, dest))
            elif role == "removed":
                arg = {"role": "removed", "buffer": self.new_buffer(cls, removed=True)}
            elif role == "size":
                arg = {"role": "size", "value": {"expr": cls}}
            else:  # in_out: update a fresh intermediate, often renaming it
                src = self.pick_buffer(cls) or self.new_buffer(cls)
                arg = {"role": "in_out", "buffer": src}
                if self.rng.random() < 0.5:
                    result = self.new_buffer(cls)
                    arg["result"] = result
                    pool = self.live.get(cls, [])
                    if src in pool:
                        pool.remove(src)
                    made.append((cls, result))
                else:
                    made.append((cls, src))
            args.append(arg)
        node = {"op": "kernel_call", "kernel": kernel.name, "args": args,
                "numels": kernel.numels}
        if len(kernel.configs) > 1 and self.rng.random() < 0.3:
            node["config"] = 1
        self.nodes.append(node)
        for cls, name in made:
            if name in self.live.get(cls, []):
                continue
            self.produced(cls, name)

    def group_kernel(self, kind):
        kernels = self.by_kind.get(kind) or self.by_kind["poi"]
        kernel = kernels[min(len(kernels) - 1, int(self.rng.paretovariate(1.2)) - 1)
                         if self.rng.random() < 0.5 else self.rng.randrange(len(kernels))]
        if self.rng.random() < 0.6:
            self.comment(kernel.name.split("_fused_")[1].rsplit("_", 1)[0])
        self.launch(kernel)

    def group_mm(self):
        s = self.shapes
        choice = self.rng.random()
        if choice < 0.5:  # x @ W^T + b
            a, w, b = self.pick("act"), self.pick("w_hh"), self.pick("vec_h")
            wt = {"view": {"base": w, "size": [HIDDEN, HIDDEN], "stride": [1, HIDDEN]}}
            out = self.new_buffer("act")
            self.comment("addmm")
            self.nodes.append({"op": "extern_out", "kernel": "extern_kernels.addmm",
                               "args": [{"buffer": b}, {"buffer": a}, wt],
                               "kwargs": {"alpha": 1, "beta": 1}, "out": {"buffer": out}})
            self.produced("act", out)
        elif choice < 0.75:  # up-projection
            a, w = self.pick("act"), self.pick("w_hf")
            out = self.new_buffer("wide")
            self.comment("mm")
            self.nodes.append({"op": "extern_out", "kernel": "extern_kernels.mm",
                               "args": [{"buffer": a},
                                        {"view": {"base": w, "size": [HIDDEN, FFN],
                                                  "stride": [1, HIDDEN]}}],
                               "out": {"buffer": out}})
            self.produced("wide", out)
        else:  # down-projection
            a, w = self.pick("wide"), self.pick("w_fh")
            out = self.new_buffer("act")
            self.comment("mm")
            self.nodes.append({"op": "extern_out", "kernel": "extern_kernels.mm",
                               "args": [{"buffer": a},
                                        {"view": {"base": w, "size": [FFN, HIDDEN],
                                                  "stride": [1, FFN]}}],
                               "out": {"buffer": out}})
            self.produced("act", out)

    def assert_layout(self, name, cls, what):
        _, size, stride = self.layouts[cls]
        self.nodes.append({"op": "assert_size_stride", "buffer": name, "size": size,
                           "stride": stride, "what": what})

    def group_attention(self):
        """Efficient attention: a tuple result, two unpacked outputs with size
        asserts, and the output projection reading the result through a view."""
        s = self.shapes
        qkv = [self.pick("act") for _ in range(3)]
        views = [{"view": {"base": t, "size": [s.batch, HEADS, s.seq, HEAD_DIM],
                           "stride": [s.mul(HIDDEN, s.seq), HEAD_DIM, HIDDEN, 1]}}
                 for t in qkv]
        op = "torch.ops.aten._scaled_dot_product_efficient_attention.default"
        tup = self.new_buffer(None, tuple=True)
        out = self.new_buffer("attn")
        lse = self.new_buffer("lse")
        self.comment("_scaled_dot_product_efficient_attention")
        self.nodes.append({"op": "fallback", "kernel": op,
                           "args": views + [None, True],
                           "kwargs": {"scale": 0.125}, "result": tup})
        self.nodes.append({"op": "multi_output", "result": out, "source": tup,
                           "indices": [["tuple", 0]]})
        self.assert_layout(out, "attn", op)
        self.nodes.append({"op": "multi_output", "result": lse, "source": tup,
                           "indices": [["tuple", 1]]})
        self.assert_layout(lse, "lse", op)
        proj = self.new_buffer("act")
        self.nodes.append({"op": "extern_out", "kernel": "extern_kernels.mm",
                           "args": [{"view": {"base": out, "size": [s.rows, HIDDEN],
                                              "stride": [HIDDEN, 1]}},
                                    {"buffer": self.pick("w_hh")}],
                           "out": {"buffer": proj}})
        self.produced("act", proj)

    def group_var_mean(self):
        op = "aten.var_mean.correction"
        tup = self.new_buffer(None, tuple=True)
        var, mean = self.new_buffer("row"), self.new_buffer("row")
        self.nodes.append({"op": "fallback", "kernel": op,
                           "args": [{"buffer": self.pick("act")}, [1]],
                           "kwargs": {"correction": 0, "keepdim": False}, "result": tup})
        for i, name in enumerate((var, mean)):
            self.nodes.append({"op": "multi_output", "result": name, "source": tup,
                               "indices": [["tuple", i]]})
            self.produced("row", name)

    def group_embedding(self):
        op = "aten.embedding.default"
        out = self.new_buffer("act")
        self.nodes.append({"op": "extern_alloc", "kernel": op,
                           "args": [{"buffer": self.pick("emb")}, {"buffer": self.pick("tok")}],
                           "result": out})
        self.assert_layout(out, "act", op)
        self.produced("act", out)

    def group_cat(self):
        """torch.cat of two halves written in place through named views."""
        base = self.new_buffer("cat")
        dtype, size, stride = self.layouts["act"]
        halves = []
        for offset in (0, HIDDEN):
            halves.append(self.new_buffer(None, dtype=dtype, device="cuda:0", size=size,
                                          stride=[2 * HIDDEN, 1], view_of=base,
                                          offset=offset))
        self.comment("cat")
        for half in halves:
            kernel = self.rng.choice([k for k in self.by_kind["poi"]
                                      if k.slots[-1][1] == "act"
                                      and sum(r == "output" for r, _ in k.slots) == 1]
                                     or self.by_kind["poi"][:1])
            self.launch(kernel, outputs_to=[half])
        self.produced("cat", base)
        # Read the concatenation back as two activations' worth of rows.
        w = self.pick("w_hh")
        out = self.new_buffer("act")
        s = self.shapes
        self.nodes.append({"op": "extern_out", "kernel": "extern_kernels.mm",
                           "args": [{"view": {"base": base, "size": [s.rows, HIDDEN],
                                              "stride": [2 * HIDDEN, 1],
                                              "offset": HIDDEN}},
                                    {"buffer": w}],
                           "out": {"buffer": out}})
        self.produced("act", out)

    def group_mutation(self):
        """An optimizer-like in-place update of a mutated input."""
        if not hasattr(self, "state"):
            self.state = self.add_input("vec_h", mutated=True, prefix="primals_")
        kernel = self.by_kind.get("inplace", self.by_kind["poi"])[0]
        if kernel.kind != "inplace" or kernel.slots[0][1] != "act":
            return self.group_kernel("poi")
        self.nodes.append({"op": "kernel_call", "kernel": kernel.name,
                           "args": [{"role": "in_out", "buffer": self.state}]
                           + [{"role": "input", "buffer": self.pick("vec_h")}
                              for _ in kernel.slots[1:]],
                           "numels": {"xnumel": HIDDEN}})

    GROUPS = [("poi", 40), ("inplace", 8), ("red", 8), ("per", 5), ("poi2d", 4),
              ("mm", 14), ("attention", 2), ("var_mean", 2), ("embedding", 1),
              ("cat", 2), ("mutation", 1)]
    MAX_GROUP = 8

    def generate(self):
        if self.shapes.dynamic:
            symbols = [{"name": "s0", "hint": 8}, {"name": "s1", "hint": 512},
                       {"name": "ps0", "hint": 8 * 512, "expr": "s0*s1"}]
            self.inputs += [{"name": "s0", "kind": "symbol"}, {"name": "s1", "kind": "symbol"}]
        else:
            symbols = []
        names = [g for g, _ in self.GROUPS]
        weights = [w for _, w in self.GROUPS]
        self.nodes.append({"op": "device_guard_enter", "device": 0})
        while len(self.nodes) + self.MAX_GROUP < self.target - 1:
            group = self.rng.choices(names, weights)[0]
            if group in ("poi", "inplace", "red", "per", "poi2d"):
                self.group_kernel(group)
            else:
                getattr(self, "group_" + group)()
        while len(self.nodes) < self.target - 1:
            self.comment("pad")
        self.nodes.append({"op": "device_guard_exit"})
        del self.nodes[self.target:]
        outputs = [{"buffer": n} for n in self.live.get("act", [])[-3:]]
        if self.live.get("act"):
            outputs.append(self.view_of_act(self.live["act"][-1]))
        used = {k for n in self.nodes if n["op"] == "kernel_call" for k in [n["kernel"]]}
        return {
            "format": "wirc.graph", "version": 1,
            "name": "synthetic",
            "metadata": {"producer": "tools/graphgen/graphgen.py",
                         "nodes": self.target, "seed": None},
            "symbols": symbols, "inputs": self.inputs, "buffers": self.buffers,
            "kernels": [k.json for k in self.kernels if k.name in used],
            "nodes": self.nodes, "outputs": outputs,
        }


def write_document(doc, out):
    """One array element a line, so diagnostics' line numbers mean something."""
    dumps = lambda v: json.dumps(v, separators=(",", ":"))
    out.write("{\n")
    keys = list(doc)
    for i, key in enumerate(keys):
        value = doc[key]
        sep = "," if i + 1 < len(keys) else ""
        if isinstance(value, list) and value:
            out.write(f"{dumps(key)}:[\n")
            out.write(",\n".join(dumps(v) for v in value))
            out.write(f"\n]{sep}\n")
        else:
            out.write(f"{dumps(key)}:{dumps(value)}{sep}\n")
    out.write("}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, required=True, help="exact number of nodes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--static", action="store_true", help="no symbols: static shapes")
    parser.add_argument("--kernels", type=int,
                        help="kernel table size (default: sqrt(nodes)/2.5, 8 to 400)")
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    if args.nodes < 16:
        parser.error("--nodes must be at least 16")
    gen = Generator(args.nodes, args.seed, not args.static, args.kernels)
    doc = gen.generate()
    doc["metadata"]["seed"] = args.seed
    if args.output == "-":
        write_document(doc, sys.stdout)
    else:
        with open(args.output, "w", encoding="ascii", newline="\n") as f:
            write_document(doc, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
