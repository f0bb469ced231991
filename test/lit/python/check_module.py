"""Checks an emitted Python module against the graph it came from.

usage: check_module.py GRAPH.json MODULE.py

The module must parse, and every kernel source it passes to
async_compile.triton must be exactly the source in the graph: no input can
end or escape the string it is embedded in.
"""
import ast
import json
import sys

graph = json.load(open(sys.argv[1], encoding="utf-8"))
tree = ast.parse(open(sys.argv[2], encoding="utf-8").read())
sources = {k["name"]: k["source"] for k in graph.get("kernels", [])}
found = {}
for node in ast.walk(tree):
    if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "triton"):
        found[node.targets[0].id] = node.value.args[1].value
# The emitted text starts the source on the line after the opening quotes.
for name, source in sources.items():
    if found.get(name) != "\n" + source:
        sys.exit(f"kernel {name}: embedded source differs from the graph's")
# Only the wrapper's own top-level definitions exist: nothing was injected.
names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
expected = {"call", "benchmark_compiled_module"} | {g["name"] for g in graph.get("subgraphs", [])}
if names != expected:
    sys.exit(f"unexpected top-level functions: {sorted(names)}")
print("ok")
