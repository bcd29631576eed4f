#!/usr/bin/env bash
# Installs the Debian 12 packages td needs to build, test and run its demo.
# As root it runs apt-get; otherwise it prints the exact command to run.
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config libabsl-dev nlohmann-json3-dev libgtest-dev
          libgmock-dev libbenchmark-dev libpfm4-dev libpapi-dev valgrind clang libclang-rt-14-dev libomp-dev
          chromium python3 gfortran python3-dev python3-venv python3-pip python3-setuptools python3-wheel
          openmpi-bin libopenmpi-dev likwid)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "td needs these Debian packages; run:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
