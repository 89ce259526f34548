#!/usr/bin/env bash
# Interoperability check: starts Sluice through ./sluice on a free loopback port with a test
# config, queries it with dig and kdig (UDP, TCP, EDNS, NSID, EDE, cookies, truncation, NXDOMAIN, REFUSED,
# DNS over HTTPS with kdig +https and curl, HTTPDNS with curl,
# referral, wildcard, CNAME, ECS, additional-section data of NS, MX and SRV answers, minimal ANY),
# then resolves through unbound configured with Sluice as a stub zone.
# Also checks that Knot (when knotd is installed) and Sluice accept each other's DNS cookies.
# Exits non-zero, naming every wrong answer, on failure. Needs: dig, kdig, unbound, ss, curl, java, mvn.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
sluice_pid=""
unbound_pid=""
knot_pid=""
failures=0

cleanup() {
  for pid in $knot_pid $unbound_pid $sluice_pid; do
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$work"
}
trap cleanup EXIT

for tool in dig kdig unbound ss curl java; do
  command -v "$tool" >/dev/null || { echo "interop: $tool is not installed" >&2; exit 2; }
done

free_port() {
  local p
  for _ in $(seq 1 50); do
    p=$(( 20000 + RANDOM % 20000 ))
    if ! ss -Hlnu "sport = :$p" | grep -q . && ! ss -Hlnt "sport = :$p" | grep -q .; then
      echo "$p"; return 0
    fi
  done
  echo "interop: no free port found" >&2; return 1
}

wait_answer() { # PORT NAME SECONDS
  local end=$(( $(date +%s) + $3 ))
  while [ "$(date +%s)" -lt "$end" ]; do
    dig +time=1 +tries=1 +short @127.0.0.1 -p "$1" "$2" A 2>/dev/null | grep -q '^[0-9]' && return 0
    sleep 0.2
  done
  return 1
}

# expect DESCRIPTION PATTERN COMMAND...: the command's output must match the extended regex.
expect() {
  local what=$1 pattern=$2 out
  shift 2
  out=$("$@" 2>&1)
  if grep -Eq -- "$pattern" <<<"$out"; then
    echo "ok   $what"
  else
    echo "FAIL $what: expected /$pattern/ from: $*"
    sed 's/^/     | /' <<<"$out"
    failures=$(( failures + 1 ))
  fi
}

# refute DESCRIPTION PATTERN COMMAND...: the output must not match.
refute() {
  local what=$1 pattern=$2 out
  shift 2
  out=$("$@" 2>&1)
  if grep -Eq -- "$pattern" <<<"$out"; then
    echo "FAIL $what: unexpected /$pattern/ from: $*"
    sed 's/^/     | /' <<<"$out"
    failures=$(( failures + 1 ))
  else
    echo "ok   $what"
  fi
}

big_txt=""
for i in $(seq 1 40); do
  big_txt+="'\"record number $i of a large TXT RRset, padded to length\"', "
done

https_port=$(free_port) || exit 1
cat >"$work/sluice.yaml" <<YAML
dns:
  listen: [127.0.0.1]
  threads: 2
  nsid: "interop-node"
  cookies: { enabled: true }
  https: { listen: [127.0.0.1], port: $https_port }
pools:
  east: { endpoints: [ { name: e1, address: 198.51.100.1 } ] }
