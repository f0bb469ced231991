"""scalar_param_variants.py GOOD.json OUT_DIR WIRC: variants of a graph whose
kernel takes a 0-d CPU input for a scalar parameter (cpp/Inputs/cpu-scalar.json),
each passing a parameter something its signature type does not take."""
import sys

from variants import Variants

variants = Variants(sys.argv[1], sys.argv[2])
variant = variants.add


def call(doc):
    return next(n for n in doc["nodes"] if n["op"] == "kernel_call")


def scalar_input(doc):
    return next(i for i in doc["inputs"] if i["name"] == "arg1_1")


# The fp32 parameter given a CUDA tensor, a tensor of two elements, and a view.
variant("scalar-from-cuda-tensor", lambda d: scalar_input(d).update(device="cuda:0"))
variant("scalar-from-two-elements", lambda d: scalar_input(d).update(size=[2], stride=[1]))
def as_view(doc):
    arg = call(doc)["args"][1]
    del arg["buffer"]
    arg["view"] = {"base": "arg1_1", "size": [], "stride": [], "offset": 0}


variant("scalar-from-view", as_view)
# A CPU tensor the kernel would write through a scalar parameter.
variant("scalar-written",
        lambda d: (call(d)["args"][1].update(role="output", buffer="buf9"),
                   d["buffers"].append({"name": "buf9", "dtype": "float32", "device": "cpu",
                                        "size": [], "stride": [], "offset": 0})))
# A pointer parameter given a number.
variant("pointer-from-number",
        lambda d: call(d)["args"].__setitem__(0, {"role": "scalar", "name": "in_ptr0",
                                                  "value": 1.5}))
variants.run(sys.argv[3])
