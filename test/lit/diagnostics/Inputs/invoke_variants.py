"""invoke_variants.py GOOD.json OUT_DIR WIRC: malformed variants of a graph
that invokes a subgraph twice (fx/Inputs/invoke_subgraph.json), each
compiled by WIRC."""
import copy
import sys

from variants import Variants

variants = Variants(sys.argv[1], sys.argv[2])
variant = variants.add


def invoke(doc, index=0):
    return [n for n in doc["nodes"] if n["op"] == "invoke_subgraph"][index]


variant("no-subgraph", lambda d: invoke(d).pop("subgraph"))
variant("unknown-field", lambda d: invoke(d).update(identifier="repeated_subgraph0"))
variant("unknown-subgraph", lambda d: invoke(d, 1).update(subgraph="repeated_subgraph1"))
variant("operands", lambda d: invoke(d).update(operands=[{"buffer": "arg0_1"}]))
variant("result-not-tuple", lambda d: invoke(d, 1).update(result="buf3"))
variant("operand-undefined", lambda d: invoke(d).update(
    operands=[{"buffer": "buf1"}, {"buffer": "arg1_1"}]))


def invokes_itself(d):
    sub = d["subgraphs"][0]
    node = copy.deepcopy(invoke(d))
    node.update(result="buf1", operands=[{"buffer": "arg0_1"}, {"buffer": "arg1_1"}])
    sub["buffers"].append({"name": "buf1", "tuple": True})
    sub["nodes"].append(node)


variant("invokes-itself", invokes_itself)
variants.run(sys.argv[3])
