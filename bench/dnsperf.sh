#!/usr/bin/env bash
# Runs dnsperf against a running Sluice (for example one started by bench/start-sluice.sh):
#   bench/dnsperf.sh [PORT] [SECONDS] [KIND]
# KIND is static (static.example.test A), www, geo (with ECS 10.2.0.0/24), geo-subnets (geo with
# 1024 different ECS client subnets, the query file of bench/peers/gen-queries.py) or mix (a blend
# of static, service, AAAA, MX, SOA, NS, TXT and ~6% NXDOMAIN names). Defaults: 5306 20 static.
# CLIENTS and OUTSTANDING set dnsperf's -c and -q (20 and 500); RATE caps the queries per second
# (dnsperf -Q; default: as fast as answers come back).
set -euo pipefail
port=${1:-5306}
seconds=${2:-20}
kind=${3:-static}
command -v dnsperf >/dev/null || { echo "dnsperf is not installed (apt-get install dnsperf)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
queries="$work/queries"
extra=()
case "$kind" in
  static) echo "static.example.test A" >"$queries" ;;
  www) echo "www.example.test A" >"$queries" ;;
  geo)
    echo "geo.example.test A" >"$queries"
    extra=(-E "8:000118000a0200") # family 1, /24, scope 0, 10.2.0
    ;;
  geo-subnets)
    python3 "$(dirname "${BASH_SOURCE[0]}")/peers/gen-queries.py" "$work"
    queries="$work/geo-subnets.bin"
    extra=(-B) # binary input: every query carries its own ECS option
    ;;
  mix)
    names=("static.example.test A" "www.example.test A" "geo.example.test A"
      "www.example.test AAAA" "example.test MX" "example.test SOA" "example.test NS"
      "txt.example.test TXT" "mail.example.test A" "static6.example.test AAAA")
    for i in $(seq 0 99999); do
      if [ $(( i % 16 )) -eq 0 ]; then
        echo "nx$i.example.test A"
      else
        echo "${names[$(( i % ${#names[@]} ))]}"
      fi
    done >"$queries"
    ;;
  *) echo "unknown kind '$kind' (static, www, geo, geo-subnets, mix)" >&2; exit 2 ;;
esac
if [ -n "${RATE:-}" ]; then
  extra+=(-Q "$RATE")
fi
dnsperf -s 127.0.0.1 -p "$port" -d "$queries" -l "$seconds" \
  -c "${CLIENTS:-20}" -q "${OUTSTANDING:-500}" "${extra[@]}"
