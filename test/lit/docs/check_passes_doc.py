"""Reads `wirc --list-passes` on stdin and checks each pass against docs/passes.md."""
import sys

doc = open(sys.argv[1], encoding="utf-8").read()
missing = []
for line in sys.stdin:
    name, _, summary = line.strip().partition(" ")
    if not name:
        continue
    if f"## `{name}`" not in doc or f"*{summary.strip()}*" not in doc:
        missing.append(name)
if missing:
    sys.exit("docs/passes.md is out of date for: " + ", ".join(missing))
