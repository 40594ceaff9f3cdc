#!/usr/bin/env bash
# Runs the hpccgold end-to-end demo on a fresh Debian machine: installs
# Verilator when missing (for the co-simulation step; needs root or sudo),
# then `go run ./cmd/hpccgold demo` with any extra flags given.
# Usage: bash scripts/demo.sh [--out DIR] [--simulator auto|verilator|icarus|none]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v verilator >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "scripts/demo.sh: installing verilator (co-simulation step)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq verilator g++ make >/dev/null
fi
exec go run ./cmd/hpccgold demo "$@"
