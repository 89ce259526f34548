#!/usr/bin/env python3
"""Writes the dnsperf query files of the peer benchmark into the directory argv[1] (seed 42).

static.txt       static.example.test A
www.txt          www.example.test A (the weighted GSLB name)
wr.txt           wr.example.test A (PowerDNS only: pickwrandom)
geo.txt          geo.example.test A, sent with one ECS option (dnsperf -E, 10.2.0.0/24)
geo-subnets.bin  geo.example.test A, each query with its own ECS client subnet: 1024 /24s, 256
                 in each of 10.1/16, 10.2/16, 10.3/16 and 10.4/16 (the last in no region), in
                 shuffled order; dnsperf -B format (two-byte length, then the DNS message)
mix.txt          100,000 lines: static and dynamic names, several types, about 6% NXDOMAIN
"""
import os
import random
import struct
import sys

ZONE = "example.test"


def single(out, name, qtype, filename, n=1000):
    with open(os.path.join(out, filename), "w") as f:
        f.write(f"{name}.{ZONE} {qtype}\n" * n)


def wire_name(name):
    return b"".join(bytes([len(l)]) + l.encode() for l in name.split(".")) + b"\0"


def ecs_query(name, net):
    """A query for NAME A with EDNS (1232 bytes) and the ECS option NET/24, scope 0."""
    header = struct.pack("!HHHHHH", 0, 0, 1, 0, 0, 1)  # id set by dnsperf; 1 question, 1 OPT
    question = wire_name(name) + struct.pack("!HH", 1, 1)
    ecs = struct.pack("!HBB", 1, 24, 0) + bytes(net)  # family IPv4, source /24, scope 0
    option = struct.pack("!HH", 8, len(ecs)) + ecs
    opt = b"\0" + struct.pack("!HHIH", 41, 1232, 0, len(option)) + option
    return header + question + opt


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    single(out, "static", "A", "static.txt")
    single(out, "www", "A", "www.txt")
    single(out, "wr", "A", "wr.txt")
    single(out, "geo", "A", "geo.txt")

    rng = random.Random(42)
    nets = [(10, b, c) for b in (1, 2, 3, 4) for c in range(256)]
    rng.shuffle(nets)
    with open(os.path.join(out, "geo-subnets.bin"), "wb") as f:
        for net in nets:
            q = ecs_query(f"geo.{ZONE}", net)
            f.write(struct.pack("!H", len(q)) + q)

    # (weight, line): the dynamic names are about 45% of the mix
    mix = [
        (30, lambda: f"static.{ZONE} A"),
        (30, lambda: f"www.{ZONE} A"),
        (15, lambda: f"geo.{ZONE} A"),
        (5, lambda: f"static6.{ZONE} AAAA"),
        (4, lambda: f"www.{ZONE} AAAA"),  # NODATA on a dynamic name
        (3, lambda: f"{ZONE} MX"),
        (2, lambda: f"{ZONE} SOA"),
        (2, lambda: f"{ZONE} NS"),
        (2, lambda: f"txt.{ZONE} TXT"),
        (1, lambda: f"mail.{ZONE} A"),
        (6, lambda: f"r{rng.randrange(10**9)}.{ZONE} A"),  # NXDOMAIN
    ]
    weights = [w for w, _ in mix]
    lines = [g for _, g in mix]
    with open(os.path.join(out, "mix.txt"), "w") as f:
        for _ in range(100_000):
            f.write(rng.choices(lines, weights)[0]() + "\n")


if __name__ == "__main__":
    main()
