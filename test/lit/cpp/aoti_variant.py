"""Writes a variant of Inputs/aoti-externs.json with one extern node changed,
for the diagnostics of --cpp-abi=aoti.

usage: aoti_variant.py INPUT CASE > OUTPUT
"""
import json
import sys

doc = json.load(open(sys.argv[1]))
case = sys.argv[2]
topk = next(n for n in doc["nodes"] if n.get("kernel") == "aten.topk.default")
mm = next(n for n in doc["nodes"] if n.get("kernel") == "extern_kernels.mm")
if case == "no-schema":
    del topk["schema"]
elif case == "bad-schema":
    topk["schema"] = "aten::topk(Tensor self, SymInt k -> (Tensor, Tensor)"
elif case == "not-aten":
    topk["schema"] = "mylib::topk(Tensor self, SymInt k) -> (Tensor values, Tensor indices)"
elif case == "injection":
    topk["schema"] = "aten::topk(Tensor self, SymInt k) -> (Tensor values, Tensor indices)"
    topk["schema"] = topk["schema"].replace("topk", "topk);system(\"x\");//", 1)
elif case == "unknown-kwarg":
    topk["kwargs"] = {"largest": True, "axis": 0}
elif case == "too-many-args":
    topk["args"] += [0, True, True, 7]
elif case == "missing-arg":
    topk["args"] = [topk["args"][0]]
elif case == "type-mismatch":
    topk["args"][1] = "two"
elif case == "out-without-out-schema":
    mm["schema"] = "aten::mm(Tensor self, Tensor mat2) -> Tensor"
elif case == "unsupported-type":
    topk["schema"] = "aten::topk(Tensor self, SymInt k, Dimname dim=None) -> (Tensor values, Tensor indices)"
    topk["kwargs"] = {"dim": 1}
else:
    raise SystemExit(f"unknown case {case}")
json.dump(doc, sys.stdout, indent=1)