zones:
  - origin: example.test.
    ttl: 3600
    soa: { mname: ns1.example.test., rname: hostmaster.example.test., serial: 7, minimum: 120 }
    ns: [ns1.example.test.]
    records:
      - { name: ns1, type: A, data: 192.0.2.53 }
      - { name: www, type: A, ttl: 300, data: [192.0.2.80, 192.0.2.81] }
      - { name: www, type: AAAA, ttl: 300, data: "2001:db8::80" }
      - { name: blog, type: CNAME, data: www.example.test. }
      - { name: "*.apps", type: A, data: 192.0.2.90 }
      - { name: dev, type: NS, data: [ns1.dev.example.test.] }
      - { name: ns1.dev, type: A, data: 192.0.2.201 }
      - { name: big, type: TXT, data: [${big_txt%, }] }
      - { name: "@", type: MX, data: ["10 mail.example.test.", "20 app.example.test."] }
      - { name: mail, type: A, data: 192.0.2.25 }
      - { name: mail, type: AAAA, data: "2001:db8::25" }
      - { name: _sip._tcp, type: SRV, data: "10 60 5060 sip.example.test." }
      - { name: sip, type: AAAA, data: "2001:db8::60" }
    services:
      - { name: app, ttl: 30, pools: [east] }
  # DNSSEC: signed online, its key generated on first start into the state directory.
  - origin: signed.test.
    soa: { mname: ns1.signed.test., rname: hostmaster.signed.test., minimum: 120 }
    ns: [ns1.signed.test.]
    dnssec: { algorithm: ECDSAP256SHA256 }
    records:
      - { name: ns1, type: A, data: 192.0.2.53 }
      - { name: www, type: A, data: 192.0.2.80 }
      - { name: "*.apps", type: A, data: 192.0.2.90 }
    services:
      - { name: app, ttl: 30, pools: [east] }
YAML

port=$(free_port) || exit 1
"$root/sluice" run --config "$work/sluice.yaml" --port "$port" --admin-port 0 >"$work/sluice.log" 2>&1 &
sluice_pid=$!
if ! wait_answer "$port" www.example.test 120; then
  echo "interop: Sluice did not answer on port $port; its log:" >&2
  cat "$work/sluice.log" >&2
  exit 1
fi
echo "Sluice pid $sluice_pid answering on 127.0.0.1:$port"

d=(dig +norec +time=2 +tries=1 @127.0.0.1 -p "$port")
k=(kdig +norec +time=2 +retry=0 @127.0.0.1 -p "$port")

