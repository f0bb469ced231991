#!/usr/bin/env python3
"""Host cost of a kernel launch in wirc's standalone C++ wrapper.

Generates a graph of K launches of one small PTX kernel (the add_relu kernel of
samples/cpp/add-relu-ptx.json) that read two inputs and write a third, mutated
input, so the wrapper allocates nothing and the timing is of launches alone.
Compiles it with `wirc compile --emit=cpp`, builds launchbench_main.cpp around
it and runs it. The harness times, in one process on one stream, the host time
of `run()` (K launches: grid computation, argument checks, lazy module, launch)
against a loop of K raw cuLaunchKernel calls of the same function and
arguments, and prints both per launch and their ratio. Needs a GPU.

usage: launchbench.py --wirc WIRC [--launches K] [--reps R] [--workdir DIR]
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def graph(launches: int, numel: int) -> dict:
    with open(os.path.join(ROOT, "samples", "cpp", "add-relu-ptx.json"), encoding="utf-8") as f:
        sample = json.load(f)
    tensor = {"dtype": "float32", "device": "cuda:0", "size": [numel], "stride": [1]}
    call = {"op": "kernel_call", "kernel": "add_relu",
            "args": [{"role": "input", "buffer": "a"}, {"role": "input", "buffer": "b"},
                     {"role": "output", "buffer": "c"}],
            "numels": {"xnumel": numel}}
    return {
        "format": "wirc.graph", "version": 1, "name": "launchbench",
        "inputs": [dict(name="a", **tensor), dict(name="b", **tensor),
                   dict(name="c", mutated=True, **tensor)],
        "kernels": sample["kernels"],
        "nodes": [{"op": "device_guard_enter", "device": 0}] + [call] * launches +
                 [{"op": "device_guard_exit"}],
        "outputs": [],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wirc", required=True)
    parser.add_argument("--launches", type=int, default=200)
    parser.add_argument("--numel", type=int, default=1024)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--workdir", default="/tmp/wirc-launchbench")
    parser.add_argument("--cuda-root", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    graph_path = os.path.join(args.workdir, "launchbench.json")
    with open(graph_path, "w", encoding="utf-8") as f:
        json.dump(graph(args.launches, args.numel), f, indent=1)
    cpp = os.path.join(args.workdir, "launchbench.cpp")
    subprocess.run([args.wirc, "compile", graph_path, "--emit=cpp", "--no-size-asserts",
                    "-o", cpp], check=True)
    exe = os.path.join(args.workdir, "launchbench")
    subprocess.run(["g++", "-std=c++17", "-O2", f"-I{os.path.join(ROOT, 'include')}",
                    f"-I{os.path.join(args.cuda_root, 'include')}",
                    f'-DWIRC_GENERATED="{cpp}"', f"-DLAUNCHES={args.launches}",
                    os.path.join(HERE, "launchbench_main.cpp"), "-o", exe,
                    f"-L{os.path.join(args.cuda_root, 'lib64', 'stubs')}", "-lcuda"],
                   check=True)
    return subprocess.run([exe, str(args.numel), str(args.reps)]).returncode


if __name__ == "__main__":
    sys.exit(main())
