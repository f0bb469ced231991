#!/bin/sh
# Runs the add_relu sample on a GPU with its kernel compiled from each source
# language: PTX (nvJitLink), CUDA C++ (NVRTC) and LLVM IR (LLVM 14's NVPTX
# backend), each as a cubin for --cuda-arch embedded in the wrapper. The
# harness (test/lit/cpp/add_relu_main.cpp) checks every result against the
# host and exits non-zero on a mismatch. Then the kernel-compilation
# benchmark, for figures on that machine.
#
#   tools/kernelbench/gpu-check.sh [WIRC [ARCH]]
#
# Run from the repository root; WIRC defaults to build/release/tools/wirc/wirc,
# ARCH to sm_90; CUDA_HOME (default /usr/local/cuda) names the toolkit.
set -eu
WIRC=${1:-build/release/tools/wirc/wirc}
ARCH=${2:-sm_90}
CUDA=${CUDA_HOME:-/usr/local/cuda}
WORK=${WORK:-build/gpu-check}
CXX=${CXX:-c++}
rm -rf "$WORK"
mkdir -p "$WORK"
for language in ptx cuda llvm; do
  "$WIRC" compile "samples/cpp/add-relu-$language.json" --emit=cpp -o "$WORK/$language/" \
    --cuda-arch="$ARCH" --cache-dir="$WORK/cache"
  "$CXX" -std=c++17 -O2 -Iinclude -I"$CUDA/include" \
    -DWIRC_GENERATED="\"$WORK/$language/add_relu.cpp\"" test/lit/cpp/add_relu_main.cpp \
    -o "$WORK/$language/add_relu" -L"$CUDA/lib64/stubs" -lcuda
  echo "== $language ($ARCH cubin)"
  "$WORK/$language/add_relu"
done
python3 tools/kernelbench/kernelbench.py bench --wirc "$WIRC" --kernels 100 --repeat 5 \
  --work "$WORK/bench"
