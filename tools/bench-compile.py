#!/usr/bin/env python3
"""End-to-end compile-speed benchmark of wirc on synthetic graphs.

For each size and emitter: wall time of `wirc compile` (median of --repeat
runs), its CPU time (user + system, all threads; median) and page faults (the
median run's), peak RSS of the wirc process, the instruction count under
`valgrind --tool=callgrind` for sizes up to --callgrind-max (where wall time is
noise), the split of that time into the driver's phases (read, pipeline, emit and
write, from a second run with --time-passes, which runs the final verify pass in the
pipeline rather than beside emission), and the time ratio to the previous size, also as the cost of one
doubling: (t2 / t1) ** (1 / log2(n2 / n1)). Runs longer than 5 s are not
repeated; after a timeout, larger sizes of that emitter are skipped. Graphs come from
tools/graphgen/graphgen.py (cached under --work). A run that fails (exit code
other than 0) or passes --timeout is reported and makes the script exit 1.

  tools/bench-compile.py [--wirc build/release/tools/wirc/wirc]
      [--sizes 1000,10000,100000,1000000] [--emit fx,python] [--repeat 3]
      [--callgrind-max 10000] [--timeout 600] [--work build/bench-compile]
      [--markdown]

Use a Release build (cmake --preset release && cmake --build --preset release).
"""

import argparse
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRAPHGEN = os.path.join(ROOT, "tools", "graphgen", "graphgen.py")