expect "dig udp A: NOERROR"             'status: NOERROR'                "${d[@]}" www.example.test A
expect "dig udp A: authoritative"        'flags: qr aa;'                  "${d[@]}" www.example.test A
expect "dig udp A: both addresses"       '192\.0\.2\.81'                  "${d[@]}" www.example.test A
expect "dig tcp AAAA"                    'AAAA[[:space:]]+2001:db8::80'   "${d[@]}" +tcp www.example.test AAAA
expect "dig 0x20 case echoed"            '^;WwW\.ExAmPlE\.TeSt\.'         "${d[@]}" WwW.ExAmPlE.TeSt A
expect "dig EDNS payload 1232"           'udp: 1232'                      "${d[@]}" +edns=0 +bufsize=4096 www.example.test A
expect "dig EDNS version 1: BADVERS"     'status: BADVERS'                "${d[@]}" +edns=1 +noednsneg www.example.test A
expect "dig no EDNS: truncated"          'flags: qr aa tc;'               "${d[@]}" +noedns +ignore big.example.test TXT
expect "dig tcp: whole answer"           'ANSWER: 40,'                    "${d[@]}" +tcp big.example.test TXT
expect "dig NXDOMAIN"                    'status: NXDOMAIN'               "${d[@]}" nope.example.test A
expect "dig NXDOMAIN: SOA, negative TTL" 'example\.test\.[[:space:]]+120[[:space:]]+IN[[:space:]]+SOA' "${d[@]}" nope.example.test A
expect "dig NODATA"                      'flags: qr aa; QUERY: 1, ANSWER: 0, AUTHORITY: 1' "${d[@]}" ns1.example.test AAAA
expect "dig REFUSED outside the zones"   'status: REFUSED'                "${d[@]}" www.example.org A
expect "dig referral: NS in authority"   'dev\.example\.test\.[[:space:]].*NS[[:space:]]+ns1\.dev' "${d[@]}" host.dev.example.test A
expect "dig referral: glue"              'ns1\.dev\.example\.test\.[[:space:]].*A[[:space:]]+192\.0\.2\.201' "${d[@]}" host.dev.example.test A
refute "dig referral: AA clear"          'flags: qr aa'                   "${d[@]}" host.dev.example.test A
expect "dig wildcard"                    'foo\.apps\.example\.test\.[[:space:]].*A[[:space:]]+192\.0\.2\.90' "${d[@]}" foo.apps.example.test A
expect "dig CNAME followed"              'www\.example\.test\.[[:space:]].*A[[:space:]]+192\.0\.2\.80' "${d[@]}" blog.example.test A
expect "dig service answer"              'app\.example\.test\.[[:space:]]+30[[:space:]]+IN[[:space:]]+A[[:space:]]+198\.51\.100\.1' "${d[@]}" app.example.test A
expect "dig ECS echoed with scope 0"     'CLIENT-SUBNET: 10\.1\.2\.0/24/0' "${d[@]}" +subnet=10.1.2.0/24 www.example.test A
expect "dig NS: name server A in additional" '^ns1\.example\.test\.[[:space:]].*A[[:space:]]+192\.0\.2\.53' "${d[@]}" example.test NS
expect "dig MX: target A in additional"  '^mail\.example\.test\.[[:space:]].*A[[:space:]]+192\.0\.2\.25' "${d[@]}" example.test MX
expect "dig MX: target AAAA in additional" '^mail\.example\.test\.[[:space:]].*AAAA[[:space:]]+2001:db8::25' "${d[@]}" example.test MX
expect "dig MX: GSLB target's address"   '^app\.example\.test\.[[:space:]]+30[[:space:]]+IN[[:space:]]+A[[:space:]]+198\.51\.100\.1' "${d[@]}" example.test MX
expect "dig SRV: target AAAA in additional" '^sip\.example\.test\.[[:space:]].*AAAA[[:space:]]+2001:db8::60' "${d[@]}" _sip._tcp.example.test SRV
expect "dig ANY at an empty non-terminal: NODATA" 'status: NOERROR' "${d[@]}" apps.example.test ANY
expect "dig ANY at an empty non-terminal: no answer" 'ANSWER: 0, AUTHORITY: 1' "${d[@]}" apps.example.test ANY
refute "dig ANY at an empty non-terminal: no HINFO" 'HINFO' "${d[@]}" apps.example.test ANY
expect "dig NOTIFY: NOTIMP"              'status: NOTIMP'                 "${d[@]}" +opcode=notify example.test SOA
expect "dig CHAOS version.bind: REFUSED" 'status: REFUSED'                "${d[@]}" version.bind TXT CH
expect "dig NSID when asked"             'NSID: .*\("interop-node"\)'    "${d[@]}" +nsid www.example.test A
refute "dig no NSID unless asked"        'NSID'                           "${d[@]}" www.example.test A
expect "dig NSID on NXDOMAIN"            'NSID: .*\("interop-node"\)'    "${d[@]}" +nsid nope.example.test A
expect "dig unknown EDNS option ignored" 'status: NOERROR'                "${d[@]}" +ednsopt=65001:abcd www.example.test A
expect "dig EDE on REFUSED"              'EDE: 20'                        "${d[@]}" www.example.org A
expect "dig cookie: server cookie"       'COOKIE: [0-9a-f]{48} \(good\)' "${d[@]}" +cookie www.example.test A
cookie=$("${d[@]}" +cookie www.example.test A | sed -n 's/^; COOKIE: \([0-9a-f]*\).*/\1/p')
expect "dig cookie presented: sent back"  "COOKIE: ${cookie:-none} \\(good\\)" "${d[@]}" +cookie="${cookie:-00}" www.example.test A
expect "dig malformed cookie: FORMERR"    'status: FORMERR'                "${d[@]}" +nocookie +ednsopt=10:0102030405 www.example.test A

