#!/usr/bin/env bash
# Installs the peer servers and the load tools from Debian packages (apt-get; run as root) when
# any is missing. Daemons that packaging starts are stopped again, by PID.
set -euo pipefail
pkgs="dnsperf knot knot-dnsutils gdnsd pdns-server pdns-backend-bind nsd bind9-dnsutils python3
  util-linux procps iproute2"
daemons="knotd nsd gdnsd pdns_server"
daemon_pids() { for d in $daemons; do pgrep -x "$d" || true; done; }
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  before=" $(daemon_pids | tr '\n' ' ') "
  apt-get update
  # shellcheck disable=SC2086 # a list of package names
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
  for pid in $(daemon_pids); do
    case "$before" in *" $pid "*) continue ;; esac
    echo "stopping daemon started by packaging, pid $pid: $(tr '\0' ' ' </proc/"$pid"/cmdline)"
    kill "$pid" || true
  done
fi
dpkg-query -W -f='${Package} ${Version}\n' dnsperf knot gdnsd pdns-server pdns-backend-bind nsd
