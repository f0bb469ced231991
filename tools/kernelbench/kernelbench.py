#!/usr/bin/env python3
"""Kernel-compilation benchmark and graph generator for `wirc compile --emit=cpp`.

  kernelbench.py graph N [--language ptx|cuda|llvm] [--seed S]
      Print a graph-format document with N distinct kernels chained
      buf_i = max(buf_{i-1} + y, c_i), in the chosen source language.

  kernelbench.py bench [--wirc PATH] [--kernels 100] [--language ptx]
      [--repeat 3] [--work DIR] [--jobs 0]
      Compile the N-kernel graph into an output directory three times per
      round: cold (empty --cache-dir, no output directory), warm (the cache
      the cold run filled, the output directory it wrote: an unchanged
      recompile) and warm-new-dir (the same cache, the output directory
      removed first). Prints median wall and CPU times and the cold/warm
      ratios. Warm runs must report every kernel as a cache hit and the cold
      run none; otherwise the script exits 1.

Kernels differ in their constant c_i (and name), so no two share a cache entry.
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import time


def f32_hex(value):
    return "0f%08X" % struct.unpack("<I", struct.pack("<f", value))[0]


def ptx_kernel(name, constant):
    return f""".version 8.0
.target sm_90
.address_size 64

.visible .entry {name}(
\t.param .u64 {name}_param_0,
\t.param .u64 {name}_param_1,
\t.param .u64 {name}_param_2,
\t.param .u32 {name}_param_3
)
{{
\t.reg .pred \t%p<2>;
\t.reg .f32 \t%f<5>;
\t.reg .b32 \t%r<6>;
\t.reg .b64 \t%rd<11>;

\tld.param.u64 \t%rd1, [{name}_param_0];
\tld.param.u64 \t%rd2, [{name}_param_1];
\tld.param.u64 \t%rd3, [{name}_param_2];
\tld.param.u32 \t%r2, [{name}_param_3];
\tmov.u32 \t%r3, %ctaid.x;
\tmov.u32 \t%r4, %ntid.x;
\tmov.u32 \t%r5, %tid.x;
\tmad.lo.s32 \t%r1, %r3, %r4, %r5;
\tsetp.ge.s32 \t%p1, %r1, %r2;
\t@%p1 bra \t$L__BB0_2;

\tcvta.to.global.u64 \t%rd4, %rd1;
\tmul.wide.s32 \t%rd5, %r1, 4;
\tadd.s64 \t%rd6, %rd4, %rd5;
\tcvta.to.global.u64 \t%rd7, %rd2;
\tadd.s64 \t%rd8, %rd7, %rd5;
\tld.global.f32 \t%f1, [%rd8];
\tld.global.f32 \t%f2, [%rd6];
\tadd.f32 \t%f3, %f2, %f1;
\tmax.f32 \t%f4, %f3, {f32_hex(constant)};
\tcvta.to.global.u64 \t%rd9, %rd3;
\tadd.s64 \t%rd10, %rd9, %rd5;
\tst.global.f32 \t[%rd10], %f4;

$L__BB0_2:
\tret;

}}
"""


def cuda_kernel(name, constant):
    return (f'extern "C" __global__ void {name}(const float *in0, const float *in1, '
            f'float *out, int n) {{\n'
            f'  int i = blockIdx.x * blockDim.x + threadIdx.x;\n'
            f'  if (i < n)\n'
            f'    out[i] = fmaxf(in0[i] + in1[i], {constant!r}f);\n'
            f'}}\n')


def llvm_kernel(name, constant):
    # LLVM 14 IR: typed pointers; the kernel is marked by nvvm.annotations.
    return f"""target triple = "nvptx64-nvidia-cuda"

define void @{name}(float* %in0, float* %in1, float* %out, i32 %n) {{
entry:
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %ctaid, %ntid
  %i = add i32 %base, %tid
  %inside = icmp slt i32 %i, %n
  br i1 %inside, label %body, label %exit
body:
  %idx = sext i32 %i to i64
  %p0 = getelementptr float, float* %in0, i64 %idx
  %p1 = getelementptr float, float* %in1, i64 %idx
  %a = load float, float* %p0
  %b = load float, float* %p1
  %s = fadd float %a, %b
  %r = call float @llvm.maxnum.f32(float %s, float {constant!r})
  %po = getelementptr float, float* %out, i64 %idx
  store float %r, float* %po
  br label %exit
exit:
  ret void
}}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare float @llvm.maxnum.f32(float, float)

