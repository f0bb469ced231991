#!/usr/bin/env bash
# The README's first command: install what is missing, build wirc, and
# compile a bundled sample graph to FX text.
#
#   tools/quickstart.sh            # profile-guided release build (GCC)
#   tools/quickstart.sh --no-pgo   # plain release build, about a third sooner
set -euo pipefail
cd "$(dirname "$0")/.."

pgo=1
for arg in "$@"; do
  case $arg in
    --no-pgo) pgo=0 ;;
    *) echo "usage: tools/quickstart.sh [--no-pgo]" >&2; exit 2 ;;
  esac
done

tools/install-deps.sh
# The profile (cmake/WircPGO.cmake) needs GCC; another compiler builds
# without one.
compiler_version=$("${CXX:-c++}" --version 2>/dev/null || true)
if [[ $pgo == 1 && $compiler_version != *"Free Software Foundation"* ]]; then
  echo "quickstart: ${CXX:-c++} is not GCC; building without a profile"
  pgo=0
fi
if [[ $pgo == 1 ]]; then
  # An instrumented wirc compiles the training set, then everything is
  # built against the profile it leaves.
  cmake --preset release -DWIRC_PGO=generate
  cmake --build --preset release --target wirc
  tools/pgo-train.sh build/release
  cmake --preset release -DWIRC_PGO=use
else
  cmake --preset release -DWIRC_PGO=
fi
cmake --build --preset release
echo
echo "\$ wirc compile samples/seed/02-extern-addmm.json --emit=fx"
build/release/tools/wirc/wirc compile samples/seed/02-extern-addmm.json --emit=fx
