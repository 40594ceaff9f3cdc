#!/usr/bin/env bash
# Runs the hpccgold end-to-end demo on a fresh Debian machine: installs
# Verilator, clang and llvm when missing (co-simulation and LLVM-model steps;
# needs root or sudo),
# then `go run ./cmd/hpccgold demo` with any extra flags given.
# Usage: bash scripts/demo.sh [--out DIR] [--simulator auto|verilator|icarus|none]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v verilator >/dev/null 2>&1 || ! command -v clang >/dev/null 2>&1 || ! command -v opt >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "scripts/demo.sh: installing verilator, clang and llvm (co-simulation and LLVM model steps)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq verilator g++ make clang llvm >/dev/null
fi
exec go run ./cmd/hpccgold demo "$@"
