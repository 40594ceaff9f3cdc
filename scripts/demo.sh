#!/usr/bin/env bash
# Runs the hpccgold end-to-end demo on a fresh Debian machine.
#
# First it installs, when missing, the Debian packages of the demo's compile
# and co-simulation steps (needs root or sudo): verilator, g++ and make (the
# Verilator co-simulation), clang (the compiled LLVM model) and llvm (opt, which
# verifies the IR). Icarus Verilog and Yosys are not installed: the demo
# co-simulates under Verilator when it is there (Icarus only as a fallback) and
# does not synthesize. When the install cannot run or fails, the demo still
# runs and reports each step it had to skip with its install command.
#
# Then it builds hpccgold and runs `hpccgold demo` with any flags given, in the
# directory the script was started from (so a relative --out, and the default
# hpccgold-demo, are relative to it).
# Usage: bash scripts/demo.sh [--out DIR] [--simulator auto|verilator|icarus|none]
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

# Debian package per program the demo runs.
need=()
have() { command -v "$1" >/dev/null 2>&1; }
have verilator || need+=(verilator)
have g++ || need+=(g++)
have make || need+=(make)
have clang || have clang-14 || need+=(clang)
have opt || have opt-14 || need+=(llvm)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if have sudo; then SUDO=sudo; else SUDO=none; fi
  fi
  if [ "$SUDO" = none ]; then
    echo "scripts/demo.sh: not root and no sudo: not installing ${need[*]} (the demo skips the steps that need them)" >&2
  else
    echo "scripts/demo.sh: installing ${need[*]}" >&2
    if ! { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null; }; then
      echo "scripts/demo.sh: installing ${need[*]} failed (the demo skips the steps that need them)" >&2
    fi
  fi
fi

bin="$(mktemp -d "${TMPDIR:-/tmp}/hpccgold-demo-bin.XXXXXX")"
trap 'rm -rf "$bin"' EXIT
go build -C "$repo" -o "$bin/hpccgold" ./cmd/hpccgold
status=0
"$bin/hpccgold" demo "$@" || status=$?
exit "$status"
