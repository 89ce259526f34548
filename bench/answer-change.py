#!/usr/bin/env python3
"""Time from starting a command to the first DNS answer that has changed:
  bench/answer-change.py PORT NAME EXPECTED COMMAND [ARG...]
Starts COMMAND, then asks 127.0.0.1:PORT for NAME/A every 2 ms from this one process (no dig
per poll, which on a busy machine competes with the command for the cores) until the first A
record is EXPECTED; prints the milliseconds from the start of COMMAND to that answer, then waits
for COMMAND and exits with its status (2 when no such answer came within 30 s)."""
import os, random, socket, struct, subprocess, sys, time

def query(name):
    qid = random.randrange(65536)
    wire = b"".join(bytes([len(l)]) + l.encode() for l in name.rstrip(".").split(".")) + b"\0"
    return qid, struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 0) + wire + struct.pack(">HH", 1, 1)

def skip_name(m, i):
    while True:
        n = m[i]
        if n == 0:
            return i + 1
        if n & 0xC0 == 0xC0:
            return i + 2
        i += 1 + n

def first_a(m, qid):
    if len(m) < 12:
        return None
    rid, _, qd, an = struct.unpack(">HHHH", m[:8])
    if rid != qid:
        return None
    i = 12
    for _ in range(qd):
        i = skip_name(m, i) + 4
    for _ in range(an):
        i = skip_name(m, i)
        rtype, _, _, rdlen = struct.unpack(">HHIH", m[i:i + 10])
        i += 10
        if rtype == 1 and rdlen == 4:
            return socket.inet_ntoa(m[i:i + 4])
        i += rdlen
    return None

def main():
    port, name, expected, command = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(0.5)
    t0 = time.monotonic()
    proc = subprocess.Popen(command)
    changed = None
    while time.monotonic() - t0 < 30:
        qid, q = query(name)
        s.sendto(q, ("127.0.0.1", port))
        try:
            # A late reply to an earlier query has another id and counts as no answer.
            got = first_a(s.recv(4096), qid)
        except socket.timeout:
            continue
        if got == expected:
            changed = time.monotonic() - t0
            break
        time.sleep(0.002)
    status = proc.wait()
    if changed is None:
        print("no changed answer within 30 s", file=sys.stderr)
        sys.exit(2)
    print(round(changed * 1000))
    sys.exit(status)

main()
