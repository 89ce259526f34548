#!/usr/bin/env bash
# The cluster's figures (docs/cluster.md, "Measured figures"), on a real 3-member etcd and three
# Sluice nodes started as child processes on loopback by the test fixture SluiceCluster:
#   bench/cluster-bench.sh [COMMANDS] [SUBNETS] [WINDOW_SECONDS]
# defaults: 100 commands, 10000 client subnets, 60 s windows. Prints:
#   - command to every node's DNS answers, p50/p99 (a weight change sent to one node, rotating
#     over the three, until all three answer it over DNS);
#   - divergence of the three nodes' answers over SUBNETS client subnets (ECS);
#   - leader takeover time, SIGKILL of the leader to another node listed as leader (5 rounds,
#     the default 5 s lease);
#   - etcd writes per second (revisions over a window) in steady state with 10,000 endpoints
#     checked by every node, and during an outage of 1,000 of them.
# Needs etcd (Debian: etcd-server), java and mvn; runs the slow-tagged ClusterBench through Maven
# (offline when the local repository is complete: MVN_FLAGS=-o). Takes about 10 minutes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
commands=${1:-100} subnets=${2:-10000} window=${3:-60}
command -v etcd >/dev/null || { echo "cluster-bench: etcd is not installed (Debian: etcd-server)" >&2; exit 2; }
out="$root/gslb-dns-server/target/cluster-bench.txt"
mkdir -p "$(dirname "$out")"
rm -f "$out"
# shellcheck disable=SC2086 # MVN_FLAGS is a list of flags
(cd "$root" && mvn -B -q ${MVN_FLAGS:-} -pl gslb-dns-server -am verify \
  -Dtest=ClusterBench -Dsurefire.failIfNoSpecifiedTests=false \
  -Dsurefire.excludedGroups= -Dgroups=slow \
  -Dcluster.bench.out="$out" -Dcluster.bench.commands="$commands" \
  -Dcluster.bench.subnets="$subnets" -Dcluster.bench.windowSeconds="$window" \
  -Dsluice.it.nodeHeapMb=512) >"$root/gslb-dns-server/target/cluster-bench.log" 2>&1 || {
  echo "cluster-bench: the run failed; see gslb-dns-server/target/cluster-bench.log" >&2
  cat "$out" 2>/dev/null || true
  exit 1
}
echo "cluster figures ($(nproc) cores, $(date -u +%Y-%m-%d)):"
cat "$out"
