#!/usr/bin/env bash
# The README's first command: install what is missing, build wirc, and
# compile a bundled sample graph to FX text.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh
cmake --preset release
cmake --build --preset release
echo
echo "\$ wirc compile samples/seed/02-extern-addmm.json --emit=fx"
build/release/tools/wirc/wirc compile samples/seed/02-extern-addmm.json --emit=fx