expect "kdig udp A"                      'status: NOERROR'                "${k[@]}" www.example.test A
expect "kdig tcp A"                      'TCP'                            "${k[@]}" +tcp www.example.test A
expect "kdig EDNS"                       'Version: 0; flags: ; UDP size: 1232' "${k[@]}" +edns www.example.test A
expect "kdig truncation"                 'Flags: qr aa tc;'               "${k[@]}" +notcp +noedns +ignore big.example.test TXT
expect "kdig NXDOMAIN"                   'status: NXDOMAIN'               "${k[@]}" nope.example.test A
expect "kdig REFUSED"                    'status: REFUSED'                "${k[@]}" www.example.org A
expect "kdig NSID when asked"            'NSID: .*interop-node'           "${k[@]}" +nsid www.example.test A
expect "kdig cookie: server cookie"      'COOKIE: [0-9A-Fa-f]{48}'        "${k[@]}" +cookie www.example.test A
expect "kdig MX: additional data"        '^mail\.example\.test\.[[:space:]].*A[[:space:]]+192\.0\.2\.25' "${k[@]}" example.test MX
expect "kdig SRV: additional data"       '^sip\.example\.test\.[[:space:]].*AAAA[[:space:]]+2001:db8::60' "${k[@]}" _sip._tcp.example.test SRV
expect "kdig wildcard"                   '192\.0\.2\.90'                  "${k[@]}" x.apps.example.test A

# DNS over HTTPS and HTTPDNS, verifying the certificate Sluice generated in its state directory.
cert="$work/var/state/https.crt"
# One unchecked request first, so the JVM's first TLS handshake is not inside kdig's timeout
# (kdig 3.2 can crash with "double free" when a TLS handshake times out).
curl -sS --cacert "$cert" -o /dev/null --max-time 30 "https://127.0.0.1:$https_port/resolve?name=www.example.test&type=A" || true
h=(kdig +time=5 +retry=0 @127.0.0.1 -p "$https_port" +tls-ca="$cert" +tls-hostname=localhost)
expect "kdig DoH POST (HTTP/2)"          'HTTP/2-POST.*status: 200'       "${h[@]}" +https www.example.test A
expect "kdig DoH GET"                    'HTTP/2-GET.*status: 200'        "${h[@]}" +https-get www.example.test A
expect "kdig DoH answer"                 '192\.0\.2\.80'                  "${h[@]}" +https www.example.test A
expect "kdig DoH big TXT, not truncated" 'ANSWER: 40;'                    "${h[@]}" +https big.example.test TXT
doh_query="AAABAAABAAAAAAAAA3d3dwdleGFtcGxlBHRlc3QAAAEAAQ"
expect "curl DoH GET over HTTP/2"        '^200 2$'                        curl -sS --http2 --cacert "$cert" -o /dev/null -w '%{http_code} %{http_version}' "https://127.0.0.1:$https_port/dns-query?dns=$doh_query"
expect "curl HTTPDNS"                    '"data":"192\.0\.2\.80"'         curl -sS --cacert "$cert" "https://127.0.0.1:$https_port/resolve?name=www.example.test&type=A"

# Cookies made by Knot and by Sluice with the same secret are valid at the other (RFC 9018):
# presented a second after they were made, each server sends the other's cookie back unchanged
# (a cookie it did not recognise would be replaced by a fresh one with a later timestamp).
secret_file="$work/var/state/cookie.secret"
if ! command -v knotd >/dev/null; then
  echo "skip cookie interop with Knot: knotd is not installed (Debian package knot)"
elif [ ! -s "$secret_file" ]; then
  echo "FAIL cookie interop with Knot: Sluice created no $secret_file"
  failures=$(( failures + 1 ))
else
  kport=$(free_port) || exit 1
  mkdir -p "$work/knot"
  printf '$TTL 300\n@ SOA ns1.example.test. h.example.test. 1 7200 1800 1209600 60\n@ NS ns1.example.test.\nns1 A 192.0.2.53\nwww A 192.0.2.80\n' \
    >"$work/knot/example.test.zone"
  cat >"$work/knot/knot.conf" <<CONF
server:
    listen: 127.0.0.1@$kport
    rundir: $work/knot
database:
    storage: $work/knot
mod-cookies:
  - id: shared
    secret: 0x$(head -n1 "$secret_file")
template:
  - id: default
    storage: $work/knot
    global-module: mod-cookies/shared
zone:
  - domain: example.test
    file: example.test.zone
