"""complex_roundtrip.py GRAPH.json OUT_DIR WIRC: puts 400 complex numbers
(random, and the awkward ones: signed zeros, infinities, NaN, subnormals,
the largest doubles) into one fallback's argument list, compiles the graph
with --emit=python and --emit=fx-module, reads each list back with Python's
eval and checks that every part is the same double (NaN as NaN, -0.0 as
-0.0). Prints one line per emitter."""
import json
import math
import os
import random
import re
import struct
import subprocess
import sys

graph, out, wirc = sys.argv[1:4]
rng = random.Random(7)
special = [0.0, -0.0, 1.0, -1.0, 0.5, 1e16, 1e15, 1e-320, 5e-324, 1.7976931348623157e308,
           -2.5e-7, math.inf, -math.inf, math.nan]
values = [complex(a, b) for a in special for b in special]
while len(values) < 400:
    values.append(complex(struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0],
                          rng.uniform(-1e6, 1e6)))


def spell(x):
    return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(repr(x), x) \
        if not math.isfinite(x) else x


with open(graph) as f:
    doc = json.load(f)
node = next(n for n in doc["nodes"] if n["op"] == "fallback")
node["args"] = [{"buffer": "buf0"},
                [{"complex": [spell(v.real), spell(v.imag)]} for v in values]]
os.makedirs(out, exist_ok=True)
path = os.path.join(out, "roundtrip.json")
with open(path, "w") as f:
    json.dump(doc, f)


def same(a, b):
    return all(struct.pack("<d", x) == struct.pack("<d", y) or (math.isnan(x) and math.isnan(y))
               for x, y in ((a.real, b.real), (a.imag, b.imag)))


for emit, pattern in (("python", r"aten\.add\.Tensor\(buf0, (\[.*\])"),
                      ("fx-module", r"aten\.add\.Tensor, \(buf0, (\[.*\])")):
    text = subprocess.run([wirc, "compile", path, f"--emit={emit}"], check=True,
                          capture_output=True, text=True).stdout
    listed = re.search(pattern, text).group(1)
    # The list ends where its brackets balance.
    depth = 0
    for i, ch in enumerate(listed):
        depth += ch == "[" or ch == "("
        depth -= ch == "]" or ch == ")"
        if depth == 0:
            listed = listed[:i + 1]
            break
    read = eval(listed, {"complex": complex, "float": float})
    bad = [(v, r) for v, r in zip(values, read) if not same(v, r)]
    print(f"{emit}: {len(read)} read back, {len(bad)} differ {bad[:3]}")
