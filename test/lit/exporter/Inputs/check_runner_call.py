"""check_runner_call.py EXPORTER: the `call` the C++ runners define over a
wrapper (wirc_export.cpp_runner.runner_call), which passes a graph's
constants after its inputs. Runs the generated module text with a stand-in
runner; needs no torch. A wrong result prints FAIL."""
import sys

sys.path.insert(0, sys.argv[1])
from wirc_export import cpp_runner  # noqa: E402  (torch is imported on first use)


def check(what, got, expected):
    print(f"{'ok' if got == expected else 'FAIL'}: {what}: {got!r}"
          + ("" if got == expected else f", expected {expected!r}"))


class Recorder:
    def __call__(self, args, constants=()):
        return list(args), list(constants)


def module(doc):
    namespace = {"Recorder": Recorder}
    exec(cpp_runner.runner_call("Recorder()", doc), namespace)
    return namespace


# No constants: call is the runner itself, as before.
plain = module({"inputs": [{"name": "x"}]})
check("no constants", plain["call"](["x"]), (["x"], []))

# Constants: module globals the loader sets, passed after the inputs in order.
frozen = module({"constants": [{"name": "_frozen_param0"}, {"name": "_frozen_param1"}]})
check("unset globals", (frozen["_frozen_param0"], frozen["_frozen_param1"]), (None, None))
frozen["_frozen_param0"], frozen["_frozen_param1"] = "w0", "w1"
check("constants after inputs", frozen["call"](["x", 3]), (["x", 3], ["w0", "w1"]))

# A name that is not an identifier never reaches the module's text.
for bad in ("a b", "import", "x = 1\nimport os"):
    try:
        cpp_runner.runner_call("Recorder()", {"constants": [{"name": bad}]})
        check(f"rejects {bad!r}", "accepted", "rejected")
    except ValueError:
        check(f"rejects {bad!r}", "rejected", "rejected")

# Outputs that are numbers: a float symbol comes back as a float (rank -2 in
# the standalone wrapper, a float64 tensor from AOTI), a size as an integer.
from wirc_export import aoti_runner  # noqa: E402

numbers = {"symbols": [{"name": "s0", "hint": 4},
                       {"name": "zuf0", "unbacked": True, "dtype": "float64"}],
           "inputs": [{"name": "x", "dtype": "float32", "device": "cuda:0", "size": ["s0"],
                       "stride": [1]}],
           "outputs": [{"buffer": "x"}, {"expr": "zuf0"}, {"expr": "s0 + 1"}]}
check("standalone output kinds", cpp_runner.module_source("w.so", numbers).splitlines()[1],
      "call = Runner('w.so', ['tensor'], ['float32', 'float64', 'int64'])")
check("aoti output kinds", aoti_runner.module_source("w.so", numbers).splitlines()[1],
      "call = Runner('w.so', ['tensor'], 3, (2,), (1,))")
