#!/bin/bash
# Times hpccgold against the HPCC authors' ns-3 simulator (docs/scenarios.md, "Speed against ns-3").
#
#   NS3=/path/to/High-Precision-Congestion-Control/simulation bash scripts/ns3-bench.sh [RUNS]
#
# NS3 is the simulator's simulation/ directory, built as ../shared/ns3-cases/README.md says (Python 2.7,
# waf configure --build-profile=optimized, CXXFLAGS="-std=c++11 -w"). The script gathers the ns-3 cases into
# a temporary directory: the shared cases C16, D60 and E2 (SHARED, default ../shared/ns3-cases relative to
# the repository) and, written by `hpccgold bench --write-ns3-cases` from hpccgold's own topology and
# flows, the fat-tree case with 1 ms of WebSearch arrivals at 30% load; then it runs `hpccgold bench` on
# the four scenarios with RUNS paired runs (default 3) and prints its table. Exit status: bench's.
# The fat-tree case stops ns-3 at 2 s + 6 ms: its last flow completes at about 3.9 ms in hpccgold, and ns-3
# keeps processing periodic events after the last flow (C16 with its stop moved from 4 ms to 100 ms after
# the flows' start took 0.72 s of CPU instead of 0.49 s), so a distant stop time would bill ns-3 for idling;
# bench fails the run if ns-3 did not complete every flow by then.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-3}
: "${NS3:?set NS3 to the ns-3 simulation/ directory}"
shared=${SHARED:-$root/../shared/ns3-cases}
cases=$(mktemp -d)
trap 'rm -rf "$cases"' EXIT
for c in C16 D60 E2; do
	cp -r "$shared/$c" "$cases/"
done
bin="$cases/hpccgold"
(cd "$root" && go build -o "$bin" ./cmd/hpccgold)
ft="fattree-websearch-30+$root/scripts/bench/arrivals-1ms.json"
"$bin" bench --write-ns3-cases "$cases" --scenarios "$ft" --ns3-stop-ns 6000000
"$bin" bench --runs "$runs" --ns3 "$NS3" --ns3-cases "$cases" \
	--scenarios "hpcc-incast-16to1,hpcc-incast-60to1,hpcc-two-flows,$ft"
