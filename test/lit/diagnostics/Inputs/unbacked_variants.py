"""unbacked_variants.py GOOD.json OUT_DIR WIRC: malformed variants of a graph
with unbacked symbols (python/Inputs/unbacked.json), each compiled by WIRC:
bind_symbol and assert_scalar fields, the symbols they name, and uses of an
unbacked symbol before its binding."""
import sys

from variants import Variants

variants = Variants(sys.argv[1], sys.argv[2])
variant = variants.add


def node(doc, op, nth=0):
    return [n for n in doc["nodes"] if n["op"] == op][nth]


def bind_of(doc, symbol):
    return next(n for n in doc["nodes"] if n.get("symbol") == symbol)


variant("bind-unknown-symbol", lambda d: bind_of(d, "u0").update(symbol="u7"))
variant("bind-backed-symbol", lambda d: (d["symbols"].append({"name": "s0", "hint": 3}),
                                         d["inputs"].append({"name": "s0", "kind": "symbol"}),
                                         bind_of(d, "u0").update(symbol="s0")))
variant("bind-twice", lambda d: d["nodes"].append(dict(bind_of(d, "u0"))))
variant("bind-unknown-read", lambda d: bind_of(d, "u0").update(read="numel"))
variant("bind-no-dim", lambda d: bind_of(d, "u0").pop("dim"))
variant("bind-dim-for-item", lambda d: bind_of(d, "u1").update(dim=0))
variant("bind-not-tensor", lambda d: bind_of(d, "u0").update(tensor={"expr": "4"}))
variant("bind-index-not-tuple", lambda d: bind_of(d, "u0").update(index=[0]))
variant("bind-tuple-without-index", lambda d: bind_of(d, "u0").update(tensor={"buffer": "buf1"}))
variant("bind-expr-with-tensor", lambda d: bind_of(d, "u1").update(read="expr", expr="4"))
variant("bind-expr-missing", lambda d: bind_of(d, "u1").update(read="expr"))
variant("bind-expr-for-size", lambda d: bind_of(d, "u0").update(expr="u1"))
variant("bind-expr-before-bind",
        lambda d: (bind_of(d, "u1").pop("tensor"), bind_of(d, "u1").update(read="expr",
                                                                         expr="u0 + 1")))
variant("unbacked-with-expr", lambda d: d["symbols"][0].update(expr="u1 * 2"))
variant("assert-unknown-cmp", lambda d: node(d, "assert_scalar").update(cmp="=<"))
variant("assert-no-rhs", lambda d: node(d, "assert_scalar").pop("rhs"))


def use_before_bind(d):
    # The allocation sized by u0 and the kernel passing it move before u0's binding.
    nodes = d["nodes"]
    bind = bind_of(d, "u0")
    nodes.remove(bind)
    nodes.append(bind)


variant("use-before-bind", use_before_bind)
variant("assert-before-bind", lambda d: d["nodes"].insert(0, {"op": "assert_scalar", "lhs": "u0",
                                                              "cmp": ">", "rhs": 0}))


def with_ptx(d):
    for kernel in d["kernels"]:
        for config in kernel["configs"]:
            config.setdefault("artifacts", {})["ptx"] = ".version 8.0\n"


variant("cpp-storage-offset",
        lambda d: (with_ptx(d), bind_of(d, "u1").update(read="storage_offset")),
        args=("--emit=cpp", "--cpp-abi=aoti"))
variant("item-of-float", lambda d: d["inputs"][1].update(dtype="float32"))
variants.run(sys.argv[3])
