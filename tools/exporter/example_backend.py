"""An out-of-tree FX backend, as `wirc compile --emit=fx-module --fx-backend=
example_backend:compile_graph` uses one: it receives the wrapper's GraphModule
and returns the callable that runs it (here: the GraphModule itself, after
counting the call, standing in for a real compiler).

The callable it returns is boxed: it takes the inputs as one list, which the
GraphModule clears as it reads them (FX's boxed code generation), and is
marked `_boxed_call = True`, as torch's make_boxed_func marks one. The
module's call() then hands it the list instead of unpacking it, so each input
is freed as soon as the graph no longer needs it and the peak memory is the
Python wrapper's. A backend that returns an ordinary callable works too; its
inputs then stay alive until it returns."""

import torch

CALLS = 0


def compile_graph(gm):
    global CALLS
    CALLS += 1
    nodes = sum(1 for _ in gm.graph.nodes)
    if not hasattr(torch.fx.graph, "_BoxedCodeGen"):
        def run(*args):
            return gm(*args)
    else:
        gm.graph.set_codegen(torch.fx.graph._BoxedCodeGen())
        gm.recompile()

        def run(args):
            return gm(args)
        run._boxed_call = True
    run.nodes = nodes
    return run
