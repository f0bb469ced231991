"""Validates wirc on real PyTorch programs (needs CUDA, torch and triton).

For each program of corpus.py, in its own process:
  1. run it eagerly;
  2. run it under torch.compile with the exporter active and Inductor's
     Python wrapper replaced by wirc's (`--emit=python`), so that every graph
     Inductor compiles (forward, backward, after graph breaks) runs as wirc
     emitted it;
  3. compare outputs and mutated inputs with eager;
  4. compile every exported graph with `--emit=fx` as well.

usage: python validate.py --wirc WIRC --out DIR [--jobs N] [PROGRAM ...]

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


def run_one(name, wirc, out_dir):
    """Runs in a child process; prints one JSON line."""
    import copy
    import torch
    sys.path.insert(0, HERE)
    import corpus
    from wirc_export import exporting

    entry = corpus.PROGRAMS[name]
    fixtures = os.path.join(out_dir, "fixtures", name)
    result = {"program": name, "status": "fail"}
    torch.manual_seed(0)
    fn, inputs = entry["build"]()
    eager_inputs = copy.deepcopy(inputs)
    compiled_inputs = copy.deepcopy(inputs)
    try:
        torch.manual_seed(1)
        expected = fn(*eager_inputs)
        torch._dynamo.reset()
        start = time.perf_counter()
        with exporting(fixtures, replace="python", wirc=wirc) as exporter:
            compiled = torch.compile(fn, dynamic=entry["dynamic"])
            torch.manual_seed(1)
            actual = compiled(*compiled_inputs)
            torch.cuda.synchronize()
        result["compile_and_run_s"] = round(time.perf_counter() - start, 2)
        result["graphs"] = len(exporter.written)
        error = compare(expected, actual) or compare(eager_inputs, compiled_inputs)
        if error:
            result["error"] = error
        else:
            result["status"] = "pass"
    except Exception as e:  # noqa: BLE001 - every failure is reported, none is fatal
        import traceback
        frames = [line for line in traceback.format_exception(e) if "wirc_export" in line]
        result["error"] = f"{type(e).__name__}: {str(e)[:1500]}"
        result["where"] = "".join(frames[-4:])[-1500:]
    # The FX emitter must take every exported graph too.
    fx = []
    for file in sorted(os.listdir(fixtures)) if os.path.isdir(fixtures) else []:
        if file.endswith(".json"):
            r = subprocess.run([wirc, "compile", os.path.join(fixtures, file), "--emit=fx",
                                "-o", "/dev/null"], capture_output=True, text=True)
            fx.append({"graph": file, "rc": r.returncode, "stderr": r.stderr[-500:]})
    result["fx"] = fx
    kernels = 0
    for file in os.listdir(fixtures) if os.path.isdir(fixtures) else []:
        if file.endswith(".json"):
            with open(os.path.join(fixtures, file)) as f:
                kernels += sum(1 for n in json.load(f)["nodes"] if n["op"] == "kernel_call")
    result["kernel_calls"] = kernels
    print("RESULT " + json.dumps(result), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--wirc", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("programs", nargs="*")
    args = parser.parse_args()
    if args.one:
        run_one(args.one, args.wirc, args.out)
        return 0
    sys.path.insert(0, HERE)
    import corpus
    names = args.programs or list(corpus.PROGRAMS)

    def child(name):
        env = dict(os.environ, PYTHONUNBUFFERED="1", TORCHINDUCTOR_COMPILE_THREADS="1")
        p = subprocess.run([sys.executable, __file__, "--wirc", args.wirc, "--out", args.out,
                            "--one", name], capture_output=True, text=True, env=env,
                           timeout=400)
        for line in p.stdout.splitlines():
            if line.startswith("RESULT "):
                return json.loads(line[7:])
        return {"program": name, "status": "crash", "error": (p.stderr or p.stdout)[-2000:]}

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(child, names))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    for r in results:
        fx_ok = all(g["rc"] == 0 for g in r.get("fx", []))
        print(f"{r['program']:<22} {r['status']:<6} graphs={r.get('graphs', '-')} "
              f"kernels={r.get('kernel_calls', '-')} fx={'ok' if fx_ok else 'FAIL'} "
              f"{r.get('error', '')[:300]}")
        if r.get("where"):
            print("    " + r["where"].replace("\n", "\n    ")[-900:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
