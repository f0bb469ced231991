#!/usr/bin/env bash
# Installs the Debian 12 (bookworm) packages wirc builds and tests with.
# Idempotent: packages already present are left alone. Runs apt-get through
# sudo when not root.
set -euo pipefail

packages=(
  build-essential cmake ninja-build python3
  libcli11-dev nlohmann-json3-dev libspdlog-dev libfmt-dev catch2 libjemalloc-dev
  llvm-14-dev llvm-14-tools
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages are installed"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
