"""check_lines.py EXPORTER: the exporter's torch-free line logic
(wirc_export.lines) on the cases real programs produce. Prints one line per
check; a wrong result prints FAIL."""
import sys

sys.path.insert(0, sys.argv[1])
from wirc_export import lines  # noqa: E402  (needs no torch)


def check(what, got, expected):
    print(f"{'ok' if got == expected else 'FAIL'}: {what}: {got!r}"
          + ("" if got == expected else f", expected {expected!r}"))


# One reuse, taken by the kernel that updates the storage in place.
r = lines.InPlaceReuses()
check("single reuse", r.reuse("buf0", "buf1", []), None)
check("single take", r.take("buf1"), "buf0")
check("single done", r.waiting(), [])

# A chain with only a comment between (a fused node's buffer handed on, as
# an upsample and a batch-norm backward produce): the kernel updates buf0.
r = lines.InPlaceReuses()
nodes = [{"op": "kernel_call"}]
r.reuse("buf0", "buf1", nodes)
nodes.append({"op": "comment", "text": "fused"})
check("chain drops", r.reuse("buf1", "buf2", nodes), "buf1")
check("chain middle gone", r.take("buf1"), None)
check("chain take", r.take("buf2"), "buf0")
check("chain done", r.waiting(), [])

# Something other than a comment between the two: not a hand-over.
r = lines.InPlaceReuses()
nodes = []
r.reuse("buf0", "buf1", nodes)
nodes.append({"op": "kernel_call"})
check("used between", r.reuse("buf1", "buf2", nodes), None)
check("used between waits", r.waiting(), ["buf1", "buf2"])
check("used between take", r.take("buf2"), "buf1")

# Reuses of buffers that fusion removed, among live ones (a bicubic resize:
# each row of taps is an in-place chain the kernel keeps in registers):
# dropped, as Inductor's planning drops them; the live chain is taken.
r = lines.InPlaceReuses({"buf3", "buf4", "buf5", "buf7", "buf8", "buf9"})
nodes = []
for old, new in [("buf0", "buf1"), ("buf1", "buf2"), ("buf3", "buf4"), ("buf4", "buf5"),
                 ("buf2", "buf6"), ("buf7", "buf8"), ("buf8", "buf9"), ("buf6", "buf13")]:
    r.reuse(old, new, nodes)
check("removed drops", [r.drops(n) for n in ("buf2", "buf3", "buf8")], [False, True, True])
check("removed take", r.take("buf13"), "buf0")
check("removed done", r.waiting(), [])
# Without the removed names the same lines leave the removed chains waiting.
r = lines.InPlaceReuses()
for old, new in [("buf3", "buf4"), ("buf4", "buf5")]:
    r.reuse(old, new, [])
check("removed unknown waits", r.waiting(), ["buf5"])

# Unrelated names are not reuses.
check("not a reuse", lines.InPlaceReuses().take("buf7"), None)

# Launch grids as launchers spell them: constants only.
for text, value in [("4", 4), ("(4) * 3", 12), ("-((128) // -(1024))", 1),
                    ("1 + 1 + 2 + 4", 8), ("max(3, 7) - min(2, 5)", 5)]:
    check(f"grid {text}", lines.constant_int(text), value)
for text in ["xnumel_0 + 1", "-((xnumel) // -(XBLOCK))", "__import__('os').getpid()",
             "1 / 2", "2 ** 8", "max(a, 1)", "(1).real", "1 // 0", "", "[1]"]:
    try:
        lines.constant_int(text)
        check(f"grid {text!r} rejected", "accepted", "rejected")
    except ValueError:
        check(f"grid {text!r} rejected", "rejected", "rejected")

# Copies between devices, as Inductor writes them (ir.DeviceCopy).
check("device copy", lines.device_copy("buf0.copy_(arg0_1, False)"), ("buf0", "arg0_1", False))
check("device copy view",
      lines.device_copy("reinterpret_tensor(buf2, (4, ), (1, ), 0).copy_(buf1, True)"),
      ("reinterpret_tensor(buf2, (4, ), (1, ), 0)", "buf1", True))
check("device copy from view",
      lines.device_copy("buf3.copy_(reinterpret_tensor(arg1_1, (2, 2), (1, 2), 0), False)"),
      ("buf3", "reinterpret_tensor(arg1_1, (2, 2), (1, 2), 0)", False))
for text in ["buf0.copy_(arg0_1)", "buf0 = buf1", "copy_(a, False)", "buf0.copy_(a, maybe)"]:
    check(f"not a device copy {text!r}", lines.device_copy(text), None)


# Symbolic graph inputs, with sympy's attributes on stand-ins.
class Expr:
    def __init__(self, text, is_Symbol=False, is_integer=True):
        self.text, self.is_Symbol, self.is_integer = text, is_Symbol, is_integer

    def __str__(self):
        return self.text


check("symbol input", lines.symbolic_input("sym_size_int_1", Expr("s0", is_Symbol=True)),
      {"name": "s0", "kind": "symbol"})
check("expression input", lines.symbolic_input("sym_size_int_4", Expr("(s89//2)")),
      {"name": "sym_size_int_4", "kind": "scalar", "dtype": "int64"})
check("float expression input",
      lines.symbolic_input("x", Expr("zf0/2", is_integer=False)), None)
check("undecided expression input",
      lines.symbolic_input("x", Expr("a + b", is_integer=None)), None)

# Buffers allocated and not yet written: a node's tensors are written, and a
# named view's base with them (a dynamic cat's output, which its kernel
# writes through two views only: without the base, the exporter would make
# the output again at the end of the graph).
fresh = {"buf2", "buf3", "buf5"}
buffers = {"buf0": {"name": "buf0", "view_of": "buf2"}, "buf1": {"name": "buf1", "view_of": "buf2"},
           "buf2": {"name": "buf2"}, "buf3": {"name": "buf3"}, "buf5": {"name": "buf5"}}
lines.drop_used(fresh, [{"op": "kernel_call", "args": [
    {"role": "output", "name": "out_ptr0", "buffer": "buf0"},
    {"role": "output", "name": "out_ptr1", "buffer": "buf1"},
    {"role": "output", "name": "out_ptr2", "buffer": "buf3"}]}], buffers)
check("fresh after a cat's kernel", sorted(fresh), ["buf5"])
check("tensor names", sorted(lines.tensor_names(
    [{"op": "extern_out", "args": [{"view": {"base": "arg0_1"}}], "out": {"buffer": "buf4"}}])),
      ["arg0_1", "buf4"])

# Text that reaches a document is the same on any machine and in any run:
# cache paths and object addresses (a size assert's message under freezing
# names a functools.partial) are replaced; a kernel's hex literals stay. The
# paths are put together here, so that no machine path is written in a file.
cache_file = "/".join(["", "tmp", "inductor_cache", "ab", "c.py"])
home_file = "/".join(["", "home", "user", "k.cpp"])
check("stable text", lines.stable_text(
    f"partial(<function fn at 0x7fe70afc9300>, Match(...)) from {cache_file}"),
    "partial(<function fn at <address>>, Match(...)) from <path>")
check("stable text twice", lines.stable_text("at 0xAB at 0x1, format 0x1f"),
      "at <address> at <address>, format 0x1f")
check("stable source", lines.stable_source(f"x & 0x7fffffff; // at 0x10 {home_file}"),
      "x & 0x7fffffff; // at 0x10 <path>")
