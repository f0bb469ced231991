"""An out-of-tree FX backend, as `wirc compile --emit=fx-module --fx-backend=
example_backend:compile_graph` uses one: it receives the wrapper's GraphModule
and returns the callable that runs it (here: the GraphModule itself, after
counting the call, standing in for a real compiler)."""

CALLS = 0


def compile_graph(gm):
    global CALLS
    CALLS += 1
    nodes = sum(1 for _ in gm.graph.nodes)

    def run(*args):
        return gm(*args)

    run.nodes = nodes
    return run
