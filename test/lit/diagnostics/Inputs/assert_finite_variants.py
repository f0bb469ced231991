"""assert_finite_variants.py GOOD.json OUT_DIR WIRC: variants of a graph whose
tensors are checked for NaN and infinity after the kernel that writes them
(fx/Inputs/nan_asserts.json), each compiled by WIRC."""
import sys

from variants import Variants

variants = Variants(sys.argv[1], sys.argv[2])
variant = variants.add


def check(doc):
    """The assert on buf1, after the kernel that writes it (node 10)."""
    return [n for n in doc["nodes"] if n.get("buffer") == "buf1"][0]


def add_buffer(doc, **entry):
    doc["buffers"].append({"dtype": "float32", "device": "cuda:0", "size": [4],
                           "stride": [1], "offset": 0, **entry})


def before_kernel(doc):
    nodes = doc["nodes"]
    nodes.insert(9, nodes.pop(nodes.index(check(doc))))


def tuple_buffer(doc):
    doc["buffers"].append({"name": "buf9", "tuple": True})
    check(doc).update(buffer="buf9")


def removed(doc):
    add_buffer(doc, name="buf9", removed=True)
    check(doc).update(buffer="buf9")


def view(doc):
    # A named view of a buffer the kernel wrote: checked through the view.
    add_buffer(doc, name="buf9", view_of="buf1")
    check(doc).update(buffer="buf9")


variant("no-buffer", lambda d: check(d).pop("buffer"))
variant("unknown-field", lambda d: check(d).update(message="x"))
variant("buffer-not-name", lambda d: check(d).update(buffer=["buf1"]))
variant("unknown-buffer", lambda d: check(d).update(buffer="buf9"))
variant("quote-in-name", lambda d: check(d).update(buffer="buf1'); import os; ('"))
variant("before-kernel", before_kernel)
variant("tuple", tuple_buffer)
variant("removed", removed)
variant("view", view)
variants.run(sys.argv[3])
