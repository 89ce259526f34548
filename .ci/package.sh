#!/usr/bin/env bash
# Package check (docs/install.md), as root on a machine without Sluice: installs the Debian package
# that `mvn verify` built (gslb-dns-server/target/sluice.deb) with dpkg, checks the installed
# configuration with `sluice check` and the unit with `systemd-analyze verify`, starts the installed
# server as the unit does (user sluice, CAP_NET_BIND_SERVICE only, no new privileges: systemd need
# not be PID 1 here), asks it for a record with dig on 127.0.0.1:53, stops it, and purges the
# package. The install log is printed. Exits non-zero naming every failed check.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deb="$root/gslb-dns-server/target/sluice.deb"
unit=/usr/lib/systemd/system/sluice.service
work="$(mktemp -d)"
pid=""
passed=0 failed=0

check() {
  if "$@" >"$work/out" 2>&1; then
    passed=$((passed + 1)) && echo "ok   $what"
  else
    failed=$((failed + 1)) && echo "FAIL $what" && sed 's/^/     | /' "$work/out"
  fi
}
finish() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  fi
  dpkg -s sluice >/dev/null 2>&1 && dpkg --purge sluice >/dev/null 2>&1
  rm -rf /var/lib/sluice.replaced-* /var/lib/sluice.restoring-*
  rm -rf "$work"
}
trap finish EXIT

if [ "$(id -u)" != 0 ]; then
  echo "package: needs root (dpkg -i); skipped" >&2
  exit 0
fi
if dpkg -s sluice >/dev/null 2>&1; then
  echo "package: a sluice package is already installed here; not touching it" >&2
  exit 1
fi
if ss -Hlnu 'sport = :53' | grep -q . || ss -Hlnt 'sport = :53' | grep -q .; then
  echo "package: port 53 is in use here; the installed server could not bind it" >&2
  exit 1
fi

what="dpkg -i installs the package (apt-get install -f for missing dependencies)"
check eval 'dpkg -i "$deb" >"$work/install.log" 2>&1 ||
  apt-get install -f -y -qq >>"$work/install.log" 2>&1'
what="the sluice system user, its state directory and the launcher"
check eval 'getent passwd sluice | grep -q ":/usr/sbin/nologin$" &&
  [ "$(stat -c %U:%a /var/lib/sluice)" = sluice:750 ] && [ -x /usr/bin/sluice ] &&
  grep -qx /etc/sluice/sluice.yaml /var/lib/dpkg/info/sluice.conffiles'
what="sluice check accepts the installed configuration"
check /usr/bin/sluice check --config /etc/sluice/sluice.yaml
what="systemd-analyze verify finds nothing to say about the unit"
check eval '(cd "$work" && systemd-analyze verify "$unit") >"$work/verify" 2>&1;
  s=$?; cat "$work/verify"; [ $s -eq 0 ] && [ ! -s "$work/verify" ]'
what="the unit keeps CAP_NET_BIND_SERVICE only and writes only /var/lib/sluice"
check eval 'grep -qx "CapabilityBoundingSet=CAP_NET_BIND_SERVICE" "$unit" &&
  grep -qx "AmbientCapabilities=CAP_NET_BIND_SERVICE" "$unit" &&
  grep -qx "ProtectSystem=strict" "$unit" && grep -qx "NoNewPrivileges=true" "$unit" &&
  grep -qx "ReadWritePaths=/var/lib/sluice" "$unit"'

# As the unit's ExecStart runs it: the same user, capability sets, umask and environment file.
exec_start="$(sed -n 's/^ExecStart=//p' "$unit")"
(
  umask 027
  # shellcheck disable=SC2086
  exec setpriv --reuid=sluice --regid=sluice --init-groups --no-new-privs \
    --inh-caps=-all,+net_bind_service --ambient-caps=-all,+net_bind_service \
    --bounding-set=-all,+net_bind_service $exec_start
) >"$work/server.log" 2>&1 &
pid=$!
what="the installed server answers on 127.0.0.1:53"
check eval '(for _ in $(seq 120); do
    a="$(dig +short +time=1 +tries=1 @127.0.0.1 -p 53 www.example.test A 2>/dev/null)"
    [ "$a" = 192.0.2.80 ] && exit 0
    kill -0 $pid 2>/dev/null || break
    sleep 0.5
  done; cat "$work/server.log"; exit 1)'
dig +norec @127.0.0.1 -p 53 www.example.test A | grep -E 'status|^www'
what="it runs as sluice with CAP_NET_BIND_SERVICE alone (CapEff 0x400)"
check eval '[ "$(ps -o user= -p $pid)" = sluice ] &&
  grep -qx "CapEff:[[:space:]]*0000000000000400" /proc/$pid/status'
what="the server maps the class-data archive postinst wrote"
check eval '[ "$(stat -c %s /var/cache/sluice/sluice-server.jsa)" = "$(cat /var/cache/sluice/sluice-server.jsa.size)" ] &&
  grep -q /var/cache/sluice/sluice-server.jsa /proc/$pid/maps'
what="sluice ctl status reaches it through /var/lib/sluice, its classes mapped from the archive"
check eval 'SLUICE_JAVA_OPTS="-Xlog:class+load=info:file=$work/classes.log" /usr/bin/sluice ctl status &&
  grep -q "io.sluice.admin.cli.CtlMain source: shared objects file" "$work/classes.log" &&
  grep -q "picocli.CommandLine source: shared objects file" "$work/classes.log"'

what="sluice backup of the running node, through its admin API"
check eval '/usr/bin/sluice backup "$work/backup.zip" | grep -q "(running node)" &&
  [ "$(stat -c %a "$work/backup.zip")" = 600 ]'
what="SIGTERM stops it cleanly"
check eval 'kill -TERM $pid; wait $pid; w=$?; [ $w -eq 0 ] || [ $w -eq 143 ]'
pid=""
what="sluice restore --replace puts it back into /var/lib/sluice, owned by sluice"
check eval '/usr/bin/sluice restore --replace "$work/backup.zip" &&
  [ "$(stat -c %U:%G /var/lib/sluice/traffic/journal.log)" = sluice:sluice ] &&
  [ -d /var/lib/sluice.replaced-* ] && rm -rf /var/lib/sluice.replaced-*'
what="installing it again (the upgrade path) keeps an edited configuration and the state"
check eval 'echo "# edited by the operator" >>/etc/sluice/sluice.yaml &&
  dpkg -i "$deb" >>"$work/install.log" 2>&1 &&
  tail -1 /etc/sluice/sluice.yaml | grep -qx "# edited by the operator" &&
  [ -s /var/lib/sluice/traffic/store.properties ] && [ -s /var/cache/sluice/sluice-ctl.jsa ] &&
  [ -s /var/cache/sluice/sluice-server.jsa ]'
what="dpkg --purge removes the package, its configuration and its state"
check eval 'dpkg --purge sluice >>"$work/install.log" 2>&1 &&
  [ ! -e /etc/sluice ] && [ ! -e /var/lib/sluice ] && [ ! -e /var/cache/sluice ] &&
  [ ! -e /usr/bin/sluice ] && [ ! -e /etc/systemd/system/multi-user.target.wants/sluice.service ]'

echo "---- install, upgrade and purge log"
sed 's/^/     | /' "$work/install.log"
echo "package check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
