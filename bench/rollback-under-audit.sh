#!/usr/bin/env bash
# Command latency while viewers read history (docs/benchmark.md, "Commands under audit reads"):
#   bench/rollback-under-audit.sh RUNDIR DNS_PORT ADMIN_PORT [ROUNDS] [VIEWERS]
# Starts Sluice (the zone of bench/start-sluice.sh) with its audit log filled to the designed
# maximum (10 files of 16 MiB, ~650 k events of 20 actors), starts VIEWERS (default 10) loops of
# `GET /api/v1/audit?actor=ops-N`, then times ROUNDS (default 60) rounds of
# `POST /api/v1/rollback` and of `POST /api/v1/pools/w3/drain` + `undrain` with curl, and prints
# p50/p99/max of each. VIEWER_PATH makes the viewers ask for another path (for example /healthz,
# to tell the cost of the curl loops themselves from that of the audit queries). SLUICE_JAR picks
# the jar (default gslb-dns-server/target/sluice.jar; build it beforehand with
# mvn -B -q -DskipTests package).
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 RUNDIR DNS_PORT ADMIN_PORT [ROUNDS] [VIEWERS]" >&2
  exit 2
fi
rundir=$1 port=$2 admin=$3 rounds=${4:-60} viewers=${5:-10}
bench="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar=${SLUICE_JAR:-$bench/../gslb-dns-server/target/sluice.jar}
rm -rf "$rundir" && mkdir -p "$rundir"
# The zone and services of the peer benchmark: let start-sluice.sh write the file, then stop it.
"$bench/start-sluice.sh" "$port" 1 "$rundir/gen" >/dev/null 2>&1 &
gen=$!
until [ -s "$rundir/gen/sluice.yaml" ]; do sleep 0.1; done
kill "$gen" 2>/dev/null || true
wait "$gen" 2>/dev/null || true
config=$rundir/gen/sluice.yaml state=$rundir/state
run() {
  java ${SLUICE_JAVA_OPTS:-} -jar "$jar" run --config "$config" --port "$port" --listen 127.0.0.1 \
    --threads 1 --admin-port "$admin" --state-dir "$state" >>"$rundir/log" 2>&1 &
  server=$!
  for _ in $(seq 1 600); do
    curl -s -o /dev/null "http://127.0.0.1:$admin/healthz" && return
    kill -0 "$server" 2>/dev/null || { echo "sluice exited; see $rundir/log" >&2; exit 1; }
    sleep 0.1
  done
  echo "sluice did not start; see $rundir/log" >&2
  exit 1
}
# A first start creates the state directory; then the audit log is filled while it is stopped.
run
kill "$server" && wait "$server" || true
python3 - "$state/audit" <<'PY'
import json, os, sys
d, cap, seq = sys.argv[1], 16 << 20, 0
for f in range(10):
    last = f == 9
    name = "audit.jsonl" if last else "audit-%012d.jsonl" % (seq + 1)
    size, limit = 0, cap - (1 << 16) if last else cap
    with open(os.path.join(d, name), "wb") as out:
        while True:
            e = {"seq": seq + 1, "timeMillis": 1796000000000 + seq, "actor": "ops-%d" % (seq % 20),
                 "role": "operator", "action": "set-weights", "service": "www.example.test.",
                 "reason": "synthetic history entry %d" % (seq + 1), "versionBefore": 3,
                 "versionAfter": 3, "details": {"ramp": False, "weights": {"w1": seq % 7, "w2": 1}}}
            line = (json.dumps(e, separators=(",", ":")) + "\n").encode()
            if size + len(line) > limit:
                break
            out.write(line)
            size += len(line)
            seq += 1
print("audit log filled:", seq, "events")
PY
run
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
token=$(cat "$state/admin.token")
api() { curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -H "Authorization: Bearer $token" "$@"; }
for v in $(seq 1 "$viewers"); do
  (while :; do api "http://127.0.0.1:$admin${VIEWER_PATH:-/api/v1/audit?actor=ops-$((RANDOM % 20))}" >/dev/null; done) &
done
sleep 5 # the viewers' first queries index the files
: >"$rundir/rollback" && : >"$rundir/drain"
for _ in $(seq 1 "$rounds"); do
  api -X POST -d '{"reason":"bench"}' "http://127.0.0.1:$admin/api/v1/rollback" >>"$rundir/rollback"
  api -X POST -d '{"reason":"bench"}' "http://127.0.0.1:$admin/api/v1/pools/w3/drain" >>"$rundir/drain"
  api -X POST -d '{"reason":"bench"}' "http://127.0.0.1:$admin/api/v1/pools/w3/undrain" >/dev/null
  sleep 0.1
done
for k in rollback drain; do
  sort -k2 -n "$rundir/$k" | awk -v k="$k" '{s[NR] = $2 * 1000; if ($1 != 200) bad++}
    END {printf "%s: n=%d p50=%.0f ms p99=%.0f ms max=%.0f ms non-200=%d\n", k, NR,
      s[int((NR + 1) / 2)], s[int(NR * 0.99 + 0.999)], s[NR], bad}'
done