def human(n):
    for unit, div in (("M", 1_000_000), ("k", 1000)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


def graph_for(size, seed, work):
    path = os.path.join(work, f"graph-{human(size)}-seed{seed}.json")
    if not os.path.exists(path):
        tmp = path + ".tmp"
        t0 = time.perf_counter()
        subprocess.run([sys.executable, GRAPHGEN, "--nodes", str(size), "--seed", str(seed),
                        "-o", tmp], check=True)
        os.replace(tmp, path)
        print(f"# generated {path} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return path


class Run:
    """What one run of wirc took."""

    def __init__(self, wall=None, rss=None, code="timeout", phases=None, cpu=None, faults=None):
        self.wall, self.rss, self.code = wall, rss, code
        self.phases = phases or {}
        self.cpu, self.faults = cpu, faults


def run_once(cmd, timeout):
    """Wall seconds, peak RSS in MiB, CPU seconds, page faults and exit code of
    one run of \\p cmd."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = t0 + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            os.wait4(proc.pid, 0)
            return Run()
        time.sleep(0.002)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code
    err = proc.stderr.read().decode(errors="replace")
    if code != 0:
        sys.stderr.write(err)
    return Run(wall, usage.ru_maxrss / 1024.0, code, phases(err),
               usage.ru_utime + usage.ru_stime, usage.ru_minflt)


def phases(report):
    """{phase: seconds} from the phase timing report --time-passes prints."""
    result, inside = {}, False
    for line in report.splitlines():
        if "phase timing report" in line:
            inside = True
            continue
        fields = line.split()
        # wall (ms), %, user (ms), sys (ms), faults, phase
        if inside and len(fields) >= 3 and fields[-1] not in ("phase", "total"):
            try:
                seconds = float(fields[0]) / 1000
            except ValueError:
                continue
            # Reading reports its steps (read:parse, read:tables, ...): each
            # is kept, and "read" is their sum.
            result[fields[-1]] = seconds
            if fields[-1].startswith("read:"):
                result["read"] = result.get("read", 0.0) + seconds
    return result


def instructions(cmd, timeout):
    """Instructions executed, counted by callgrind (repeatable under load)."""
    result = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
                            + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            timeout=timeout * 60)
    for line in result.stderr.decode(errors="replace").splitlines():
        if "Collected :" in line or "I   refs:" in line:
            return int(line.split(":")[-1].replace(",", "").strip())
    return None


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--wirc", default=os.path.join(ROOT, "build", "release", "tools", "wirc",
                                                  "wirc"))
    p.add_argument("--sizes", default="1000,10000,100000,1000000")
    p.add_argument("--emit", default="fx,python")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--callgrind-max", type=int, default=10000)
    p.add_argument("--timeout", type=float, default=600, help="seconds per run")
    p.add_argument("--work", default=os.path.join(ROOT, "build", "bench-compile"))
    p.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = p.parse_args()

    if not os.access(args.wirc, os.X_OK):
        p.error(f"no wirc at {args.wirc}; build the release preset first")
    if args.callgrind_max and not shutil.which("valgrind"):
        print("# valgrind not found: no instruction counts", file=sys.stderr)
        args.callgrind_max = 0
    os.makedirs(args.work, exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    emits = args.emit.split(",")

    print(f"# machine: {machine()}")
    print(f"# wirc: {subprocess.run([args.wirc, '--version'], capture_output=True, text=True).stdout.strip()}"
          f"; repeat {args.repeat} (median wall); seed {args.seed}")
    cols = ["nodes", "JSON MB", "emit", "wall s", "CPU s", "faults", "read/pipe/emit/write s",
            "Minstr", "peak RSS MB", "x prev", "x/doubling"]
    if args.markdown:
        print("| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
    else:
        print("  ".join(f"{c:>11}" for c in cols))

    failed = False
    prev = {}
    timed_out = set()
    for size in sizes:
        graph = graph_for(size, args.seed, args.work)
        mb = os.path.getsize(graph) / 1e6
        for emit in emits:
            cmd = [args.wirc, "compile", graph, f"--emit={emit}", "-o", os.devnull]
            walls, cpus, splits, rss, status = [], [], [], 0.0, "ok"
            if emit in timed_out:
                status = "skipped"
            for _ in range(args.repeat if status == "ok" else 0):
                # Timed as users run it: --time-passes keeps the final check
                # from running beside emission, so the split comes from a
                # second run.
                timed = run_once(cmd, args.timeout)
                wall, peak, code = timed.wall, timed.rss, timed.code
                if code == 0:
                    traced = run_once(cmd + ["--time-passes"], args.timeout)
                    code, split = traced.code, traced.phases
                if code != 0:
                    status = f">{args.timeout:.0f} s" if code == "timeout" else f"exit {code}"
                    if code == "timeout":
                        timed_out.add(emit)  # larger sizes would only take longer
                    break
                walls.append(wall)
                cpus.append(timed.cpu)
                splits.append((wall, split, timed.faults))
                rss = max(rss, peak)
                if wall > 5:
                    break  # long runs vary little; one is enough
            if status != "ok":
                failed = True
                row = [human(size), f"{mb:.1f}", emit, status] + [""] * (len(cols) - 4)
            else:
                wall = statistics.median(walls)
                _, split, faults = min(splits, key=lambda ws: abs(ws[0] - wall))
                split_text = "/".join(f"{split.get(k, 0):.2f}"
                                      for k in ("read", "pipeline", "emit", "write"))
                instr = ""
                if size <= args.callgrind_max:
                    n = instructions(cmd, args.timeout)
                    instr = f"{n / 1e6:.0f}" if n else "?"
                ratio = per_doubling = ""
                if emit in prev and prev[emit][1] > 0:
                    psize, pwall = prev[emit]
                    r = wall / pwall
                    ratio = f"{r:.2f}"
                    per_doubling = f"{r ** (1 / math.log2(size / psize)):.2f}"
                prev[emit] = (size, wall)
                row = [human(size), f"{mb:.1f}", emit, f"{wall:.3f}",
                       f"{statistics.median(cpus):.3f}", str(faults), split_text, instr,
                       f"{rss:.0f}", ratio, per_doubling]
            if args.markdown:
                print("| " + " | ".join(row) + " |", flush=True)
            else:
                print("  ".join(f"{c:>11}" for c in row), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
