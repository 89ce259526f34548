#!/usr/bin/env python3
"""Where queries wait during a load run: the bytes queued in UDP receive buffers over time.

    bench/peers/queues.py PORT SECONDS

Samples /proc/net/udp every 5 ms for SECONDS and prints, for the server's socket(s) on local
PORT and for every other UDP socket on the machine (during a run of the harness: dnsperf's, which
receive the replies), the mean, median, 90th and 99th percentile and maximum of the bytes queued.
The figures are socket memory (each datagram's kernel buffer, about 800 bytes for a DNS query on
loopback), not payload. Start it beside a dnsperf run (docs/benchmark.md, "Latency at the ceiling
and lost queries"); it costs a few percent of one core.
"""
import sys
import time


def sample(port):
    server = others = 0
    with open("/proc/net/udp") as f:
        next(f)
        for line in f:
            fields = line.split()
            local_port = int(fields[1].split(":")[1], 16)
            queued = int(fields[4].split(":")[1], 16)
            if local_port == port:
                server += queued
            else:
                others += queued
    return server, others


def summary(name, values):
    values = sorted(values)
    n = len(values)
    return (
        f"{name:14s} mean {sum(values) / n:8.0f}  p50 {values[n // 2]:7d}  "
        f"p90 {values[int(n * 0.9)]:7d}  p99 {values[int(n * 0.99)]:7d}  max {values[-1]:7d}"
    )


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        sys.exit(2)
    port, seconds = int(sys.argv[1]), float(sys.argv[2])
    server, others = [], []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        s, o = sample(port)
        server.append(s)
        others.append(o)
        time.sleep(0.005)
    print(f"bytes queued, {len(server)} samples:")
    print(summary("server", server))
    print(summary("other sockets", others))


if __name__ == "__main__":
    main()
