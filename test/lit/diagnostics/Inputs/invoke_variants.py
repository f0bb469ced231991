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


def returns_input(d):
    # The subgraph hands its first input back; the second call passes it an
    # intermediate of the caller.
    sub = d["subgraphs"][0]
    sub["outputs"].append({"buffer": "arg0_1"})
    for kernel in d["kernels"]:
        for config in kernel["configs"]:
            config["artifacts"] = {"ptx": ".version 8.0\n.target sm_90\n"}


variant("cpp-returns-input", returns_input, args=("--emit=cpp",))
variant("aoti-returns-input", returns_input, args=("--emit=cpp", "--cpp-abi=aoti"))
variants.run(sys.argv[3])
