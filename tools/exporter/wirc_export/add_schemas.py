"""Adds the C shim schema (`"schema"`) to the extern nodes of graph files
exported before wirc_export recorded it, in place:

    python -m wirc_export.add_schemas test/fixtures/*/graph*.json

Needs the torch the graphs were exported with: the schemas are its own.
"""
import json
import sys

from . import graphjson
from .export import c_shim_schema


def add_schemas(doc: dict) -> int:
    added = 0

    def walk(nodes: list) -> None:
        nonlocal added
        for node in nodes:
            if node.get("op") in ("extern_out", "extern_alloc", "fallback") and \
                    "schema" not in node:
                schema = c_shim_schema(node["kernel"], node["op"] == "extern_out")
                if schema:
                    node["schema"] = schema
                    added += 1

    walk(doc.get("nodes", []))
    for sub in doc.get("subgraphs", []) or []:
        walk(sub.get("nodes", []))
    return added


def main(argv: list) -> int:
    for path in argv:
        with open(path) as f:
            text = f.read()
        doc = json.loads(text)
        added = add_schemas(doc)
        if added:
            with open(path, "w") as f:
                f.write(graphjson.dumps(doc))
        print(f"{path}: {added} schemas added")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
