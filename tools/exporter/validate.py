"""Validates wirc on real PyTorch programs (needs CUDA, torch and triton).

For each program of corpus.py (or, with --program-set heldout, of heldout.py:
programs kept out of the corpus), in its own process:
  1. run it eagerly;
  2. run it under torch.compile with the exporter active, with Inductor's own
     wrapper and with Inductor's Python wrapper replaced by wirc's
     (`--emit=python`, `--emit=fx-module`, then the standalone C++ wrapper of
     `--emit=cpp`), so that every graph Inductor compiles (forward, backward,
     after graph breaks) runs as wirc emitted it;
  3. compare outputs and mutated inputs with eager and with Inductor's;
  4. compile every exported graph with `--emit=fx` as well.

usage: python validate.py --wirc WIRC [--wirc-lib LIB] --out DIR [--jobs N] [--plans P,...]
                          [--program-set corpus|heldout] [PROGRAM ...]

Each program runs four times: with Inductor's own wrapper (which also exports
the graphs), with wirc's --emit=python module, with wirc's --emit=fx-module
GraphModule, and with wirc's --emit=cpp wrapper built into a library
(wirc_export/cpp_runner.py; status "n/a" for programs with extern aten kernels,
which the standalone wrapper rejects by design, as for C++ CPU kernels, which only
the Python module runs). On request (`--modes cpp-hooks`),
the C++ wrapper runs with `--cpp-extern=hooks` instead: extern kernels and
fallbacks call back into Python, where torch runs them; `--modes cpp-aoti` runs
the AOTI flavour (`--cpp-abi=aoti`, built against libtorch by
wirc_export/aoti_runner.py), whose extern kernels call PyTorch's C shim. Outputs are compared with eager and with Inductor's; the peak
memory of a warm call and, per graph, Inductor's wrapper generation time and
wirc's end-to-end time are recorded. With --plans (e.g. --plans pool,arena), the
python and fx-module runs are repeated with each `--memory-plan`, as modes
`python+pool`, `fx-module+arena`, ...

With --wirc-lib (libwirc-c.so, include/wirc-c/wirc.h), the wrappers that replace
Inductor's are compiled in the program's process through the C library instead
of by starting `wirc`; the recorded wirc time is then the call's.

Writes DIR/results.json and DIR/fixtures/PROGRAM/graphN.json.
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def flatten(x):
    import torch
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for item in x for t in flatten(item)]
    return [x]


def clone_tensors(x):
    import torch
    if isinstance(x, torch.Tensor):
        return x.clone()
    if isinstance(x, (list, tuple)):
        return type(x)(clone_tensors(item) for item in x)
    return x


def compare(expected, actual):
    import torch
    expected, actual = flatten(expected), flatten(actual)
    if len(expected) != len(actual):
        return f"{len(actual)} outputs, expected {len(expected)}"
    for i, (e, a) in enumerate(zip(expected, actual)):
        if isinstance(e, torch.Tensor):
            if not isinstance(a, torch.Tensor) or e.shape != a.shape or e.dtype != a.dtype:
                return f"output {i}: {type(a).__name__} {getattr(a, 'shape', '')}, expected {e.shape} {e.dtype}"
            if e.dtype.is_floating_point:
                if not torch.allclose(e.float(), a.float(), rtol=1e-3, atol=1e-3):
                    return f"output {i}: max error {(e.float() - a.float()).abs().max().item():.3g}"
            elif not torch.equal(e, a):
                return f"output {i}: values differ"
        elif e != a:
            return f"output {i}: {a!r}, expected {e!r}"
    return None


MODES = ("inductor", "python", "fx-module", "cpp", "cpp-hooks", "cpp-aoti")
# Run unless --modes names others; cpp-hooks runs on request.
DEFAULT_MODES = ("python", "fx-module", "cpp")
# The backend hook is checked on a few programs: fx-module with a user backend.
BACKEND_PROGRAMS = ("mlp", "cond", "training")


def not_standalone(error):
    """True if the error, or one it was raised from (torch.compile wraps
    backend errors), is the exporter's NotStandaloneError."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if type(error).__name__ == "NotStandaloneError" or "NotStandaloneError" in str(error):
            return True
        error = error.__cause__ or error.__context__
    return False


# --program-set NAME: the module that holds its programs.
PROGRAM_SETS = {"corpus": "corpus", "heldout": "heldout", "cpu": "cpu_programs"}


def _allocator_trace():
    """The caching allocator's events since recording began, as JSON: action,
    size, address and the innermost Python frames of each."""
    import torch
    events = torch.cuda.memory._snapshot()["device_traces"][0]
    return [{"action": e["action"], "size": e["size"], "addr": e["addr"],
             "where": [f"{os.path.basename(f['filename'])}:{f['line']}:{f['name']}"
                       for f in e.get("frames", [])[:8]]} for e in events]


