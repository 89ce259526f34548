#!/usr/bin/env bash
# Writes a large configuration for start-up and reload measurements (docs/benchmark.md):
#   bench/gen-large-config.sh OUTDIR [RECORDS] [SERVICES] [POOLS] [GENERATION]
# defaults: 1000000 static records, 10000 services, 200 pools, generation 0.
#   OUTDIR/large.zone   an RFC 1035 master file for large.test. with RECORDS A records h0..hN-1
#                       (written only when missing or of another size, as it never changes)
#   OUTDIR/sluice.yaml  POOLS pools of two endpoints each, SERVICES services s0..sN-1 over two
#                       pools each, and three names whose answers tell which generation served
#                       them (what bench/ReloadWatch.java checks during a reload):
#                         www    static A 192.0.2.(10+GENERATION)
#                         alias  static CNAME to s0 with TTL 300+GENERATION, and s0's first pool
#                                answers 198.51.100.(10+GENERATION): one answer, zone data and a
#                                policy decision of the same generation
#                         added  a service that exists from generation 1 on
# Regenerating with GENERATION+1 and reloading changes all three at once. Needs bash and awk only.
# ZONE_SHAPE=mixed writes RECORDS records of more types and longer names instead: for every six
# names node-NNNNNNN.dcK (K = 0..6) six A, two AAAA, one TXT, and one CNAME alias-NNNNNNN to one
# of them (ten records for six names, 600,000 names for a million records).
# ZONE_SHAPE=delegations writes a zone most of whose names are below the apex's children: of
# every 21 records, 6 are 3 delegations subN (NS ns1.subN, with its glue A), 10 are A records hN
# (TTL 300), 2 MX mN, 1 SRV _sip._tcp.sN and 2 AAAA v6-N (142,857 delegations for a million).
# HEALTH_PORT=PORT gives every pool health checks against 127.0.0.1:PORT (loopback only, whatever
# the endpoints' addresses): a TCP heartbeat every 2 s and an HTTP full-link check of / every 10 s
# (bench/health-load.sh serves them).
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 5 ]; then
  echo "usage: $0 OUTDIR [RECORDS] [SERVICES] [POOLS] [GENERATION]" >&2
  exit 2
fi
out=$1 records=${2:-1000000} services=${3:-10000} pools=${4:-200} gen=${5:-0}
if [ "$pools" -lt 2 ] || [ "$pools" -gt 60000 ] || [ "$gen" -gt 200 ]; then
  echo "$0: POOLS must be 2..60000 and GENERATION at most 200" >&2
  exit 2
fi
mkdir -p "$out"

zone="$out/large.zone"
shape=${ZONE_SHAPE:-a}
case "$shape" in
  a) header="; $records records" ;;
  mixed) header="; $records records, mixed" ;;
  delegations) header="; $records records, delegations" ;;
  *) echo "$0: ZONE_SHAPE must be a, mixed or delegations" >&2; exit 2 ;;
