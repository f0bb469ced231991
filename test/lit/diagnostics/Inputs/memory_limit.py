"""Runs a command with its address space capped.

usage: memory_limit.py MEGABYTES COMMAND [ARG ...]

Exits with the command's exit code, so a test can check how a program behaves
when it runs out of memory.
"""
import os
import resource
import sys

limit = int(sys.argv[1]) << 20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
os.execvp(sys.argv[2], sys.argv[2:])