CONF
  knotd -c "$work/knot/knot.conf" >"$work/knot/knot.log" 2>&1 &
  knot_pid=$!
  kd=(dig +norec +time=2 +tries=1 +nobadcookie @127.0.0.1 -p "$kport")
  for _ in $(seq 1 50); do "${kd[@]}" +short www.example.test A 2>/dev/null | grep -q '^192' && break; sleep 0.1; done
  from_knot=$("${kd[@]}" +cookie=0102030405060708 www.example.test A | sed -n 's/^; COOKIE: \([0-9a-f]*\).*/\1/p')
  from_sluice=$("${d[@]}" +cookie=0807060504030201 www.example.test A | sed -n 's/^; COOKIE: \([0-9a-f]*\).*/\1/p')
  sleep 1.2
  expect "cookie made by Knot is valid at Sluice" "COOKIE: ${from_knot:-none} \\(good\\)" \
    "${d[@]}" +cookie="${from_knot:-00}" www.example.test A
  expect "cookie made by Sluice is valid at Knot" "COOKIE: ${from_sluice:-none} \\(good\\)" \
    "${kd[@]}" +cookie="${from_sluice:-00}" www.example.test A
fi

# DNSSEC (docs/dnssec.md): RRSIGs only with DO; compact denial (NSEC with NXNAME, type 128).
expect "kdig +dnssec static A"           'RRSIG.*A 13 3 '                 "${k[@]}" +dnssec www.signed.test A
refute "kdig without DO: no RRSIG"        'RRSIG'                          "${k[@]}" www.signed.test A
expect "kdig +dnssec DNSKEY"             'DNSKEY.*257 3 13'               "${k[@]}" +dnssec signed.test DNSKEY
expect "kdig +dnssec GSLB answer"        'RRSIG.*A 13 3 30 '              "${k[@]}" +dnssec app.signed.test A
expect "kdig +dnssec wildcard labels"    'RRSIG.*A 13 3 '                 "${k[@]}" +dnssec x.apps.signed.test A
expect "kdig +dnssec compact NXDOMAIN"   'NSEC.*\\000\.nope\.signed\.test\..*(NXNAME|TYPE128)' "${k[@]}" +dnssec nope.signed.test A
expect "kdig +dnssec NODATA NSEC"        'NSEC.*A RRSIG NSEC'             "${k[@]}" +dnssec www.signed.test TXT

# unbound with Sluice as a stub zone, on its own loopback port.
uport=$(free_port) || exit 1
cat >"$work/unbound.conf" <<CONF
server:
  interface: 127.0.0.1
  port: $uport
  do-ip6: no
  do-daemonize: no
  chroot: ""
  username: ""
  directory: "$work"
  pidfile: "$work/unbound.pid"
  logfile: "$work/unbound.log"
  use-syslog: no
  module-config: "iterator"
  access-control: 127.0.0.0/8 allow
  do-not-query-localhost: no
  qname-minimisation: no
  # .test is special-use (RFC 6761): unbound answers it locally unless told otherwise.
  local-zone: "test." nodefault
stub-zone:
  name: "example.test."
  stub-addr: 127.0.0.1@$port
CONF
unbound -d -c "$work/unbound.conf" >"$work/unbound.out" 2>&1 &
unbound_pid=$!
if ! wait_answer "$uport" www.example.test 20; then
  echo "FAIL unbound did not resolve through Sluice; its log:"
  cat "$work/unbound.out" "$work/unbound.log" 2>/dev/null | sed 's/^/     | /'
  failures=$(( failures + 1 ))
else
  u=(dig +time=2 +tries=1 @127.0.0.1 -p "$uport")
  expect "unbound: static A"             '192\.0\.2\.80'                  "${u[@]}" www.example.test A
  expect "unbound: CNAME"                'blog\.example\.test\..*CNAME'   "${u[@]}" blog.example.test A
  expect "unbound: service"              '198\.51\.100\.1'                "${u[@]}" app.example.test A
  expect "unbound: wildcard"             '192\.0\.2\.90'                  "${u[@]}" z.apps.example.test A
  expect "unbound: NXDOMAIN"             'status: NXDOMAIN'               "${u[@]}" nope.example.test A
fi

if [ "$failures" -ne 0 ]; then
  echo "interop: $failures check(s) failed"
  exit 1
fi
echo "interop: all checks passed"