!nvvm.annotations = !{{!0}}
!0 = !{{void (float*, float*, float*, i32)* @{name}, !"kernel", i32 1}}
"""


SOURCES = {"ptx": ptx_kernel, "cuda": cuda_kernel, "llvm": llvm_kernel}


def make_graph(count, language, seed=0):
    tensor = {"dtype": "float32", "device": "cuda:0", "size": ["s0"], "stride": [1]}
    kernels, nodes, buffers = [], [], []
    previous = "x"
    for i in range(count):
        name = f"{language}_kernel_{i}"
        # Quarter steps are exact in float, so every language spells c_i exactly.
        constant = (seed * count + i) * 0.25
        kernels.append({
            "name": name, "language": language, "source": SOURCES[language](name, constant),
            "signature": [{"name": "in_ptr0", "type": "*fp32"}, {"name": "in_ptr1", "type": "*fp32"},
                          {"name": "out_ptr0", "type": "*fp32"}, {"name": "xnumel", "type": "i32"},
                          {"name": "XBLOCK", "type": "constexpr"}],
            "grid_type": "Grid1D",
            "configs": [{"kwargs": {"XBLOCK": 128}, "num_warps": 4}],
        })
        buffers.append(dict(name=f"buf{i}", **tensor))
        nodes.append({"op": "kernel_call", "kernel": name,
                      "args": [{"role": "input", "buffer": previous}, {"role": "input", "buffer": "y"},
                               {"role": "output", "buffer": f"buf{i}"}],
                      "numels": {"xnumel": "s0"}})
        previous = f"buf{i}"
    return {"format": "wirc.graph", "version": 1, "name": f"chain_{language}_{count}",
            "symbols": [{"name": "s0", "hint": 1024}],
            "inputs": [dict(name="x", **tensor), dict(name="y", **tensor)],
            "buffers": buffers, "kernels": kernels, "nodes": nodes,
            "outputs": [{"buffer": previous}]}


def run_wirc(wirc, graph, out, cache, jobs):
    cmd = [wirc, "--log-level=debug", "compile", graph, "--emit=cpp", "-o", out + "/",
           f"--cache-dir={cache}", f"--jobs={jobs}"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        sys.exit(f"kernelbench: {' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    hits = proc.stderr.count(": cache hit ")
    misses = proc.stderr.count(": compiled, cache miss ")
    return elapsed, cpu, hits, misses


def bench(args):
    os.makedirs(args.work, exist_ok=True)
    graph = os.path.join(args.work, f"chain-{args.language}-{args.kernels}.json")
    with open(graph, "w") as f:
        json.dump(make_graph(args.kernels, args.language), f)
    cache = os.path.join(args.work, "cache")
    out = os.path.join(args.work, "out")
    runs = {"cold": [], "warm": [], "warm-new-dir": []}
    for _ in range(args.repeat):
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
        for kind in runs:
            if kind == "warm-new-dir":
                shutil.rmtree(out)
            wall, cpu, hits, misses = run_wirc(args.wirc, graph, out, cache, args.jobs)
            expect_hits = 0 if kind == "cold" else args.kernels
            if hits != expect_hits or misses != args.kernels - expect_hits:
                sys.exit(f"kernelbench: {kind} run: {misses} compiled, {hits} cache hits")
            runs[kind].append((wall, cpu))
    print(f"kernels: {args.kernels} ({args.language}), jobs: {args.jobs or os.cpu_count()}, "
          f"rounds: {args.repeat}; medians, wall and CPU (user+sys)")
    med = {}
    for kind, samples in runs.items():
        wall = statistics.median(s[0] for s in samples)
        cpu = statistics.median(s[1] for s in samples)
        med[kind] = (wall, cpu)
        print(f"{kind + ':':14} wall {wall * 1000:8.1f} ms   cpu {cpu * 1000:8.1f} ms   "
              f"(wall runs: {', '.join(f'{s[0] * 1000:.1f}' for s in samples)})")
    for kind in ("warm", "warm-new-dir"):
        print(f"cold/{kind}: wall {med['cold'][0] / med[kind][0]:.1f}x, "
              f"cpu {med['cold'][1] / max(med[kind][1], 1e-9):.1f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("graph")
    g.add_argument("count", type=int)
    g.add_argument("--language", choices=sorted(SOURCES), default="ptx")
    g.add_argument("--seed", type=int, default=0)
    b = sub.add_parser("bench")
    b.add_argument("--wirc", default="build/release/tools/wirc/wirc")
    b.add_argument("--kernels", type=int, default=100)
    b.add_argument("--language", choices=sorted(SOURCES), default="ptx")
    b.add_argument("--repeat", type=int, default=3)
    b.add_argument("--jobs", type=int, default=0)
    b.add_argument("--work", default="build/kernelbench")
    args = parser.parse_args()
    if args.command == "graph":
        json.dump(make_graph(args.count, args.language, args.seed), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        bench(args)


if __name__ == "__main__":
    main()
