"""check_backend_call.py MODULE: runs the calling code of an --emit=fx-module
module (from `BACKEND =` on) with a stand-in backend and graph, without torch:
call(args) clears the caller's list; a backend's boxed callable receives the
input list and can free each input during the call; an ordinary one receives
them unpacked, alive until it returns. One line per check; FAIL on a wrong
result."""
import gc
import importlib
import sys
import types
import weakref

text = open(sys.argv[1]).read()
tail = text[text.index("\nBACKEND = ") + 1:]


class Tensor:
    pass


backends = types.ModuleType("stand_in_backends")
seen = {}


def boxed(gm):
    def run(inputs):
        seen["boxed type"] = type(inputs).__name__
        probe = weakref.ref(inputs[0])
        inputs.clear()  # as FX's boxed code frees an input after its last use
        gc.collect()
        seen["boxed freed"] = probe() is None
        return [gm]
    run._boxed_call = True
    return run


def plain(gm):
    def run(*inputs):
        probe = weakref.ref(inputs[0])
        gc.collect()
        seen["plain alive"] = probe() is not None
        return [gm]
    return run


backends.boxed = boxed
backends.plain = plain
sys.modules["stand_in_backends"] = backends

namespace = {"importlib": importlib, "graph_module": lambda: "gm", "torch": None}
exec(compile(tail, sys.argv[1], "exec"), namespace)
args = [Tensor(), Tensor()]
out = namespace["call"](args)
print(f"{'ok' if args == [] else 'FAIL'}: the caller's list cleared")
print(f"{'ok' if out == ('gm',) else 'FAIL'}: outputs as a tuple: {out!r}")
for key, value in sorted(seen.items()):
    print(f"ok: {key}: {value}")
