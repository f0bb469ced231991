"""Compiles the C++ wrapper of every corpus graph, both ABIs, with the C++ compiler.

usage: run_corpus_cpp.py WIRC FIXTURES_DIR CXX WIRC_INCLUDE CUDA_INCLUDE AOTI_INCLUDE [LINK_FLAGS]

The committed graphs carry no compiled kernels, so each gets a stub PTX per
config (only the host code is checked). Each graph is emitted with
--emit=cpp --cpp-extern=hooks (the standalone wrapper) and with
--cpp-abi=aoti, and each wrapper must compile with every warning an error
(against the CUDA headers and, for AOTI, the shim's declarations in
AOTI_INCLUDE). With LINK_FLAGS (the CUDA driver stub: -L DIR -lcuda), the
standalone wrapper is also linked into a shared library with no undefined
symbol; the AOTI one, which needs libtorch, is only compiled (-fsyntax-only).
Prints one line per graph and a summary.
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

wirc, root, cxx, include, cuda_include, aoti_include = sys.argv[1:7]
link_flags = sys.argv[7].split() if len(sys.argv) > 7 else []
graphs = sorted(os.path.join(d, f) for d, _, files in os.walk(root) for f in files
                if f.endswith(".json"))
MODES = {"hooks": ["--cpp-extern=hooks"], "aoti": ["--cpp-abi=aoti"]}


def check(graph: str) -> list:
    name = os.path.relpath(graph, root)
    failures = []
    with open(graph) as f:
        doc = json.load(f)
    for kernel in doc.get("kernels", []):
        for config in kernel.get("configs", []):
            config.setdefault("artifacts", {}).setdefault("ptx", ".version 8.0\n.target sm_90\n")
    with tempfile.TemporaryDirectory() as tmp:
        stub = os.path.join(tmp, "graph.json")
        with open(stub, "w") as f:
            json.dump(doc, f)
        for mode, flags in MODES.items():
            cpp = os.path.join(tmp, f"{mode}.cpp")
            r = subprocess.run([wirc, "compile", stub, "--emit=cpp", *flags, "-o", cpp],
                               capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f"FAIL {name} {mode}: wirc: {r.stderr.strip()[:400]}")
                continue
            command = [cxx, "-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{include}",
                       f"-I{cuda_include}", cpp]
            if mode == "aoti" or not link_flags:
                command += ["-fsyntax-only"]
                if mode == "aoti":
                    command.insert(-2, f"-I{aoti_include}")
            else:
                command += ["-O0", "-shared", "-fPIC", "-Wl,--no-undefined", "-o",
                            os.path.join(tmp, "wrapper.so"), *link_flags]
            r = subprocess.run(command, capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f"FAIL {name} {mode}: {r.stderr.strip()[:600]}")
    return failures or [f"ok {name}"]


jobs = min(len(graphs), os.cpu_count() or 1) or 1
with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
    results = list(pool.map(check, graphs))
failed = 0
for lines in results:
    for line in lines:
        print(line)
        failed += line.startswith("FAIL")
print(f"{len(graphs) - sum(1 for r in results if r[0].startswith('FAIL'))} passed, "
      f"{sum(1 for r in results if r[0].startswith('FAIL'))} failed")
sys.exit(1 if failed else 0)
