"""Property test of --cpp-extern=hooks: random extern-call arguments reach the
hooks exactly as the graph wrote them.

usage: extern_values_roundtrip.py WIRC CXX INCLUDE CUDA_INCLUDE HARNESS WORKDIR [SEED] [CALLS]

Generates a graph of CALLS extern calls whose positional and keyword arguments
are random values of every kind (None, booleans, integers up to the int64
limits, doubles including -0.0 and subnormals, strings of arbitrary code points
including NUL, quotes, backslashes and '??=', dtypes, devices, symbolic sizes,
the input tensor, views of it, nested lists and tuples), compiles it with
`wirc compile --emit=cpp --cpp-extern=hooks`, builds it with
extern_values_main.cpp (which prints what each hook received), runs it with
the size symbol at 7, and compares every printed value with the expected one.
Prints "N calls, M values: ok" or the first difference, and exits non-zero on
a difference.
"""
import json
import os
import random
import struct
import subprocess
import sys

S0 = 7
DTYPES = ["float32", "float16", "bfloat16", "int64", "int32", "bool", "uint8", "float64"]
ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4, "bool": 1,
            "uint8": 1, "float64": 8}
SPECIAL_INTS = [0, 1, -1, 2**31 - 1, -2**31, 2**63 - 1, -2**63, 2**53 + 1]
SPECIAL_FLOATS = [0.0, -0.0, 0.1, 1.5, -2.0, 1e-300, 5e-324, 2.2250738585072014e-308,
                  1.7976931348623157e308, 123456789.0, 1e16, 3.0, 1e21]
ALPHABET = ["a", "Z", " ", "\"", "'", "\\", "?", "??=", "??/", "\n", "\t", "\r", "\x00", "\x7f",
            "\u00e9", "\u20ac", "\U0001f600", "{", "}", "%s", "*/", "/*", "\\n"]


def random_value(rng, depth=0):
    kind = rng.choice(["none", "bool", "int", "float", "string", "dtype", "device", "expr",
                       "tensor", "view"] + (["list", "tuple"] if depth < 3 else []))
    if kind == "none":
        return None, "none"
    if kind == "bool":
        b = rng.random() < 0.5
        return b, f"b:{int(b)}"
    if kind == "int":
        i = rng.choice(SPECIAL_INTS) if rng.random() < 0.5 else rng.randint(-10**6, 10**6)
        return i, f"i:{i}"
    if kind == "float":
        f = rng.choice(SPECIAL_FLOATS) if rng.random() < 0.5 else rng.uniform(-1e6, 1e6)
        f = -f if rng.random() < 0.3 else f
        if f == int(f) and abs(f) < 2**53 and rng.random() < 0.5:
            f = float(f)
        return f, "d:" + struct.pack("<d", f).hex()
    if kind == "string":
        s = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 12)))
        return s, "s:" + s.encode("utf-8").hex()
    if kind == "dtype":
        d = rng.choice(DTYPES)
        return {"dtype": d}, f"dt:{d}"
    if kind == "device":
        if rng.random() < 0.3:
            return {"device": "cpu"}, "dev:cpu:0"
        i = rng.randint(0, 7)
        return {"device": f"cuda:{i}"}, f"dev:cuda:{i}"
    if kind == "expr":
        a, b = rng.randint(-5, 5), rng.randint(-100, 100)
        return {"expr": f"{a}*s0 + {b}"}, f"i:{a * S0 + b}"
    if kind == "tensor":
        return {"buffer": "arg0_1"}, f"t:float32:4:0:{S0}/1,"
    if kind == "view":
        offset, size, stride = rng.randint(0, 5), rng.randint(0, 3), rng.randint(0, 2)
        return ({"view": {"base": "arg0_1", "size": [size, 2], "stride": [stride, 1],
                          "offset": offset}},
                f"t:float32:4:{offset * 4}:{size}/{stride},2/1,")
    items = [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    values = [v for v, _ in items]
    text = "".join(t + ";" for _, t in items)
    if kind == "list":
        return {"list": values}, "[" + text + "]"
    return {"tuple": values}, "(" + text + ")"


def main():
    wirc, cxx, include, cuda_include, harness, work = sys.argv[1:7]
    seed = int(sys.argv[7]) if len(sys.argv) > 7 else 0
    calls = int(sys.argv[8]) if len(sys.argv) > 8 else 40
    rng = random.Random(seed)
    nodes, expected = [], []
    for c in range(calls):
        args = [random_value(rng) for _ in range(rng.randint(0, 5))]
        kwargs = {f"kw{k}": random_value(rng) for k in range(rng.randint(0, 3))}
        op = f"torch.ops.wirc_test.op{c % 3}.default"
        nodes.append({"op": "extern_alloc", "kernel": op, "args": [v for v, _ in args],
                      "kwargs": {k: v for k, (v, _) in kwargs.items()}})
        line = "".join(t + " " for _, t in args)
        line += "".join(f"k:{k}={t} " for k, (_, t) in kwargs.items())
        expected.append(f"{op}|{line}")
    graph = {"format": "wirc.graph", "version": 1, "name": "extern_values",
             "symbols": [{"name": "s0", "hint": S0}],
             "inputs": [{"name": "arg0_1", "dtype": "float32", "device": "cuda:0",
                         "size": ["s0"], "stride": [1]}],
             "buffers": [], "kernels": [], "nodes": nodes, "outputs": [{"buffer": "arg0_1"}]}
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, f"values-{seed}.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(graph, f, indent=1)
    cpp = path[:-5] + ".cpp"
    exe = path[:-5] + ".exe"
    subprocess.run([wirc, "compile", path, "--emit=cpp", "--cpp-extern=hooks", "-o", cpp],
                   check=True)
    subprocess.run([cxx, "-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{include}",
                    f"-I{cuda_include}", f"-DWIRC_GENERATED=\"{cpp}\"",
                    "-DWIRC_NAMESPACE=wirc_graph_extern_values", harness, "-o", exe], check=True)
    out = subprocess.run([exe, str(S0)], check=True, capture_output=True).stdout
    actual = out.decode("utf-8").splitlines()
    values = 0
    for i, (want, got) in enumerate(zip(expected, actual)):
        if want != got:
            print(f"call {i} differs (seed {seed}):\n  expected {want!r}\n  actual   {got!r}")
            return 1
        values += want.count(" ")
    if len(actual) != len(expected):
        print(f"{len(actual)} calls printed, {len(expected)} expected")
        return 1
    print(f"{calls} calls, {values} values: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
