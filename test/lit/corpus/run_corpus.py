"""Compiles every graph of the corpus (test/fixtures) with every emitter.

usage: run_corpus.py WIRC FIXTURES_DIR CHECK_MODULE_PY

Each graph must compile to FX, the FX module, Python and Wrapper IR with exit
code 0; the Python modules must parse and embed every kernel source exactly;
the output must be the same on a second run. Prints one line per graph and a summary.
"""
import ast
import os
import subprocess
import sys

wirc, root, check_module = sys.argv[1], sys.argv[2], sys.argv[3]
graphs = sorted(os.path.join(d, f) for d, _, files in os.walk(root) for f in files
                if f.endswith(".json"))
failures = 0
for graph in graphs:
    name = os.path.relpath(graph, root)
    outputs = {}
    for emit in ("fx", "fx-module", "python"):
        runs = [subprocess.run([wirc, "compile", graph, f"--emit={emit}"], capture_output=True,
                               text=True) for _ in range(2)]
        if runs[0].returncode != 0:
            print(f"FAIL {name} --emit={emit}: {runs[0].stderr.strip()[:400]}")
            failures += 1
        elif runs[0].stdout != runs[1].stdout:
            print(f"FAIL {name} --emit={emit}: output differs between runs")
            failures += 1
        outputs[emit] = runs[0].stdout
    try:
        ast.parse(outputs.get("fx-module", ""))
    except SyntaxError as e:
        print(f"FAIL {name} fx-module does not parse: {e}")
        failures += 1
    # --verify-each pins a malformed IR on the pass that made it.
    ir = subprocess.run([wirc, "compile", graph, "--print-ir", "--verify-each"],
                        capture_output=True, text=True)
    if ir.returncode != 0:
        print(f"FAIL {name} --print-ir: {ir.stderr.strip()[:400]}")
        failures += 1
    module = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"wirc-corpus-{os.getpid()}.py")
    with open(module, "w") as f:
        f.write(outputs.get("python", ""))
    check = subprocess.run([sys.executable, check_module, graph, module], capture_output=True,
                           text=True)
    os.unlink(module)
    if check.returncode != 0:
        print(f"FAIL {name} python module: {check.stderr.strip()[:400]}")
        failures += 1
    else:
        print(f"ok {name}")
print(f"{len(graphs) - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
