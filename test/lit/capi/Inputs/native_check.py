"""Drives wirc_export.native (the ctypes binding of libwirc-c) the way the
exporter does, printing what the lit test checks.

usage: native_check.py EXPORTER_DIR LIBRARY GRAPH OUT_DIR
"""
import concurrent.futures
import os
import sys

sys.path.insert(0, sys.argv[1])
from wirc_export import native  # noqa: E402 - needs the path above

library, graph, out_dir = sys.argv[2:5]
# The binding must not need torch.
assert "torch" not in sys.modules

lib = native.load(library)
assert native.load(library) is lib, "loaded twice"
assert native.is_library(library) and not native.is_library("wirc")
print("version", lib.version)

r = lib.run(["compile", graph, "--emit=python"])
print("python", r.returncode, len(r.stdout) > 0, repr(r.stderr))
with open(os.path.join(out_dir, "python.py"), "w", encoding="utf-8") as f:
    f.write(r.stdout)

# -o writes the file itself, as the executable does.
r = lib.run(["compile", graph, "--emit=fx", "-o", os.path.join(out_dir, "graph.fx")])
print("fx-file", r.returncode, repr(r.stdout), repr(r.stderr))

raw = lib.run(["compile", graph, "--emit=fx"], text=False)
with open(os.path.join(out_dir, "graph.fx"), "rb") as f:
    print("bytes-equal", raw.stdout == f.read())

r = lib.run(["compile", os.path.join(out_dir, "missing.json")])
print("missing", r.returncode, r.stderr.strip().replace(out_dir, "OUT"))

r = lib.run(["compile", graph, "--emit=nope"])
print("usage", r.returncode)

# Calls from several threads take turns and agree.
with concurrent.futures.ThreadPoolExecutor(4) as pool:
    outs = list(pool.map(lambda _: lib.run(["compile", graph, "--emit=python"]).stdout, range(8)))
with open(os.path.join(out_dir, "python.py"), encoding="utf-8") as f:
    first = f.read()
print("threads-agree", all(o == first for o in outs))
