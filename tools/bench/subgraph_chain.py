#!/usr/bin/env python3
"""subgraph_chain.py N OUT.json: a graph document of N subgraphs, each a
torch.cond calling the next, for measuring how wirc scales with the number of
subgraphs (docs/performance.md, round 14):

    python3 tools/bench/subgraph_chain.py 20000 /tmp/chain.json
    /usr/bin/time -f "%e s %M KB" wirc compile /tmp/chain.json --emit=fx -o /dev/null
"""
import json
import sys


def tensor(name):
    return {"name": name, "dtype": "float32", "device": "cuda:0", "size": [4], "stride": [1]}


def cond(callee, operand):
    return {"op": "cond", "predicate": True, "true_graph": callee, "false_graph": callee,
            "operands": [{"buffer": operand}], "result": "t"}


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    subgraphs = []
    for g in range(n):
        last = g + 1 == n
        subgraphs.append({"name": f"s{g}", "inputs": [tensor("x")],
                          "buffers": [] if last else [{"name": "t", "tuple": True}],
                          "nodes": [] if last else [cond(f"s{g + 1}", "x")],
                          "outputs": [{"buffer": "x"}]})
    # Callers first in the document: the reader orders them.
    doc = {"format": "wirc.graph", "version": 1, "inputs": [tensor("a")],
           "buffers": [{"name": "t", "tuple": True}], "nodes": [cond("s0", "a")],
           "outputs": [{"buffer": "a"}], "subgraphs": subgraphs}
    with open(out, "w") as f:
        json.dump(doc, f)


if __name__ == "__main__":
    main()
