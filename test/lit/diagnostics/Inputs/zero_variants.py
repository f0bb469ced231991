"""zero_variants.py GOOD.json OUT_DIR WIRC: variants of a graph that fills a
buffer with zeros before a kernel accumulates into it (fx/Inputs/zero.json),
each compiled by WIRC."""
import sys

from variants import Variants

variants = Variants(sys.argv[1], sys.argv[2])
variant = variants.add


def zero(doc):
    return [n for n in doc["nodes"] if n["op"] == "zero"][0]


def add_buffer(doc, **entry):
    doc["buffers"].append({"dtype": "float32", "device": "cuda:0", "size": [4],
                           "stride": [1], "offset": 0, **entry})


variant("no-buffer", lambda d: zero(d).pop("buffer"))
variant("unknown-field", lambda d: zero(d).update(value=0))
variant("buffer-not-name", lambda d: zero(d).update(buffer=3))
variant("unknown-buffer", lambda d: zero(d).update(buffer="buf9"))
variant("input", lambda d: zero(d).update(buffer="primals_1"))


def view(d):
    add_buffer(d, name="buf9", view_of="buf0")
    zero(d).update(buffer="buf9")


def tuple_buffer(d):
    d["buffers"].append({"name": "buf9", "tuple": True})
    zero(d).update(buffer="buf9")


def removed(d):
    add_buffer(d, name="buf9", removed=True)
    zero(d).update(buffer="buf9")


variant("view", view)
variant("tuple", tuple_buffer)
variant("removed", removed)


def zeroed_operand(d, with_zero=True):
    # An op reads a buffer that only a zero node defines.
    d["buffers"].append({"name": "buf9", "dtype": "float32", "device": "cuda:0",
                         "size": [16, 64], "stride": [64, 1], "offset": 0})
    nodes = d["nodes"]
    mm = [n for n in nodes if n.get("kernel") == "extern_kernels.mm"][0]
    mm["args"][0] = {"buffer": "buf9"}
    if with_zero:
        nodes.insert(nodes.index(mm), {"op": "zero", "buffer": "buf9"})


variant("zero-defines", zeroed_operand)
variant("used-without-zero", lambda d: zeroed_operand(d, with_zero=False))
variants.run(sys.argv[3])
