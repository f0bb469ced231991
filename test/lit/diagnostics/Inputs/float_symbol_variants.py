"""float_symbol_variants.py GOOD.json COND.json OUT_DIR WIRC: malformed uses of a
float symbol (python/Inputs/item-float.json; a cond graph for subgraph calls),
each compiled by WIRC: its declaration, its binding, and every place that takes
integers only."""
import sys

from variants import Variants

variants = Variants(sys.argv[1], sys.argv[3])
variant = variants.add


def node(doc, op, nth=0):
    return [n for n in doc["nodes"] if n["op"] == op][nth]


def scalar_arg(doc):
    return node(doc, "kernel_call", 1)["args"][1]


variant("float-not-unbacked", lambda d: d["symbols"][0].update(unbacked=False, hint=1))
variant("float-unknown-dtype", lambda d: d["symbols"][0].update(dtype="float32"))
variant("float-in-size", lambda d: d["buffers"][2].update(size=["zuf0"], stride=[1]))
variant("float-in-expression", lambda d: scalar_arg(d).update(value={"expr": "2*zuf0"}))
variant("float-size-argument", lambda d: scalar_arg(d).update(role="size"))
variant("float-in-numel", lambda d: node(d, "kernel_call", 1).update(numels={"xnumel": "zuf0"}))
variant("float-in-assert", lambda d: d["nodes"].append(
    {"op": "assert_scalar", "lhs": "zuf0", "cmp": ">", "rhs": 0}))
variant("float-from-integer-tensor", lambda d: d["buffers"][0].update(dtype="int64"))
variant("float-from-size", lambda d: node(d, "bind_symbol").update(read="size", dim=0))
variant("float-before-bind", lambda d: d["nodes"].remove(node(d, "bind_symbol")))

# Subgraph calls take tensors, integers and size symbols.
variants.good = __import__("json").load(open(sys.argv[2]))


def with_float(d):
    d["symbols"].append({"name": "zuf0", "unbacked": True, "dtype": "float64"})
    d["nodes"].insert(0, {"op": "bind_symbol", "symbol": "zuf0", "read": "item",
                          "tensor": {"view": {"base": "arg3_1", "size": [], "stride": [],
                                              "offset": 0}}})
    return [n for n in d["nodes"] if n["op"] == "cond"][0]


variant("cond-float-predicate", lambda d: with_float(d).update(predicate={"expr": "zuf0"}))
variant("cond-float-operand", lambda d: with_float(d)["operands"].__setitem__(1, {"expr": "zuf0"}))
variant("subgraph-float-output",
        lambda d: (with_float(d), d["subgraphs"][0]["outputs"].append({"expr": "zuf0"})))
variants.run(sys.argv[4])
