"""check_linetimer.py EXPORTER: wirc_export.linetimer on a stand-in for
Inductor's wrapper codegen. Prints one line per check; a wrong result prints
FAIL."""
import functools
import sys
import time

sys.path.insert(0, sys.argv[1])
from wirc_export import linetimer  # noqa: E402  (needs no torch)


def check(what, ok, detail=""):
    print(f"{'ok' if ok else 'FAIL'}: {what}" + (f" ({detail})" if not ok else ""))


class Base:
    def writeline(self, line):
        self.lines.append(line)

    def codegen_allocation(self, name):
        # A method calling another: one outermost call, one nested.
        self.writeline(f"alloc {name}")

    def slow(self, seconds):
        time.sleep(seconds)

    def codegen_conditional(self, seconds):
        # A subgraph's code generation: not the wrapper's time.
        time.sleep(seconds)
        self.writeline("cond")

    def with_subgraph(self, own, subgraph):
        time.sleep(own)
        self.codegen_conditional(subgraph)

    def fails(self):
        raise ValueError("boom")

    def push_codegened_graph(self, graph):
        self.graphs.append(graph)

    def _generate(self):
        return "\n".join(self.lines)


class Wrapper(Base):
    def __init__(self):
        self.lines = []
        self.graphs = []
        # An instance attribute that is not a plain function stays as it is.
        self.cached = functools.lru_cache(None)(self.writeline)


w, other = Wrapper(), Wrapper()
timer = linetimer.LineTimer()
timer.install(w)
check("methods shadowed on the instance", "writeline" in w.__dict__ and "slow" in w.__dict__)
check("the class untouched", "writeline" not in other.__dict__ and
      Wrapper.writeline is Base.writeline)
check("_generate and push_codegened_graph not timed",
      "_generate" not in w.__dict__ and "push_codegened_graph" not in w.__dict__)
check("a cached attribute kept", isinstance(w.__dict__["cached"], functools._lru_cache_wrapper))

w.codegen_allocation("buf0")
w.codegen_allocation("buf1")
check("outermost and nested calls", (timer.outer_calls, timer.inner_calls) == (2, 2),
      f"{timer.outer_calls}, {timer.inner_calls}")
check("the calls still work", w.lines == ["alloc buf0", "alloc buf1"], repr(w.lines))

w.codegen_conditional(0.05)
check("a subgraph's time not counted", timer.seconds() < 0.02, f"{timer.seconds():.4f} s")
w.slow(0.03)
check("a method's own time counted", timer.seconds() >= 0.03, f"{timer.seconds():.4f} s")
before = timer.seconds()
w.with_subgraph(0.01, 0.05)
added = timer.seconds() - before
check("a subgraph inside a timed call taken off", 0.01 <= added < 0.03, f"{added:.4f} s")

try:
    w.fails()
except ValueError:
    pass
calls = timer.outer_calls
w.writeline("after")
check("an exception leaves no call open", timer.outer_calls == calls + 1 and timer.depth == 0)

timer.remove(w)
check("removed", not any(name in w.__dict__ for name in ("writeline", "slow", "fails")))
calls = timer.outer_calls + timer.inner_calls
w.codegen_allocation("buf2")
check("no longer counted", timer.outer_calls + timer.inner_calls == calls)
check("the timer's own cost is measured", all(c >= 0 for c in linetimer._overhead_ns()))
