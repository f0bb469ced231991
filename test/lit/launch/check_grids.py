"""Evaluates the launch grids wirc folded (from --print-ir on stdin) at many
symbol values and compares them with an independent reference: the grid
formulas of PyTorch's GridExpr classes, evaluated with Python integers.

usage: wirc compile GRAPH --print-ir | check_grids.py GRAPH [--torch]

With --torch the reference is PyTorch itself (needs `import torch`): each grid
comes from torch._inductor.runtime.triton_heuristics.GridExpr.from_meta for the
kernel's grid type and config, evaluated with its eval_slow, so the installed
PyTorch version's definitions are checked, not a transcription of them.
"""
import itertools
import json
import re
import sys

MAX_Y = 65535


def cdiv(n, b):
    return -(n // -b)


def by(n, block):
    return n if block in (None, 1) else cdiv(n, block)


def combo_parts(combo, numel, env):
    """Each sub-kernel's (x, y, no_x_dim): y None where it has none."""
    parts = []
    for i, part in enumerate(combo["kernels"]):
        dims = []
        for d in "xy":
            key = f"{d}numel"
            if d == "y" and key not in part:
                dims.append(None)
            elif part.get(key) is None:
                dims.append(numel[f"{key}_{i}"])
            else:
                dims.append(evaluate(part[key], env))
        parts.append((*dims, part.get("no_x_dim", False)))
    return parts


def combo_reference(grid_type, kw, combo, parts):
    kw = {**combo.get("default_config", {}), **kw}
    if grid_type == "SequentialComboKernelGrid":
        x = sum(p[0] if p[2] else by(p[0], kw.get("XBLOCK")) for p in parts)
    else:
        each = [p[0] for p in parts if p[2]]
        spread = [p[0] for p in parts if not p[2]]
        if spread:
            each.append(by(max(spread), kw.get("XBLOCK")))
        x = max(each) * len(parts)
    if combo.get("min_blocks"):
        x = max(x, combo["min_blocks"])
    ys = [p[1] for p in parts if p[1] is not None]
    if not ys:
        return (x, 1, 1)
    # y past 65535 blocks is split over z, as for Grid2DWithYZOverflow.
    raw = by(max(ys), kw.get("YBLOCK"))
    div = cdiv(raw, MAX_Y)
    return (x, 0 if div == 0 else cdiv(raw, div), div)


def reference(grid_type, kw, numel, call, config, kernel=None, env=None):
    if grid_type.endswith("ComboKernelGrid"):
        combo = kernel["combo_grid"]
        return combo_reference(grid_type, kw, combo, combo_parts(combo, numel, env))
    x = numel.get("xnumel")
    if grid_type == "Grid1D":
        return (by(x, kw.get("XBLOCK")), 1, 1)
    if grid_type == "Grid2D":
        return (by(x, kw.get("XBLOCK")), by(numel["ynumel"], kw.get("YBLOCK")), 1)
    if grid_type == "Grid3D":
        return (by(x, kw.get("XBLOCK")), by(numel["ynumel"], kw.get("YBLOCK")),
                by(numel["znumel"], kw.get("ZBLOCK")))
    if grid_type == "BatchMatmulGrid3D":
        return (by(numel["znumel"], kw.get("ZBLOCK")), by(numel["ynumel"], kw.get("YBLOCK")),
                by(x, kw.get("XBLOCK")))
    if grid_type == "Grid2DWithYZOverflow":
        raw = by(numel["ynumel"], kw.get("YBLOCK"))
        div = cdiv(raw, MAX_Y)
        return (by(x, kw.get("XBLOCK")), 0 if div == 0 else cdiv(raw, div), div)
    if grid_type == "CooperativeReductionGrid":
        return (kw["RSPLIT"], by(x, kw.get("XBLOCK")), 1)
    if grid_type == "SplitScanGrid":
        return (by(numel["r0_numel"], kw.get("R0_BLOCK")), x, 1)
    if grid_type == "FixedGrid":
        return tuple(call["grid"])
    if grid_type == "PrecomputedGrid":
        return tuple(config["grid"])
    raise SystemExit(f"unknown grid type {grid_type}")


def torch_reference(grid_type, kw, numel, call, config, kernel=None, env=None):
    from torch._inductor.runtime import triton_heuristics as th

    meta = {"grid_type": grid_type}
    scope = {**kw, "num_warps": 4, "num_stages": 1, **numel}
    if grid_type.endswith("ComboKernelGrid"):
        # Inductor's combo_grid_meta: fixed numels as integers, the rest None.
        combo = kernel["combo_grid"]
        grid_meta = {"num_kernels": len(combo["kernels"]),
                     "min_blocks": combo.get("min_blocks", 0),
                     "default_config": combo.get("default_config", {})}
        for i, part in enumerate(combo["kernels"]):
            grid_meta[f"no_x_dim_{i}"] = part.get("no_x_dim", False)
            for d in "xy":
                key = f"{d}numel"
                if d == "x" or key in part:
                    value = part.get(key)
                    grid_meta[f"{key}_{i}"] = None if value is None else evaluate(value, env)
        meta["combo_grid_meta"] = grid_meta
    if grid_type == "FixedGrid":
        meta.update(th.FixedGrid.setup_grid_as_args())
        scope.update({f"_grid_{i}": v for i, v in enumerate(call["grid"])})
    if grid_type == "PrecomputedGrid":
        grid = [str(v) for v in config["grid"]]
        meta["precomputed_grids"] = [{"config": kw, "python": grid, "cpp": grid,
                                      "python_slow": grid}]
    expr = th.GridExpr.from_meta(meta, {**kw, "num_warps": 4, "num_stages": 1})
    return tuple(expr.eval_slow(scope))


def evaluate(text, env):
    scope = {"CeilDiv": cdiv, "FloorDiv": lambda a, b: a // b, "Max": max, "Min": min,
             "Mod": lambda a, b: a % b}
    scope.update(env)
    return eval(str(text), scope)


def split_top(text):
    parts, depth, cur = [], 0, ""
    for c in text:
        if c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        depth += c == "("
        depth -= c == ")"
        cur += c
    parts.append(cur.strip())
    return parts


graph = json.load(open(sys.argv[1]))
if "--torch" in sys.argv[2:]:
    reference = torch_reference
kernels = {k["name"]: k for k in graph["kernels"]}
calls = [n for n in graph["nodes"] if n["op"] == "kernel_call"]
lines = [l for l in sys.stdin.read().splitlines() if "kernel.call @" in l]
# Launches with a statically empty grid are comments, not calls.
calls = [c for c in calls
         if not any(v == 0 for v in c.get("numels", {}).values())]
if len(lines) != len(calls):
    raise SystemExit(f"{len(lines)} launches in the IR, {len(calls)} expected")
values = [0, 1, 7, 31, 32, 33, 1000, 65535, 2097120, 2097121, 2097152, 65535 * 65535 * 32]
checked = unguarded = 0
for line, call in zip(lines, calls):
    m = re.search(r"kernel\.call @(\w+)\[(\d+)\].* grid \((.*)\)$", line)
    kernel = kernels[m.group(1)]
    config = kernel["configs"][int(m.group(2))]
    got_text = split_top(m.group(3))
    for s0, s1, s2 in itertools.product(values, repeat=3):
        env = {"s0": s0, "s1": s1, "s2": s2}
        numel = {k: evaluate(v, env) for k, v in call.get("numels", {}).items()}
        try:
            want = reference(kernel.get("grid_type", "Grid1D"), config.get("kwargs", {}), numel,
                             {"grid": [evaluate(g, env) for g in call.get("grid", [])]},
                             {"grid": [evaluate(g, env) for g in config.get("grid", [])]},
                             kernel, env)
        except ZeroDivisionError:
            # PyTorch versions before the guard of an empty y divide by zero.
            if reference is not torch_reference:
                raise
            unguarded += 1
            continue
        got = tuple(evaluate(g, env) for g in got_text)
        if got != want:
            raise SystemExit(f"{line.strip()}\n  at {env}: wirc {got}, reference {want}")
        if kernel.get("grid_type") == "Grid2DWithYZOverflow" and want[1] * want[2]:
            assert want[1] <= MAX_Y and want[2] <= MAX_Y, (line, env, want)
        checked += 1
print(f"{len(lines)} launches, {checked} grids equal to the reference")
if unguarded:
    print(f"{unguarded} empty-y grids skipped: this PyTorch divides by zero there")
