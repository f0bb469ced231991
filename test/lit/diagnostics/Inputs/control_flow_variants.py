"""control_flow_variants.py GOOD.json OUT_DIR WIRC: malformed variants of a
graph with a torch.while_loop (fx/Inputs/while_loop.json), each compiled by
WIRC: the loop's fields, its subgraphs' inputs and outputs, calls between
subgraphs that loop back, and what the standalone C++ wrapper cannot run."""
import copy
import sys

from variants import Variants

variants = Variants(sys.argv[1], sys.argv[2])
variant = variants.add


def loop(doc):
    return next(n for n in doc["nodes"] if n["op"] == "while_loop")


def subgraph(doc, name):
    return next(g for g in doc["subgraphs"] if g["name"] == name)


COND, BODY = "while_loop_cond_graph_0", "while_loop_body_graph_0"

variant("no-result", lambda d: loop(d).pop("result"))
variant("unknown-field", lambda d: loop(d).update(stack_output=True))
variant("unknown-body", lambda d: loop(d).update(body_graph="body_fn_9"))
variant("result-not-tuple", lambda d: loop(d).update(result="buf3"))
variant("no-carried", lambda d: loop(d).update(carried=[]))
variant("carried-int", lambda d: loop(d)["carried"].__setitem__(0, 3))
variant("carried-tuple", lambda d: loop(d)["carried"].__setitem__(0, {"buffer": "buf0"}))
variant("cond-inputs", lambda d: subgraph(d, COND)["inputs"].pop())
variant("cond-outputs", lambda d: subgraph(d, COND)["outputs"].append({"buffer": "arg0_1"}))
variant("body-outputs", lambda d: subgraph(d, BODY)["outputs"].pop())


def symbol_input(operand, declared=True):
    # Both subgraphs take the size symbol s0 after the loop's values.
    def edit(d):
        d["symbols"] = [{"name": "s0", "hint": 4}] if declared else []
        for name in (COND, BODY):
            subgraph(d, name)["inputs"].append({"name": "s0", "kind": "symbol"})
        loop(d)["additional"].append(operand)
    return edit


variant("subgraph-symbol-gets-tensor", symbol_input({"buffer": "arg2_1"}))
variant("subgraph-symbol-undeclared", symbol_input(7, declared=False))


def tensor_gets_integer(d):
    loop(d)["additional"] = [{"expr": "4"}]


variant("subgraph-tensor-gets-integer", tensor_gets_integer)


def unbound_symbol(d):
    # The body launches over s0, which neither subgraph takes.
    d["symbols"] = [{"name": "s0", "hint": 4}]
    d["inputs"].append({"name": "s0", "kind": "symbol"})
    for node in subgraph(d, BODY)["nodes"]:
        if node["op"] == "kernel_call":
            node["numels"] = {"xnumel": "s0"}


variant("subgraph-unbound-symbol", unbound_symbol)


def unbound_in_input(d):
    # A tensor input sized by an expression of s0: its size assert has no
    # value for s0 either.
    d["symbols"] = [{"name": "s0", "hint": 2}]
    d["inputs"].append({"name": "s0", "kind": "symbol"})
    subgraph(d, BODY)["inputs"][2]["size"] = ["2*s0"]


variant("subgraph-unbound-in-input", unbound_in_input)


def loop_in_body_calling_body(d):
    # The body runs a loop whose body is the body itself.
    node = copy.deepcopy(loop(d))
    node["result"] = "buf2"
    body = subgraph(d, BODY)
    body["buffers"].append({"name": "buf2", "tuple": True})
    body["nodes"].append(node)


variant("body-calls-itself", loop_in_body_calling_body)


def calls_loop_back(d):
    # The body runs a cond over a helper subgraph, which runs one over the
    # body.
    helper = copy.deepcopy(subgraph(d, BODY))
    helper["name"] = "helper_graph_0"
    d["subgraphs"].append(helper)

    def call(caller, callee, result):
        g = subgraph(d, caller)
        g["buffers"].append({"name": result, "tuple": True})
        g["nodes"].append({"op": "cond", "predicate": True, "true_graph": callee,
                           "false_graph": callee, "operands": [{"buffer": "arg0_1"},
                           {"buffer": "arg1_1"}, {"buffer": "arg2_1"}], "result": result})
    call(BODY, "helper_graph_0", "buf2")
    call("helper_graph_0", BODY, "buf2")


variant("calls-loop-back", calls_loop_back)


def cond_graph_as_branch(d):
    # The loop's cond subgraph, also called as a torch.cond branch.
    d["buffers"].append({"name": "buf9", "tuple": True})
    d["nodes"].append({"op": "cond", "predicate": True, "true_graph": COND, "false_graph": BODY,
                       "operands": [{"buffer": "arg0_1"}, {"buffer": "arg1_1"},
                                    {"buffer": "arg2_1"}], "result": "buf9"})


variant("cond-graph-as-branch", cond_graph_as_branch)


def with_ptx(d):
    for kernel in d["kernels"]:
        for config in kernel["configs"]:
            config["artifacts"] = {"ptx": ".version 8.0\n.target sm_90\n"}


def body_outputs(outputs, intermediate=False):
    # The standalone C++ wrapper runs loops whose body hands back each
    # carried value at most once, and no intermediate of the caller.
    def edit(d):
        with_ptx(d)
        subgraph(d, BODY)["outputs"] = [{"buffer": b} for b in outputs]
        if intermediate:
            # The additional operand becomes an intermediate of the caller:
            # made by a kernel before the loop, freed after it.
            d["buffers"].append({"name": "buf9", "dtype": "float32", "device": "cuda:0",
                                 "size": [4], "stride": [1]})
            d["nodes"].insert(0, {"op": "kernel_call", "kernel": "triton_poi_fused_mul_2",
                                  "args": [{"role": "input", "buffer": "arg2_1"},
                                           {"role": "output", "buffer": "buf9"}],
                                  "numels": {"xnumel": 4}})
            loop(d)["additional"] = [{"buffer": "buf9"}]
    return edit


variant("cpp-hands-back-twice", body_outputs(["arg0_1", "arg0_1"]), args=("--emit=cpp",))
variant("cpp-hands-back-intermediate", body_outputs(["buf0", "arg2_1"], intermediate=True),
        args=("--emit=cpp",))


def cpu_predicate(d):
    # A predicate the cond's kernel would write on the CPU: no Triton kernel
    # can, and name-kernel-args says so before any emitter reads it.
    with_ptx(d)
    for b in subgraph(d, COND)["buffers"]:
        if b["name"] == "buf0":
            b["device"] = "cpu"


variant("cpp-cpu-predicate", cpu_predicate, args=("--emit=cpp",))
variants.run(sys.argv[3])
