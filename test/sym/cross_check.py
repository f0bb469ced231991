#!/usr/bin/env python3
"""Cross-language property check of wirc::sym's printers.

Runs ExprPropertyGen to write random expressions with symbol values and
evaluate()'s verdicts, then runs the Python form with this interpreter and
compiles and runs the C++ form (C++17, -Werror, UBSan when the compiler has
it). Exits non-zero if any value or error disagrees.

  cross_check.py --gen PATH/TO/ExprPropertyGen --include REPO/include \
      --work DIR [--cxx g++] [--count 2000] [--seed 1]
"""

import argparse
import os
import subprocess
import sys


def run(cmd, **kwargs):
    print("+ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, **kwargs)


def has_ubsan(cxx, work):
    probe = os.path.join(work, "ubsan_probe.cpp")
    with open(probe, "w") as f:
        f.write("int main() { return 0; }\n")
    result = subprocess.run(
        [cxx, "-fsanitize=undefined", probe, "-o", probe + ".out"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return result.returncode == 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gen", required=True, help="ExprPropertyGen binary")
    parser.add_argument("--include", required=True,
                        help="directory holding wirc/runtime/Arith.h")
    parser.add_argument("--work", required=True, help="scratch directory")
    parser.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    os.makedirs(args.work, exist_ok=True)
    gen = run([args.gen, "--out", args.work, "--count", str(args.count),
               "--seed", str(args.seed)])
    if gen.returncode != 0:
        print("cross_check: ExprPropertyGen failed")
        return 1

    status = 0
    py = run([sys.executable, os.path.join(args.work, "cases.py")])
    if py.returncode != 0:
        print("cross_check: the Python forms disagree with evaluate()")
        status = 1

    binary = os.path.join(args.work, "cases")
    flags = ["-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror",
             "-I" + args.include]
    if has_ubsan(args.cxx, args.work):
        flags += ["-fsanitize=undefined", "-fno-sanitize-recover=undefined"]
    build = run([args.cxx] + flags +
                [os.path.join(args.work, "cases.cpp"), "-o", binary])
    if build.returncode != 0:
        print("cross_check: the printed C++ does not compile")
        return 1
    cxx = run([binary])
    if cxx.returncode != 0:
        print("cross_check: the C++ forms disagree with evaluate()")
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
