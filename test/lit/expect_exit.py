"""Runs a command and succeeds only if it exits with the expected code.

usage: expect_exit.py CODE COMMAND [ARG ...]

The command's stdout and stderr pass through, so a lit test can pipe them
into FileCheck (`expect_exit.py 1 wirc ... 2>&1 | FileCheck %s`).
"""
import subprocess
import sys

expected = int(sys.argv[1])
result = subprocess.run(sys.argv[2:])
if result.returncode != expected:
    sys.stderr.write(
        f"expect_exit: expected exit code {expected}, got {result.returncode}\n")
    sys.exit(1)
