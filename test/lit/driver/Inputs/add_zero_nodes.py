"""add_zero_nodes.py IN.json OUT.json [bad]: a zero node before every seventh
kernel call, on the buffer the call writes (a workspace zeroed before the
kernel that uses it). With `bad`, the first and the last zero node name an
input instead, which is an error."""
import json
import sys

doc = json.load(open(sys.argv[1]))
buffers = {b["name"]: b for b in doc["buffers"]}
nodes, calls = [], 0
for node in doc["nodes"]:
    if node["op"] == "kernel_call":
        if calls % 7 == 0:
            for arg in node["args"]:
                b = buffers.get(arg.get("buffer"))
                if arg["role"] == "output" and b and not b.get("view_of"):
                    nodes.append({"op": "zero", "buffer": b["name"]})
                    break
        calls += 1
    nodes.append(node)
if sys.argv[3:] == ["bad"]:
    zeros = [n for n in nodes if n["op"] == "zero"]
    tensor_input = [i["name"] for i in doc["inputs"] if i.get("kind", "tensor") == "tensor"][0]
    zeros[0]["buffer"] = zeros[-1]["buffer"] = tensor_input
doc["nodes"] = nodes
json.dump(doc, open(sys.argv[2], "w"))
