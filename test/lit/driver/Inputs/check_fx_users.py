"""Checks a printed FX graph's user counts against its text: each node's
`num_users` is the number of later nodes (and the return) that name it.
Subgraphs (after `# subgraph NAME`) are checked each on their own. Prints
the number of nodes checked; exits 1 at the first mismatch.

    check_fx_users.py GRAPH.fx
"""
import re
import sys

NODE = re.compile(r"^    %(\w+) : \[num_users=(\d+)\] = (.*)$")
REF = re.compile(r"%(\w+)")

checked = 0
declared, users, order = {}, {}, []


def check_graph():
    global checked, declared, users, order
    for name in order:
        if declared[name] != users[name]:
            sys.exit("node %s: num_users=%d, used %d times" % (name, declared[name], users[name]))
    checked += len(order)
    declared, users, order = {}, {}, []


with open(sys.argv[1]) as f:
    for line in f:
        line = line.rstrip("\n")
        if line.startswith("graph():"):
            check_graph()
            continue
        if line.startswith("#") or not line:
            continue
        if line.startswith("    return "):
            refs = set(re.findall(r"\b(\w+)\b", line[len("    return "):]))
            for name in refs & declared.keys():
                users[name] += 1
            continue
        m = NODE.match(line)
        if not m:
            sys.exit("not a node line: " + line[:120])
        name, count, text = m.group(1), int(m.group(2)), m.group(3)
        if name in declared:
            sys.exit("node %s is defined twice" % name)
        for ref in set(REF.findall(text)):
            if ref not in declared:
                sys.exit("node %s uses %s before it is defined" % (name, ref))
            users[ref] += 1
        declared[name] = count
        users[name] = 0
        order.append(name)
check_graph()
print("checked", checked, "nodes")