esac
if [ ! -f "$zone" ] || [ "$(head -1 "$zone")" != "$header" ]; then
  awk -v n="$records" -v shape="$shape" -v header="$header" 'BEGIN {
    printf "%s\n$TTL 3600\n", header
    if (shape == "a") {
      for (i = 0; i < n; i++) {
        printf "h%d IN A 10.%d.%d.%d\n", i, int(i / 65536) % 256, int(i / 256) % 256, i % 256
      }
      exit
    }
    if (shape == "delegations") {
      d = int(n / 7); a = int(n * 10 / 21); mx = int(n * 2 / 21); srv = int(n / 21)
      for (i = 0; i < d; i++) {
        printf "sub%d IN NS ns1.sub%d\nns1.sub%d 600 IN A 10.%d.%d.%d\n", i, i, i,
          int(i / 65536) % 256, int(i / 256) % 256, i % 256
      }
      for (i = 0; i < a; i++) {
        printf "h%d 300 IN A 10.%d.%d.%d\n", i, 100 + int(i / 65536) % 100, int(i / 256) % 256, i % 256
      }
      for (i = 0; i < mx; i++) printf "m%d IN MX 10 mail.m%d.large.test.\n", i, i
      for (i = 0; i < srv; i++) printf "_sip._tcp.s%d IN SRV 10 5 5060 h%d.large.test.\n", i, i
      for (i = 0; i < n - 2 * d - a - mx - srv; i++) {
        printf "v6-%d IN AAAA 2001:db8:%x::%x\n", i, int(i / 65536), i % 65536
      }
      exit
    }
    for (i = 0; written < n; i++) {
      name = sprintf("node-%07d.dc%d", i, i % 7)
      printf "%s IN A 10.%d.%d.%d\n", name, int(i / 65536) % 256, int(i / 256) % 256, i % 256
      written++
      if (i % 3 == 0 && written < n) {
        printf "%s IN AAAA 2001:db8:%x:%x::1\n", name, int(i / 65536), i % 65536
        written++
      }
      if (i % 6 == 0 && written < n) {
        printf "%s IN TXT \"v=spf1 include:_spf.large.test ~all\"\n", name
        written++
      }
      if (i % 6 == 3 && written < n) {
        printf "alias-%07d IN CNAME %s\n", i, name
        written++
      }
    }
  }' >"$zone.tmp"
  mv "$zone.tmp" "$zone"
fi

health_port=${HEALTH_PORT:-}
case "$health_port" in
  '' | [0-9] | [0-9][0-9] | [0-9][0-9][0-9] | [0-9][0-9][0-9][0-9] | [0-9][0-9][0-9][0-9][0-9]) ;;
  *) echo "$0: HEALTH_PORT must be a port number" >&2; exit 2 ;;
esac
awk -v services="$services" -v pools="$pools" -v gen="$gen" -v hport="$health_port" 'BEGIN {
  health = ""
  if (hport != "") {
    health = sprintf("health: { heartbeat: { type: tcp, address: 127.0.0.1, port: %d, interval: 2s }, fullLink: { type: http, address: 127.0.0.1, port: %d, path: /, interval: 10s } }, ", hport, hport)
  }
  print "# Generated by bench/gen-large-config.sh (generation " gen "); see docs/benchmark.md."
  print "dns:"
  print "  listen: [127.0.0.1]"
  print "admin:"
  print "  listen: 127.0.0.1"
  print "stateDir: state"
  print "pools:"
  # Pool 0 carries the generation in its address; the others have two fixed endpoints each.
  printf "  pool0: { %sendpoints: [ { address: 198.51.100.%d } ] }\n", health, 10 + gen
  for (p = 1; p < pools; p++) {
    printf "  pool%d: { %sendpoints: [ { address: 100.%d.%d.1 }, { address: 100.%d.%d.2 } ] }\n",
      p, health, 64 + int(p / 256), p % 256, 64 + int(p / 256), p % 256
  }
  print "zones:"
  print "  - origin: large.test."
  print "    soa: { mname: ns1.large.test., rname: hostmaster.large.test. }"
  print "    ns: [ns1.large.test.]"
  print "    file: large.zone"
  print "    records:"
  print "      - { name: ns1, type: A, data: 192.0.2.53 }"
  printf "      - { name: www, type: A, data: 192.0.2.%d }\n", 10 + gen
  printf "      - { name: alias, type: CNAME, data: s0.large.test., ttl: %d }\n", 300 + gen
  print "    services:"
  print "      - { name: s0, pools: [pool0] }"
  for (s = 1; s < services; s++) {
    a = 1 + s % (pools - 1)
    b = 1 + (s + 1) % (pools - 1)
    printf "      - { name: s%d, chain: [healthy, priority], pools: [pool%d, pool%d] }\n", s, a, b
  }
  if (gen >= 1) {
    print "      - { name: added, pools: [pool1] }"
  }
}' >"$out/sluice.yaml.tmp"
mv "$out/sluice.yaml.tmp" "$out/sluice.yaml"
echo "$out/sluice.yaml: $records static records in large.zone, $services services over $pools pools, generation $gen"