def nan_probe(compiled, inputs, synchronize) -> str:
    """Under nan_asserts, the wrapper's checks must stop a call whose first
    floating-point input holds a NaN: "raised ERROR" or "not raised"."""
    import copy
    import torch
    probe = copy.deepcopy(inputs)
    for t in flatten(probe):
        if isinstance(t, torch.Tensor) and t.is_floating_point() and t.numel():
            with torch.no_grad():
                t.view(-1)[0] = float("nan")
            break
    else:
        return "not raised: no floating-point input to put a NaN in"
    try:
        compiled(*probe)
        synchronize()
    except Exception as e:  # noqa: BLE001 - the error is what is looked for
        return f"raised {type(e).__name__}"
    return "not raised"


def run_one(name, mode, wirc, out_dir, wirc_lib=None, program_set="corpus",
            memory_history=False):
    """Runs in a child process; prints one JSON line.

    mode "inductor" runs Inductor's own wrapper (and exports the graphs);
    "python" and "fx-module" run wirc's emitted wrapper instead.
    """
    import copy
    import importlib
    import torch
    sys.path.insert(0, HERE)
    from wirc_export import exporting

    entry = importlib.import_module(PROGRAM_SETS[program_set]).PROGRAMS[name]
    # The cpu set runs on the CPU (Inductor's C++ kernels): no device to wait
    # for, and no allocator to read a peak from.
    gpu = program_set != "cpu"

    def synchronize():
        if gpu:
            torch.cuda.synchronize()
    fixtures = os.path.join(out_dir, "fixtures" if mode == "inductor" else
                            f"graphs-{mode.replace('+', '-')}", name)
    result = {"program": name, "mode": mode, "status": "fail"}
    torch.manual_seed(0)
    fn, inputs = entry["build"]()
    try:
        eager_inputs = copy.deepcopy(inputs)
        torch.manual_seed(1)
        expected = fn(*eager_inputs)
        torch._dynamo.reset()
        # "python+pool": the python emitter with --memory-plan=pool.
        base_mode, _, plan = mode.partition("+")
        replace = (None if base_mode == "inductor" else
                   "fx-module" if base_mode == "fx-backend" else
                   "cpp" if base_mode in ("cpp-hooks", "cpp-aoti") else base_mode)
        wirc_args = ["--fx-backend=example_backend:compile_graph"] if mode == "fx-backend" else []
        if base_mode == "cpp-hooks":
            # Extern kernels call back into Python (wirc_export/cpp_runner.py).
            wirc_args.append("--cpp-extern=hooks")
        if base_mode == "cpp-aoti":
            # Tensor handles and PyTorch's C shim (wirc_export/aoti_runner.py).
            wirc_args.append("--cpp-abi=aoti")
        if plan:
            wirc_args.append(f"--memory-plan={plan}")
        if entry.get("data_dependent"):
            torch._dynamo.config.capture_scalar_outputs = True
            torch._dynamo.config.capture_dynamic_output_shape_ops = True
        with exporting(fixtures, replace=replace, wirc=wirc_lib or wirc, wirc_args=wirc_args,
                       artifacts=replace == "cpp", time_again=True,
                       time_lines=True) as exporter:
            compiled = torch.compile(fn, dynamic=entry["dynamic"], mode=entry.get("mode"))
            first_inputs = copy.deepcopy(inputs)
            start = time.perf_counter()
            torch.manual_seed(1)
            # Copied at once: under CUDA graphs (mode="reduce-overhead") the
            # next call overwrites this one's outputs.
            actual = clone_tensors(compiled(*first_inputs))
            synchronize()
            result["compile_and_run_s"] = round(time.perf_counter() - start, 2)
            # Peak memory of a warm call: allocations above what the inputs hold.
            second_inputs = copy.deepcopy(inputs)
            synchronize()
            if gpu:
                torch.cuda.reset_peak_memory_stats()
                base = torch.cuda.memory_allocated()
            torch.manual_seed(1)
            if memory_history and gpu:
                torch.cuda.memory._record_memory_history(stacks="python")
            compiled(*second_inputs)
            synchronize()
            if gpu:
                result["peak_bytes"] = torch.cuda.max_memory_allocated() - base
            from torch._inductor import config as inductor_config
            if inductor_config.nan_asserts:
                result["nan_probe"] = nan_probe(compiled, inputs, synchronize)
            if memory_history and gpu:
                with open(os.path.join(out_dir, f"memory-{name}-{mode}.json"), "w") as f:
                    json.dump({"base": base, "events": _allocator_trace()}, f, indent=0)
                torch.cuda.memory._record_memory_history(enabled=None)
        result["graphs"] = len(exporter.written)
        if mode == "fx-backend":
            import example_backend
            result["backend_calls"] = example_backend.CALLS
            if example_backend.CALLS != len(exporter.written):
                raise RuntimeError(f"the backend compiled {example_backend.CALLS} graphs of "
                                   f"{len(exporter.written)}")
        result["timings"] = exporter.timings
        if entry.get("export_error"):
            raise RuntimeError("the export went through; expected it to stop with an "
                               f"ExportError naming {entry['export_error']!r}")
        # Random numbers: compared with Inductor's compiled function (below),
        # which draws the same ones from the same seed, not with eager.
        error = (None if entry.get("rng") else compare(expected, actual)) or \
            compare(eager_inputs, first_inputs)
        if not error and result.get("nan_probe", "raised").startswith("not raised"):
            error = "a NaN in an input did not stop the wrapper (nan_asserts)"
        if error:
            result["error"] = error
        else:
            result["status"] = "pass"
        torch.save([t.detach().cpu() if isinstance(t, torch.Tensor) else t
                    for t in flatten(actual)], os.path.join(out_dir, f"out-{name}-{mode}.pt"))
    except Exception as e:  # noqa: BLE001 - every failure is reported, none is fatal
        declined = entry.get("export_error")
        if declined and "ExportError" in str(e) and declined in str(e):
            # A construct the exporter declines by name, as it must.
            result["status"] = "pass"
            result["declined"] = next(line for line in str(e).splitlines() if declined in line)
            print("RESULT " + json.dumps(result), flush=True)
            return
        if not_standalone(e):
            # Not a failure: wirc rejects the graph for this emitter by design
            # (exit 3): extern aten kernels and subgraphs in the standalone
            # wrapper, C++ CPU kernels in FX graphs and C++ wrappers.
            result["status"] = "n/a"
            result["error"] = [line for line in str(e).splitlines()
                               if line.startswith("wirc: error:")][:1] or [str(e)[:400]]
            result["error"] = result["error"][0][:400]
            print("RESULT " + json.dumps(result), flush=True)
            return
        import traceback
        frames = [line for line in traceback.format_exception(e) if "wirc_export" in line]
        result["error"] = f"{type(e).__name__}: {str(e)[:1500]}"
        result["where"] = "".join(frames[-4:])[-1500:]
    if mode == "inductor":
        # The FX emitter must take every exported graph too.
        fx, kernels = [], 0
        for file in sorted(os.listdir(fixtures)) if os.path.isdir(fixtures) else []:
            if file.endswith(".json"):
                r = subprocess.run([wirc, "compile", os.path.join(fixtures, file), "--emit=fx",
                                    "-o", "/dev/null"], capture_output=True, text=True)
                fx.append({"graph": file, "rc": r.returncode, "stderr": r.stderr[-500:]})
                with open(os.path.join(fixtures, file)) as f:
                    kernels += sum(1 for n in json.load(f)["nodes"] if n["op"] == "kernel_call")
        result["fx"] = fx
        result["kernel_calls"] = kernels
    print("RESULT " + json.dumps(result), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--wirc", required=True, help="the wirc executable")
    parser.add_argument("--wirc-lib", help="libwirc-c.so: compile the replacing wrappers in "
                        "process through it")
    parser.add_argument("--out", required=True)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="python", help=argparse.SUPPRESS)
    parser.add_argument("--plans", default="",
                        help="extra --memory-plan strategies to run the python and fx-module "
                             "wrappers with (comma-separated)")
    parser.add_argument("--modes", default=",".join(DEFAULT_MODES),
                        help="the wrappers to run (comma-separated, of " + ", ".join(MODES[1:]) +
                             "; inductor always runs, as the reference; cpp-hooks runs extern "
                             "kernels through --cpp-extern=hooks)")
    parser.add_argument("--program-set", choices=list(PROGRAM_SETS), default="corpus",
                        help="corpus.py's programs, heldout.py's (kept out of the corpus), or "
                             "cpu_programs.py's (run on the CPU: Inductor's C++ kernels; "
                             "no GPU needed)")
    parser.add_argument("--memory-history", action="store_true",
                        help="record the caching allocator's events during the measured "
                             "call into OUT/memory-PROGRAM-MODE.json (to explain a peak)")
    parser.add_argument("programs", nargs="*")
    args = parser.parse_args()
    if args.one:
        run_one(args.one, args.mode, args.wirc, args.out, args.wirc_lib, args.program_set,
                args.memory_history)
        return 0
    sys.path.insert(0, HERE)
    import importlib
    programs = importlib.import_module(PROGRAM_SETS[args.program_set]).PROGRAMS
    unknown = [name for name in args.programs if name not in programs]
    if unknown:
        parser.error(f"no program {', '.join(unknown)} in "
                     f"{PROGRAM_SETS[args.program_set]}.py")
    names = args.programs or list(programs)

    def child(job):
        name, mode = job
        env = dict(os.environ, PYTHONUNBUFFERED="1", TORCHINDUCTOR_COMPILE_THREADS="1")
        try:
            lib = ["--wirc-lib", args.wirc_lib] if args.wirc_lib else []
            if args.memory_history:
                lib.append("--memory-history")
            p = subprocess.run([sys.executable, __file__, "--wirc", args.wirc, *lib,
                                "--out", args.out, "--one", name, "--mode", mode,
                                "--program-set", args.program_set],
                               capture_output=True, text=True, env=env, timeout=400)
        except subprocess.TimeoutExpired:
            return {"program": name, "mode": mode, "status": "timeout"}
        for line in p.stdout.splitlines():
            if line.startswith("RESULT "):
                return json.loads(line[7:])
        return {"program": name, "mode": mode, "status": "crash",
                "error": (p.stderr or p.stdout)[-2000:]}

    def progress(job):
        # One line as each job ends, so that a run cut short still says what
        # it found (the table and results.json come at the end).
        r = child(job)
        print(f"done {r['program']} {r['mode']} {r['status']} peak={r.get('peak_bytes', '-')}",
              flush=True)
        return r

    modes = ("inductor",) + tuple(m for m in args.modes.split(",") if m in MODES[1:])
    jobs = [(name, mode) for name in names for mode in modes]
    jobs += [(name, "fx-backend") for name in names if name in BACKEND_PROGRAMS]
    plan_modes = tuple(f"{emit}+{plan}" for plan in filter(None, args.plans.split(","))
                       for emit in modes[1:])
    jobs += [(name, mode) for name in names for mode in plan_modes]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(progress, jobs))
    by = {(r["program"], r["mode"]): r for r in results}
    # wirc's outputs must also agree with Inductor's own compiled function.
    import torch
    for name in names:
        reference = os.path.join(args.out, f"out-{name}-inductor.pt")
        for mode in MODES[1:] + ("fx-backend",) + plan_modes:
            r = by.get((name, mode))
            if r is None:
                continue
            path = os.path.join(args.out, f"out-{name}-{mode}.pt")
            if r["status"] == "pass" and os.path.exists(reference) and os.path.exists(path):
                error = compare(torch.load(reference), torch.load(path))
                r["vs_inductor"] = error or "match"
                if error:
                    r["status"] = "fail"
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    def fx_status(graphs):
        if all(g["rc"] == 0 for g in graphs):
            return "ok"
        # FX graphs call Triton kernels only: a CPU kernel is rejected by
        # design (exit 3), as PyTorch's own FX converter does.
        if all(g["rc"] == 0 or (g["rc"] == 3 and "cpp" in g["stderr"]) for g in graphs):
            return "n/a"
        return "FAIL"

    for name in names:
        ind = by[(name, "inductor")]
        line = f"{name:<22} inductor={ind['status']:<5} graphs={ind.get('graphs', '-')} " \
               f"kernels={ind.get('kernel_calls', '-')} fx={fx_status(ind.get('fx', []))}"
        for mode in MODES[1:] + ("fx-backend",) + plan_modes:
            r = by.get((name, mode))
            if r is None:
                continue
            line += f" {mode}={r['status']}"
            if ind.get("peak_bytes") is not None and r.get("peak_bytes") is not None:
                line += f" peak={r['peak_bytes']}/{ind['peak_bytes']}"
        print(line)
        for mode in MODES + ("fx-backend",) + plan_modes:
            r = by.get((name, mode))
            if r is None:
                continue
            if r["status"] != "pass":
                print(f"    {mode}: {r.get('error', '')[:400]}")
                if r.get("where"):
                    print("      " + r["where"].replace("\n", "\n      ")[-600:])
    counts = {}
    for r in results:
        counts.setdefault(r["mode"], {}).setdefault(r["status"], 0)
        counts[r["mode"]][r["status"]] += 1
    for mode, by_status in counts.items():
        print(f"summary {mode:<16} " + " ".join(f"{k}={v}" for k, v in sorted(by_status.items())))
    failed = sum(v for by_status in counts.values() for k, v in by_status.items()
                 if k not in ("pass", "n/a"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
