"""What the exporter works out from wrapper lines without torch: text made
independent of the machine and the run, the tensors a node uses, in-place
reuses waiting for their kernel, launch grids that are constants, the parts
of a copy between devices, how a graph's symbolic inputs are spelled, and
sizes that round a fraction (sympy, where it is installed).

Kept apart from export.py, which needs torch, so that it is tested on
machines without it (test/lit/exporter).
"""

from __future__ import annotations

import ast
import re
from typing import Collection, Optional


_PATH = re.compile(r"(/(?:tmp|root|home|var|opt|usr|private)/[^\s'\"]*)")
# A Python repr's object address (`<function f at 0x7f...>`), which Inductor
# puts in some size asserts' messages: it changes with every run.
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+")


def stable_source(text: str) -> str:
    """A kernel's source: machine paths (Inductor's cache directories)
    replaced, and nothing else (a hex literal in code is not an address)."""
    return _PATH.sub("<path>", text)


def stable_text(text: str) -> str:
    """Text for a document: machine paths and object addresses replaced, so
    that the same program exports the same bytes on any machine and in any
    run."""
    return _ADDRESS.sub("at <address>", stable_source(text))


def tensor_names(value) -> set:
    """The tensor names a graph node (or part of one) refers to."""
    names = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("buffer", "base", "result", "source") and isinstance(item, str):
                names.add(item)
            else:
                names |= tensor_names(item)
    elif isinstance(value, list):
        for item in value:
            names |= tensor_names(item)
    return names


def drop_used(fresh: set, nodes: list, buffers: dict) -> None:
    """Removes from `fresh` (buffers the wrapper allocated that nothing has
    written yet) each tensor `nodes` refer to, and the base of each named
    view among them (`buffers`' entries with `view_of`): a cat's inputs are
    views of its output, which kernels write through the views alone."""
    for name in tensor_names(nodes):
        fresh.discard(name)
        base = buffers.get(name, {}).get("view_of")
        if base is not None:
            fresh.discard(base)


class InPlaceReuses:
    """Inductor's in-place reuses (`buf1 = buf0; del buf0  # reuse`), each
    waiting for the kernel that updates the storage in place and defines the
    new name (an `in_out` argument with a `result`).

    A reuse of a name that is itself waiting, with nothing but comments
    between the two (a fused node's buffer, handed on: buf0 -> buf1 ->
    buf2), hands the storage on: the kernel then updates buf0 and defines
    buf2, and buf1 never exists.

    A reuse of a buffer that fusion removed (`removed`, the graph's
    removed_buffers: an intermediate a kernel keeps in registers, such as a
    bicubic resize's rows) is dropped, as Inductor's memory planning drops
    it: neither name ever exists.
    """

    def __init__(self, removed: Collection[str] = ()) -> None:
        self._storage: dict[str, str] = {}  # new name -> the storage's name
        self._made_at: dict[str, int] = {}  # new name -> node count then
        self._removed = removed

    def drops(self, old: str) -> bool:
        """Whether a reuse of `old` is dropped (a removed buffer): the
        converter then records neither name's buffer."""
        return old in self._removed

    def reuse(self, old: str, new: str, nodes: list) -> Optional[str]:
        """Records `new = old`, made when the graph had `nodes`; returns the
        name that was handed on and no longer exists, if any."""
        if self.drops(old):
            return None
        dropped = None
        if old in self._storage and all(node.get("op") == "comment"
                                        for node in nodes[self._made_at[old]:]):
            dropped = old
            old = self._storage.pop(old)
            del self._made_at[dropped]
        self._storage[new] = old
        self._made_at[new] = len(nodes)
        return dropped

    def take(self, name: str) -> Optional[str]:
        """For a kernel updating `name` in place: the storage's name, if
        `name` is a reuse waiting for it (which is then done)."""
        self._made_at.pop(name, None)
        return self._storage.pop(name, None)

    def waiting(self) -> list:
        """The reuses no kernel has taken, by name."""
        return sorted(self._storage)


_INT_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
            ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b}


