#!/usr/bin/env bash
# Installs everything graft needs to build and test (Debian 12 packages).
# Idempotent: does nothing when every package is already installed; otherwise
# runs apt-get update and installs what is missing. Needs root or sudo.
# Extra package names given as arguments are installed along with the base
# set (tests/bench/install-peers.sh passes the benchmark peers this way).
set -euo pipefail

packages=(
  cmake ninja-build g++ python3 python3-numpy pkgconf
  llvm-19-dev clang-19 lld-19 liblld-19-dev   # compiler: in-process LLVM + lld
  libclang-rt-19-dev                           # sanitizer and libFuzzer runtimes
  libyaml-cpp-dev libelf-dev libgtest-dev      # spec parsing, tests
  libonnx-dev libprotobuf-dev libonnx-testdata # ONNX import, its conformance tests
  qemu-user                                    # running other architectures' slices
  libopenblas-dev                              # specs/host_blas: a host command's vendor library
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross  # cross-built runtimes (static)
  gcc-riscv64-linux-gnu libc6-dev-riscv64-cross
  gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
)
packages+=("$@")

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null; then
  sudo=(sudo)
else
  echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
