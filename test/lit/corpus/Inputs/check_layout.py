"""check_layout.py EXPORTER FIXTURES_DIR: every fixture is laid out as the
exporter writes graphs (wirc_export.graphjson), and the layout loses
nothing: a document read back is the document written."""
import glob
import json
import os
import sys

sys.path.insert(0, sys.argv[1])
from wirc_export import graphjson  # noqa: E402  (needs no torch)

paths = sorted(glob.glob(os.path.join(sys.argv[2], "*", "*.json")))
bad = 0
records = 0
for path in paths:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    doc = json.loads(text)
    written = graphjson.dumps(doc)
    if json.loads(written) != doc:
        print(f"{os.path.basename(os.path.dirname(path))}: changed by a round trip")
        bad += 1
    if written != text:
        print(f"{os.path.basename(os.path.dirname(path))}: not in the exporter's layout")
        bad += 1
    # One record per line: each line between a list's brackets parses alone.
    lines = written.splitlines()
    for key, value in doc.items():
        if isinstance(value, list) and value:
            start = lines.index(json.dumps(key) + ":[")
            for i, record in enumerate(value):
                line = lines[start + 1 + i].rstrip(",")
                assert json.loads(line) == record, (path, key, i)
                records += 1
print(f"{len(paths)} fixtures, {records} records, {bad} problems")
sys.exit(1 if bad else 0)
