#!/usr/bin/env bash
# Launcher check of the server's class-data-sharing archive (docs/dns.md, "Start-up time"), after
# the package step: the build wrote the archive and its size next to the jar, `./sluice run` maps
# the server's classes from it and answers, and neither a truncated archive nor one with damaged
# contents keeps the server from starting; where the kernel offers transparent huge pages, the
# server's heap is in them; G1 starts marking the old generation at the launcher's threshold, or
# at one SLUICE_JAVA_OPTS gives; the JVM's statistics sampler runs once a second. The node serves
# the shipped example on a loopback port the checks pick, with a state directory of its own.
# Exits non-zero, naming every failed check.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
jar="$root/gslb-dns-server/target/sluice.jar"
archive="$root/gslb-dns-server/target/sluice-server.jsa"
work="$(mktemp -d)"
port=15453
admin=15454
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
passed=0 failed=0

check() {
  if "$@"; then
    passed=$((passed + 1)) && echo "ok   $what"
  else
    failed=$((failed + 1)) && echo "FAIL $what" && sed 's/^/     | /' "$work/log" 2>/dev/null | tail -20
  fi
}

# Starts the example node through the launcher, waits up to 60 s for an answer from it, stops it;
# true when it answered. The JVM's class loading is logged to $work/classes.log.
serve() {
  rm -rf "$work/state" "$work/classes.log"
  SLUICE_JAVA_OPTS="-Xlog:class+load=info:file=$work/classes.log ${extra_opts:-}" \
    "$root/sluice" run --port "$port" --admin-port "$admin" --listen 127.0.0.1 \
    --state-dir "$work/state" >"$work/log" 2>&1 &
  pid=$!
  local answered=1 i
  for i in $(seq 600); do
    if dig +short +time=1 +tries=1 @127.0.0.1 -p "$port" www.example.com A 2>/dev/null |
      grep -q '^[0-9]'; then
      answered=0
      tr '\0' ' ' <"/proc/$pid/cmdline" >"$work/cmdline"
      # The flags the JVM runs with, as it reports them (the last of a repeated flag wins).
      timeout 20 jcmd "$pid" VM.flags >"$work/flags" 2>&1 || true
      awk '/^AnonHugePages:/ { print $2 }' "/proc/$pid/smaps_rollup" >"$work/huge"
      break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  pid=
  return "$answered"
}
shared() {
  grep -q "io.sluice.server.app.SluiceNode source: shared objects file" "$work/classes.log"
}

what="the package step wrote an archive newer than the jar, and its size"
check eval '[ "$archive" -nt "$jar" ] && [ "$(stat -c %s "$archive")" = "$(cat "$archive.size")" ]'
what="the server through the launcher maps its classes from the archive and answers"
check eval 'serve && shared'

if grep -qs '\[\(always\|madvise\)\]' /sys/kernel/mm/transparent_hugepage/enabled; then
  what="the kernel offers transparent huge pages: the server asks for them and its heap is in them"
  check eval 'grep -q -- "-XX:+UseTransparentHugePages" "$work/cmdline" && [ "$(cat "$work/huge")" -gt 0 ]'
else
  what="the kernel offers no transparent huge pages: the server does not ask for them"
  check eval '! grep -q -- "-XX:+UseTransparentHugePages" "$work/cmdline"'
fi

what="G1 starts marking the old generation at 75 % of the heap"
check eval 'tr " " "\n" <"$work/flags" | grep -qx -- "-XX:InitiatingHeapOccupancyPercent=75"'
what="the JVM's statistics sampler wakes once a second"
check eval 'tr " " "\n" <"$work/flags" | grep -qx -- "-XX:PerfDataSamplingInterval=1000"'
what="a threshold in SLUICE_JAVA_OPTS wins over the launcher's"
extra_opts="-XX:InitiatingHeapOccupancyPercent=45"
check eval 'serve && tr " " "\n" <"$work/flags" | grep -qx -- "-XX:InitiatingHeapOccupancyPercent=45"'
extra_opts=

cp -p "$archive" "$work/kept.jsa"
chmod u+w "$archive"
truncate -s 4096 "$archive"
what="a truncated archive: the server starts without it and answers"
check eval 'serve && ! shared'

cp -p "$work/kept.jsa" "$archive"
chmod u+w "$archive"
# Same size, damaged contents past the header.
printf '\377%.0s' $(seq 4096) | dd of="$archive" bs=1 seek=$((8 * 1024 * 1024)) conv=notrunc status=none
what="an archive with damaged contents: the server starts and answers"
check eval 'serve && ! shared'
# Put the package step's archive back, as the build left it.
cp -p "$work/kept.jsa" "$archive"

echo "server launcher: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
