"""Graph documents as text: the top-level members one per line, and each
record of a top-level list (an input, a buffer, a kernel, a node, an output)
compact on a line of its own.

A diff of two exports then shows the records that changed, and wirc reads
about a third fewer bytes than an indented document has (indentation is
30 % of an exported graph). Needs nothing but the standard library, so the
layout is tested without torch.
"""
import json


def _compact(value) -> str:
    return json.dumps(value, separators=(",", ":"))


def dumps(doc: dict) -> str:
    """\\p doc (a graph document) as JSON text ending in a newline."""
    members = []
    for key, value in doc.items():
        name = json.dumps(key)
        if isinstance(value, list) and value:
            records = ",\n".join(_compact(record) for record in value)
            members.append(f"{name}:[\n{records}\n]")
        else:
            members.append(f"{name}:{_compact(value)}")
    return "{\n" + ",\n".join(members) + "\n}\n"
