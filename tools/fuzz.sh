#!/usr/bin/env bash
# Builds the libFuzzer target (clang, ASan + UBSan) in build/fuzz and fuzzes the
# whole `wirc compile` library path for SECONDS (default 600) on one core.
#
#   tools/fuzz.sh [SECONDS] [extra libFuzzer flags...]
#
# Seeds: samples/seed, test/lit/**/Inputs, test/fixtures (when present) and
# small tools/graphgen graphs, less test/fuzz/open-findings.txt. New
# interesting inputs accumulate in build/fuzz/corpus across runs; a crash is
# written to build/fuzz/artifacts/ and the script exits non-zero. Reproduce
# one with: build/fuzz/test/fuzz/wirc_fuzz_compile build/fuzz/artifacts/FILE
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-600}"
shift || true
build=build/fuzz
fuzzer="$build/test/fuzz/wirc_fuzz_compile"

# clang-14 and its sanitizer/libFuzzer runtime are not in install-deps.sh's
# list (only fuzzing needs them).
need=()
command -v clang++-14 >/dev/null || need+=(clang-14)
compgen -G "/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null ||
  need+=(libclang-rt-14-dev)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "fuzz: installing ${need[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++-14 \
    -DWIRC_BUILD_FUZZERS=ON -DWIRC_BUILD_TESTS=OFF >/dev/null
fi
cmake --build "$build" --target wirc_fuzz_compile -j "${WIRC_FUZZ_BUILD_JOBS:-1}"

seeds="$build/seeds"
rm -rf "$seeds"
mkdir -p "$seeds" "$build/corpus" "$build/artifacts"
# Reported, still open findings would stop the run at its first input.
open_findings=$(grep -v '^#' test/fuzz/open-findings.txt || true)
while IFS= read -r -d '' f; do
  if grep -qxF "$f" <<<"$open_findings"; then
    continue
  fi
  # Flatten paths into unique names: lit inputs share base names.
  cp "$f" "$seeds/$(echo "$f" | tr '/' '_')"
done < <(find samples/seed -name '*.json' -print0
         find test/lit -path '*/Inputs/*' -name '*.json' -print0
         [ -d test/fixtures ] && find test/fixtures -name '*.json' -print0)
# Small synthetic graphs: every construct of the benchmark's mix in one input.
for s in 1 2 3; do
  python3 tools/graphgen/graphgen.py --nodes 60 --seed "$s" -o "$seeds/graphgen-$s.json"
done
python3 tools/graphgen/graphgen.py --nodes 60 --seed 4 --static -o "$seeds/graphgen-static.json"
echo "fuzz: $(ls "$seeds" | wc -l) seeds, $(ls "$build/corpus" | wc -l) corpus entries, ${seconds}s"

# -timeout: one input taking 10 s is a hang; -rss_limit_mb bounds a run far
# above anything a small input should need.
exec "$fuzzer" "$build/corpus" "$seeds" \
  -dict=test/fuzz/graph.dict \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -artifact_prefix="$build/artifacts/" -print_final_stats=1 "$@"
