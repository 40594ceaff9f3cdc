#!/usr/bin/env bash
# Runs every hpccgold test on a fresh Debian machine: installs the Debian
# packages the tests use when they are missing, then vet, gofmt and
# `go test ./...`. Usage: bash scripts/test.sh [extra go test flags]
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests use, each with a command (or file) that shows it
# is installed.
need=()
have() { command -v "$1" >/dev/null 2>&1; }
have g++        || need+=(g++)
have make       || need+=(make)
[ -f /usr/include/systemc.h ] || [ -f /usr/include/systemc ] || need+=(libsystemc-dev)
have verilator  || need+=(verilator)
have iverilog   || need+=(iverilog)
have yosys      || need+=(yosys)
have clang      || need+=(clang)
have llc        || need+=(llvm)
have tshark     || need+=(tshark)
have vcd2fst    || need+=(gtkwave)
if [ ${#need[@]} -gt 0 ]; then
  echo "scripts/test.sh: installing ${need[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

export HPCCGOLD_REQUIRE_TOOLS=1 # tests that need the tools above fail, not skip, when they are missing
unformatted=$(gofmt -l . | grep -v '^vendor/' || true)
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...
go test -count=1 -timeout 30m "$@" ./...
