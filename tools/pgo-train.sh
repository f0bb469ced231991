#!/usr/bin/env bash
# The training run of a profile-guided build (cmake/WircPGO.cmake):
#
#   tools/pgo-train.sh BUILD_DIR
#
# compiles a training set with the instrumented wirc of BUILD_DIR (configured
# with -DWIRC_PGO=generate), which leaves the profile (*.gcda) beside its
# objects; configuring with -DWIRC_PGO=use then builds against it.
#
# The training set is the seed samples (samples/seed) and two synthetic
# graphs (tools/graphgen: Triton launches, extern calls, views, multi-output
# nodes, static and dynamic shapes), compiled with each emitter that needs no
# CUDA toolkit and each memory plan. The corpus of real graphs (test/fixtures) is
# not in it: what the corpus measures is not what the profile saw.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -ne 1 ]]; then
  echo "usage: tools/pgo-train.sh BUILD_DIR" >&2
  exit 2
fi
build=$1
wirc=$build/tools/wirc/wirc
if [[ ! -x $wirc ]]; then
  echo "pgo-train: no $wirc; configure $build with -DWIRC_PGO=generate and build the wirc target" >&2
  exit 2
fi
if ! grep -q '^WIRC_PGO:STRING=generate$' "$build/CMakeCache.txt" 2>/dev/null; then
  echo "pgo-train: $build is not configured with -DWIRC_PGO=generate" >&2
  exit 2
fi

# A profile from an earlier training (of other sources) would be merged in.
find "$build" -name '*.gcda' -delete
work=$build/pgo-train
rm -rf "$work"
mkdir -p "$work"
python3 tools/graphgen/graphgen.py --nodes 20000 --seed 11 -o "$work/dynamic.json"
python3 tools/graphgen/graphgen.py --nodes 5000 --seed 12 --static -o "$work/static.json"

runs=0
for graph in samples/seed/*.json "$work/dynamic.json" "$work/static.json"; do
  for emit in python fx fx-module; do
    "$wirc" compile "$graph" --emit=$emit -o "$work/out.txt"
    runs=$((runs + 1))
  done
done
for plan in none pool arena; do
  "$wirc" compile "$work/dynamic.json" --emit=python --memory-plan=$plan -o "$work/out.txt"
  runs=$((runs + 1))
done
rm -f "$work/out.txt"
echo "pgo-train: $runs compiles; profile: $(find "$build" -name '*.gcda' | wc -l) files"
