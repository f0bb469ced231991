"""Writes variants of fx/Inputs/while_loop.json for cpp/while-loop.test.

usage: while_variants.py GRAPH.json PREFIX

Each kernel config gets a stub PTX (only host code is checked).
PREFIX.json: the loop as exported. PREFIX.pass.json: the body hands back its
carried input `arg1_1` unchanged. PREFIX.pass-intermediate.json: the same,
with that carried value an intermediate of the caller (made by a kernel
before the loop, freed after it).
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
with open(f"{prefix}.json", "w") as f:
    json.dump(doc, f)

body = next(g for g in doc["subgraphs"] if g["name"] == "while_loop_body_graph_0")
body["outputs"] = [{"buffer": "buf0"}, {"buffer": "arg1_1"}]
with open(f"{prefix}.pass.json", "w") as f:
    json.dump(doc, f)

doc = copy.deepcopy(doc)
doc["buffers"].append({"name": "buf9", "dtype": "float32", "device": "cuda:0", "size": [4],
                       "stride": [1]})
doc["nodes"].insert(0, {"op": "kernel_call", "kernel": "triton_poi_fused_mul_2",
                        "args": [{"role": "input", "buffer": "arg1_1"},
                                 {"role": "output", "buffer": "buf9"}],
                        "numels": {"xnumel": 4}})
loop = next(n for n in doc["nodes"] if n["op"] == "while_loop")
loop["carried"][1] = {"buffer": "buf9"}
with open(f"{prefix}.pass-intermediate.json", "w") as f:
    json.dump(doc, f)
