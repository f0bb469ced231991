"""Plans every graph of the corpus and the samples with every memory plan.

usage: verify_plans.py WIRC DIR...

For each graph (graph*.json under test/fixtures, *.json under samples) and
each of --memory-plan=none, reuse, pool and arena: the compile with
--verify-plan (the independent checker on every plan) must succeed, the
figures --stats prints must hold (peak >= lower bound; without reuse, peak ==
lower bound; the arena at most reuse's and the pool's peak), the Wrapper IR
must be the same on a second run, and the Python and fx-module outputs of
the pool and arena plans must parse. Prints one line per graph and a summary.
"""
import ast
import os
import re
import subprocess
import sys

wirc, dirs = sys.argv[1], sys.argv[2:]
graphs = []
for root in dirs:
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".json") and ("fixtures" not in d or f.startswith("graph")):
                graphs.append(os.path.join(d, f))
graphs.sort()
STAT = re.compile(r"wirc: memory: @(\S+) (\S+) (\S+)(?: \(kept \S+\))?: lower bound (\d+) B, peak (\d+) B")
failures = 0
for graph in graphs:
    name = os.path.relpath(graph, os.path.commonpath(dirs + [graph]) if len(dirs) > 1 else dirs[0])
    peaks, problems = {}, []
    for plan in ("none", "reuse", "pool", "arena"):
        cmd = [wirc, "compile", graph, "--print-ir", f"--memory-plan={plan}", "--verify-plan",
               "--stats"]
        runs = [subprocess.run(cmd, capture_output=True, text=True) for _ in range(2)]
        if runs[0].returncode != 0:
            problems.append(f"{plan}: exit {runs[0].returncode}: {runs[0].stderr.strip()[:300]}")
            continue
        if runs[0].stdout != runs[1].stdout or runs[0].stderr != runs[1].stderr:
            problems.append(f"{plan}: output differs between runs")
        total = 0
        for fn, device, strategy, bound, peak in STAT.findall(runs[0].stderr):
            bound, peak = int(bound), int(peak)
            total += peak
            if strategy != plan:
                problems.append(f"{plan}: @{fn} {device} reports strategy {strategy}")
            if peak < bound or (plan == "none" and peak != bound):
                problems.append(f"{plan}: @{fn} {device} peak {peak}, lower bound {bound}")
        peaks[plan] = total
        if plan in ("pool", "arena"):
            for emit in ("python", "fx-module"):
                out = subprocess.run([wirc, "compile", graph, f"--emit={emit}",
                                      f"--memory-plan={plan}", "--verify-plan"],
                                     capture_output=True, text=True)
                # Emitters may reject a graph (exit 3, not implemented); the
                # plan must not be the reason.
                if out.returncode not in (0, 3):
                    problems.append(f"{plan} --emit={emit}: exit {out.returncode}")
                elif out.returncode == 0:
                    try:
                        ast.parse(out.stdout)
                    except SyntaxError as e:
                        problems.append(f"{plan} --emit={emit} does not parse: {e}")
    if len(peaks) == 4 and peaks["arena"] > min(peaks["reuse"], peaks["pool"]):
        problems.append(f"arena peak {peaks['arena']} above reuse {peaks['reuse']} or pool "
                        f"{peaks['pool']}")
    if problems:
        failures += 1
        for p in problems:
            print(f"FAIL {name}: {p}")
    else:
        print(f"ok {name}")
print(f"{len(graphs) - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
