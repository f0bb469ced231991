"""Breaks two kernel calls of a graph document, one early and one late, so
that a pass reports an error in each half of the main function.

    break_calls.py IN OUT args    # an argument named after no parameter
    break_calls.py IN OUT numels  # a kernel without a signature, no numels
"""
import copy
import json
import sys

src, dst, how = sys.argv[1:4]
with open(src) as f:
    doc = json.load(f)
nodes = doc["nodes"]
calls = [i for i, n in enumerate(nodes) if n["op"] == "kernel_call"]
early = next(i for i in calls if i >= 10)
late = next(i for i in calls if i >= len(nodes) - 1000)
if how == "args":
    for i in (early, late):
        nodes[i]["args"][0]["name"] = "no_such_param"
elif how == "numels":
    # Without a signature name-kernel-args has nothing to check the call
    # against: the missing numel is fold-launch-grids' to find.
    kernels = {k["name"]: k for k in doc["kernels"]}
    for i in (early, late):
        kernel = copy.deepcopy(kernels[nodes[i]["kernel"]])
        kernel["name"] += "_unsigned_%d" % i
        kernel.pop("signature", None)
        doc["kernels"].append(kernel)
        nodes[i]["kernel"] = kernel["name"]
        nodes[i]["numels"] = {}
else:
    sys.exit("unknown breakage " + how)
with open(dst, "w") as f:
    json.dump(doc, f)
print(early, late)
