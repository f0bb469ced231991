"""Writes variants of the exported FFT graph for aoti-fallback-values.test.

usage: fft_variants.py GRAPH.json PREFIX

PREFIX.full.json is the graph with stub PTX; PREFIX.head.json stops before
the irfft (which has no C shim function) and returns the product; the
f64/i32/bool variants make the multiplication's tensor that dtype (and i32
and bool multiply by the integer 3), to pin the dtype of the wrapped number.
"""
import copy
import json
import sys

graph, prefix = sys.argv[1:3]
with open(graph) as f:
    doc = json.load(f)
for kernel in doc["kernels"]:
    for config in kernel["configs"]:
        config.setdefault("artifacts", {}).setdefault("ptx", ".version 8.0\n")


def write(name, d):
    with open(f"{prefix}.{name}.json", "w") as f:
        json.dump(d, f)


write("full", doc)
head = copy.deepcopy(doc)
head["nodes"] = [n for n in head["nodes"]
                 if n.get("kernel") != "aten._fft_c2r.default" and n.get("source") != "buf7"
                 and n.get("buffer") != "buf8"]
head["buffers"] = [b for b in head["buffers"] if b["name"] not in ("buf7", "buf8")]
head["outputs"] = [{"buffer": "buf4"}, {"buffer": "buf6"}]
write("head", head)
for name, dtype, value in (("f64", "float64", 0.5), ("i32", "int32", 3), ("bool", "bool", 3)):
    d = copy.deepcopy(head)
    for b in d["buffers"]:
        if b["name"] == "buf1":
            b["dtype"] = dtype
    for n in d["nodes"]:
        if n.get("kernel") == "aten.mul.Tensor":
            n["args"][1] = value
    write(name, d)
