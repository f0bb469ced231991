"""cpp_kernel_variants.py GOOD.json OUT_DIR WIRC: variants of a graph with a
C++ CPU kernel (python/Inputs/cpu_mlp.json), each compiled by WIRC."""
import sys

from variants import Variants

variants = Variants(sys.argv[1], sys.argv[2])
variant = variants.add


def kernel(doc):
    return doc["kernels"][0]


def call(doc):
    return [n for n in doc["nodes"] if n["op"] == "kernel_call"][0]


def set_type(doc, text):
    kernel(doc)["signature"][0]["type"] = text


variant("type-quote", lambda d: set_type(d, "float*', 'x"))
variant("type-newline", lambda d: set_type(d, "float*\nimport os"))
variant("type-two-stars", lambda d: set_type(d, "float**"))
variant("type-empty", lambda d: set_type(d, ""))
variant("type-template", lambda d: set_type(d, "c10::complex<float>*"), args=("--emit=python",))
variant("no-signature", lambda d: kernel(d).pop("signature"))
variant("configs", lambda d: kernel(d).update(configs=[]))
variant("grid-type", lambda d: kernel(d).update(grid_type="Grid1D"))
variant("numels", lambda d: call(d).update(numels={"xnumel": 512}))
variant("too-few-args", lambda d: call(d)["args"].pop(0))
variant("removed-arg", lambda d: call(d)["args"][0].update(role="removed"))
variant("unknown-language", lambda d: kernel(d).update(language="c++"))
variants.run(sys.argv[3])
