"""combo_variants.py GOOD.json OUT_DIR WIRC: writes one malformed variant of
a graph with combo kernels per file and compiles each with WIRC, printing
the variant's name, wirc's diagnostics, its exit code and whether it wrote
an output file."""
import copy
import sys

from variants import Variants

variants = Variants(sys.argv[1], sys.argv[2])
variant = variants.add


def kernel(doc, name):
    return next(k for k in doc["kernels"] if k["name"] == name)


def call(doc, index):
    return [n for n in doc["nodes"] if n["op"] == "kernel_call"][index]


variant("no-combo-grid", lambda d: kernel(d, "k_seq").pop("combo_grid"))
variant("combo-on-grid1d", lambda d: kernel(d, "k_seq").update(grid_type="Grid1D"))
variant("no-parts", lambda d: kernel(d, "k_rr")["combo_grid"].update(kernels=[]))
variant("part-key", lambda d: kernel(d, "k_rr")["combo_grid"]["kernels"][0].update(wnumel=3))
variant("part-no-xnumel", lambda d: kernel(d, "k_rr")["combo_grid"]["kernels"][2].pop("xnumel"))
variant("negative-numel", lambda d: kernel(d, "k_seq")["combo_grid"]["kernels"][0].update(xnumel=-2))
variant("no-x-dim-type", lambda d: kernel(d, "k_seq")["combo_grid"]["kernels"][1].update(no_x_dim=1))
variant("min-blocks", lambda d: kernel(d, "k_rr")["combo_grid"].update(min_blocks=-1))
variant("default-block", lambda d: kernel(d, "k_rr")["combo_grid"]["default_config"].update(XBLOCK=0))
variant("fixed-numel-passed", lambda d: call(d, 0)["numels"].update(xnumel_0=128))
variant("no-such-dimension", lambda d: call(d, 0)["numels"].update(ynumel_2=4))
variant("no-such-part", lambda d: call(d, 2)["numels"].update(xnumel_7=4))
variant("numel-leading-zero", lambda d: call(d, 2)["numels"].update(xnumel_01=4))
variant("missing-launch-numel", lambda d: call(d, 3)["numels"].pop("ynumel_1"))


def plain_kernel_with_part_numel(d):
    k = copy.deepcopy(kernel(d, "k_seq"))
    k.update(name="k_plain", grid_type="Grid1D")
    k.pop("combo_grid")
    d["kernels"].append(k)
    c = call(d, 0)
    c.update(kernel="k_plain", numels={"xnumel": 8, "xnumel_0": 8})


variant("part-numel-on-plain", plain_kernel_with_part_numel)


variants.run(sys.argv[3])
