"""cond_predicate_variants.py GOOD.json OUT_DIR WIRC: malformed variants of a
torch.cond on a comparison of sizes, or several joined by "all" or "any"
(python/Inputs/cond_size_predicate.json), each compiled by WIRC."""
import sys

from variants import Variants

variants = Variants(sys.argv[1], sys.argv[2])
variant = variants.add


def compare(doc):
    return next(n for n in doc["nodes"] if n["op"] == "cond")["predicate"]["compare"]


def predicate(value):
    def edit(doc):
        next(n for n in doc["nodes"] if n["op"] == "cond")["predicate"] = value
    return edit


variant("unknown-cmp", lambda d: compare(d).update(cmp="=>"))
variant("missing-rhs", lambda d: compare(d).pop("rhs"))
variant("unknown-field", lambda d: compare(d).update(message="big"))
variant("not-object", predicate({"compare": [">", "s77", 4]}))
variant("bad-expression", lambda d: compare(d).update(lhs="s77 >"))
variant("unknown-symbol", lambda d: compare(d).update(lhs="s5"))
variant("cmp-not-string", lambda d: compare(d).update(cmp=3))
variant("extra-key", predicate({"compare": {"lhs": "s77", "cmp": ">", "rhs": 4}, "expr": "1"}))


def unbacked_before_binding(doc):
    # u0 is data-dependent and bound by no node before the cond.
    doc["symbols"].append({"name": "u0", "hint": 4, "unbacked": True})
    compare(doc).update(lhs="u0")


variant("unbacked-unbound", unbacked_before_binding)
# Comparisons joined by "all" or "any".
term = {"lhs": "s77", "cmp": ">", "rhs": 4}
variant("all-empty", predicate({"all": []}))
variant("any-not-array", predicate({"any": term}))
variant("all-bad-term", predicate({"all": [term, {"lhs": "s27", "cmp": "=<", "rhs": 8}]}))
variant("any-term-not-object", predicate({"any": [term, "s27 < 8"]}))
variants.run(sys.argv[3])