def constant_int(text: str) -> int:
    """The value of `text`, integer arithmetic (+ - * //, unary minus, max,
    min) over literals, as a launcher's grid expression spells it; ValueError
    for anything else, a name or a call included. Never evaluates code."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        raise ValueError(text) from e
    return _evaluate(tree.body)


def _evaluate(node: ast.AST) -> int:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _INT_OPS:
        right = _evaluate(node.right)
        if isinstance(node.op, ast.FloorDiv) and right == 0:
            raise ValueError("division by zero")
        return _INT_OPS[type(node.op)](_evaluate(node.left), right)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and
            node.func.id in ("max", "min") and node.args and not node.keywords):
        values = [_evaluate(arg) for arg in node.args]
        return max(values) if node.func.id == "max" else min(values)
    raise ValueError(ast.dump(node)[:80])


def device_copy(text: str) -> Optional[tuple[str, str, bool]]:
    """(destination, source, non_blocking) of Inductor's text for a copy
    between devices, `dst.copy_(src, non_blocking)`; None for other text."""
    if not text.endswith(")") or ".copy_(" not in text:
        return None
    target, _, rest = text.partition(".copy_(")
    source, _, flag = rest[:-1].rpartition(", ")
    if not target or not source or flag not in ("True", "False"):
        return None
    return target, source, flag == "True"


def symbolic_input(name: str, value) -> Optional[dict]:
    """The graph-format input for graph input `name`, whose value is the
    sympy expression `value` (duck-typed: is_Symbol, is_integer), or None
    where it has none.

    A symbol is a symbol input of its own name. Any other integer expression
    (a size AOTAutograd hands a backward graph, `s0//2`, whose symbols other
    inputs bind) is unpacked and never read, as Inductor's wrapper does: a
    scalar input nothing refers to. Anything else (a float) has none."""
    if getattr(value, "is_Symbol", False):
        return {"name": str(value), "kind": "symbol"}
    if getattr(value, "is_integer", False):
        return {"name": name, "kind": "scalar", "dtype": "int64"}
    return None


def integer_form(e, floor_div):
    """Sympy expression `e`, over integer symbols, with each floor or ceiling
    of a fraction with a constant denominator spelled as an integer division,
    `floor_div(n, d)` (torch's FloorDiv), which the graph format reads.

    Shape arithmetic produces these: a strided window's size in a backward
    graph is `floor(s0/2 - 3/2) + 1`, that is `(s0 - 3)//2 + 1`. The ceiling
    of n/d is (n + d - 1)//d. A size scaled by a float (interpolate's
    scale_factor=1.5: torch's `TruncToInt(1.5*ToFloat(s0))`) is the same
    division where the float is a fraction with a power-of-two denominator
    and the size is not negative: `int(1.5 * s0)` is exactly (3*s0)//2 while
    3*s0 stays below 2**53, far beyond any tensor's size. Subexpressions
    without one stay the same objects, so the rest of `e` prints as before."""
    import fractions
    import sympy

    def scaled(arg):
        """(p, q, n) for arg = (p/q) * ToFloat(n) as above, else None."""
        if not arg.is_Mul or len(arg.args) != 2:
            return None
        c, f = sorted(arg.args, key=lambda a: not isinstance(a, sympy.Float))
        if not isinstance(c, sympy.Float) or type(f).__name__ != "ToFloat" or len(f.args) != 1:
            return None
        n = f.args[0]
        value = float(c)
        if not value >= 0 or value == float("inf") or not n.is_integer or not n.is_nonnegative:
            return None
        ratio = fractions.Fraction(value)
        if ratio.denominator > 2**20:
            return None
        return ratio.numerator, ratio.denominator, n

    def rewrite(x):
        if not x.args:
            return x
        args = [rewrite(a) for a in x.args]
        if type(x).__name__ == "TruncToInt" and len(args) == 1:
            if parts := scaled(args[0]):
                p, q, n = parts
                return p * n if q == 1 else floor_div(p * n, q)
        if isinstance(x, (sympy.floor, sympy.ceiling)):
            num, den = sympy.fraction(sympy.together(args[0]))
            if den.is_Integer and den > 0 and num.is_integer:
                if isinstance(x, sympy.ceiling):
                    num = num + den - 1
                return floor_div(num, den)
        if all(a is b for a, b in zip(args, x.args)):
            return x
        return x.func(*args)
    return rewrite(e)
