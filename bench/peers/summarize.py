#!/usr/bin/env python3
"""Summarize peer-benchmark results.
summarize.py DIR          -> markdown table for one run.sh pass
summarize.py DIR DIR ...  -> per-pass table for each, then a spread table, a headline table and
                             Sluice's ratios against the peers across passes
"""
import csv, os, re, statistics, sys

NCPU = os.cpu_count() or 1

def parse_log(path):
    d = {}
    try:
        txt = open(path).read()
    except FileNotFoundError:
        return d
    m = re.search(r"Queries per second:\s+([\d.]+)", txt);          d["qps"] = float(m.group(1)) if m else None
    m = re.search(r"Queries completed:\s+(\d+)", txt);             d["completed"] = int(m.group(1)) if m else None
    m = re.search(r"Run time \(s\):\s+([\d.]+)", txt);             d["run_s"] = float(m.group(1)) if m else None
    m = re.search(r"Average Latency \(s\):\s+([\d.]+) \(min ([\d.]+), max ([\d.]+)\)", txt)
    if m: d["avg_ms"], d["max_ms"] = float(m.group(1)) * 1e3, float(m.group(3)) * 1e3
    m = re.search(r"Queries lost:\s+(\d+) \(([\d.]+)%\)", txt);    d["lost"] = f"{m.group(2)}%" if m else "?"
    m = re.search(r"Response codes:\s+(.*)", txt);                  d["rcodes"] = m.group(1).strip() if m else "?"
    return d

def load(dirpath):
    rows = []
    with open(os.path.join(dirpath, "runs.tsv")) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            d = parse_log(os.path.join(dirpath, r["log"]))
            # The window of the CPU figures is the whole dnsperf process, which after its run time
            # waits up to its timeout (-t) for queries that were lost: a server that lost some sits
            # idle in that tail. So the server's cores are taken over dnsperf's run time (the tail
            # adds none of its ticks), and its CPU per query is its ticks over the queries it
            # answered: a server is neither charged for answering every query nor credited for
            # losing some. dnsperf keeps its core busy in the tail too, so it and the rest of the
            # machine are taken over the whole window.
            wall = float(r["wall"]) or 1
            span = d.get("run_s") or wall
            srv_s = int(r["srv_ticks"]) / 100
            srv = srv_s / span
            perf = (float(r["perf_user"]) + float(r["perf_sys"])) / wall
            busy = int(r["sys_busy"]) / max(1, int(r["sys_total"])) * NCPU
            d.update(variant=r["variant"], server=r["server"], kind=r["kind"], threads=r["threads"],
                     srv_cpu=srv, perf_cpu=perf, other_cpu=max(0.0, busy - srv_s / wall - perf),
                     us_per_q=(srv_s / d["completed"] * 1e6) if d.get("completed") else None)
            rows.append(d)
    return rows

KIND = {"static": "static A", "www": "dynamic weighted A", "wr": "dynamic pickwrandom A",
        "geo": "geo A + ECS", "geo-subnets": "geo A + 1024 ECS subnets",
        "mix": "mixed 100k names/types"}
NOTE = {("knot", "www"): "static 3xA (no GSLB)", ("nsd", "www"): "static 3xA (no GSLB)",
        ("knot", "geo"): "static A, ECS ignored", ("nsd", "geo"): "static A, ECS ignored",
        ("knot", "geo-subnets"): "static A, ECS ignored", ("nsd", "geo-subnets"): "static A, ECS ignored",
        ("gdnsd", "geo-subnets"): "geoip nets map", ("pdns", "geo-subnets"): "LUA view(), fresh state/query",
        ("pdns-shared", "geo-subnets"): "LUA view(), shared state",
        ("gdnsd", "www"): "weighted plugin 3/2/1", ("gdnsd", "geo"): "geoip nets map",
        ("pdns", "www"): "LUA pickwhashed, fresh Lua state/query", ("pdns", "wr"): "LUA pickwrandom, fresh state/query",
        ("pdns", "geo"): "LUA view(), fresh state/query", ("pdns", "mix"): "lua-records=yes",
        ("pdns-shared", "www"): "LUA pickwhashed, shared state", ("pdns-shared", "wr"): "LUA pickwrandom, shared state",
        ("pdns-shared", "geo"): "LUA view(), shared state", ("pdns-shared", "mix"): "lua-records=shared",
        ("knot", "mix"): "www/geo static here", ("nsd", "mix"): "www/geo static here",
        ("gdnsd", "mix"): "www weighted, geo nets"}
for _k in ("www", "geo", "geo-subnets", "mix"):
    NOTE[("gdnsd-rcvbuf", _k)] = NOTE[("gdnsd", _k)] + "; udp_rcvbuf 1 MiB"
NOTE[("gdnsd-rcvbuf", "static")] = "udp_rcvbuf 1 MiB"

def fmt(v, f="{:.0f}"):
    return "n/a" if v is None else f.format(v)

def one(dirpath):
    rows = load(dirpath)
    print(f"\n### pass {os.path.basename(dirpath)}\n")
    print("| variant | server | query kind | QPS | avg lat ms | max lat ms | lost | CPU cores srv/dnsperf/other | srv CPU us/query | rcodes | notes |")
    print("|---|---|---|---:|---:|---:|---:|---|---:|---|---|")
    for d in rows:
        print(f"| {d['variant']} (thr {d['threads']}) | {d['server']} | {KIND.get(d['kind'], d['kind'])} | {fmt(d.get('qps'))} | "
              f"{fmt(d.get('avg_ms'), '{:.3f}')} | {fmt(d.get('max_ms'), '{:.2f}')} | {d.get('lost', '?')} | "
              f"{d['srv_cpu']:.2f}/{d['perf_cpu']:.2f}/{d['other_cpu']:.2f} | {fmt(d.get('us_per_q'), '{:.2f}')} | {d.get('rcodes', '?')} | {NOTE.get((d['server'], d['kind']), '')} |")
    fo = os.path.join(dirpath, "failover.txt")
    if os.path.exists(fo):
        print("\nfailover:\n")
        for line in open(fo):
            print("    " + line.rstrip())
    return rows

def spread(all_rows):
    keys, by = [], {}
    for rows in all_rows:
        for d in rows:
            k = (d["variant"], d["server"], d["kind"])
            if k not in by: keys.append(k); by[k] = []
            by[k].append(d)
    print(f"\n### spread over {len(all_rows)} passes (QPS median [min-max], spread = (max-min)/median)\n")
    print("| variant | server | query kind | QPS median | QPS per pass | spread | avg lat ms (per pass) | max lat ms (per pass) | srv CPU us/query (median) | notes |")
    print("|---|---|---|---:|---|---:|---|---|---:|---|")
    for k in keys:
        ds = by[k]; q = [d["qps"] for d in ds if d.get("qps")]
        med = statistics.median(q) if q else None
        sp = (max(q) - min(q)) / med * 100 if q and med else None
        print(f"| {k[0]} | {k[1]} | {KIND.get(k[2], k[2])} | {fmt(med)} | {' / '.join(fmt(x) for x in q)} | {fmt(sp, '{:.1f}%')} | "
              f"{' / '.join(fmt(d.get('avg_ms'), '{:.3f}') for d in ds)} | {' / '.join(fmt(d.get('max_ms'), '{:.2f}') for d in ds)} | "
              f"{fmt(statistics.median([d['us_per_q'] for d in ds if d.get('us_per_q')] or [0]), '{:.2f}')} | {NOTE.get((k[1], k[2]), '')} |")

def headline(all_rows):
    """Compact table: medians over passes, both variants side by side."""
    by = {}
    order = []
    for rows in all_rows:
        for d in rows:
            k = (d["server"], d["kind"])
            if k not in by: order.append(k); by[k] = {}
            by[k].setdefault(d["variant"], []).append(d)
    med = lambda xs: statistics.median(xs) if xs else None
    print(f"\n### headline: medians over {len(all_rows)} passes (shared = server 2 threads + dnsperf on 2 cores; pinned = server 1 thread on cpu1, dnsperf on cpu0)\n")
    print("| server | query kind | QPS shared | QPS pinned | avg lat ms shared / pinned | max lat ms shared / pinned (worst pass) | srv CPU us/query shared / pinned | notes |")
    print("|---|---|---:|---:|---|---|---|---|")
    for k in order:
        v = by[k]
        def g(var, key, f=med):
            xs = [d[key] for d in v.get(var, []) if d.get(key) is not None]
            return f(xs) if xs else None
        print(f"| {k[0]} | {KIND.get(k[1], k[1])} | {fmt(g('shared', 'qps'))} | {fmt(g('pinned', 'qps'))} | "
              f"{fmt(g('shared', 'avg_ms'), '{:.3f}')} / {fmt(g('pinned', 'avg_ms'), '{:.3f}')} | "
              f"{fmt(g('shared', 'max_ms', max), '{:.1f}')} / {fmt(g('pinned', 'max_ms', max), '{:.1f}')} | "
              f"{fmt(g('shared', 'us_per_q'), '{:.1f}')} / {fmt(g('pinned', 'us_per_q'), '{:.1f}')} | {NOTE.get(k, '')} |")

# The peer each kind is judged against: Knot serves a static answer fastest, gdnsd is the GSLB.
REFERENCE = {"static": "knot", "www": "gdnsd", "geo": "gdnsd", "geo-subnets": "gdnsd", "mix": "gdnsd"}

def by_pass(all_rows):
    """(variant, kind) -> one {server: row} per pass."""
    per = {}
    for rows in all_rows:
        seen = {}
        for d in rows:
            seen.setdefault((d["variant"], d["kind"]), {})[d["server"]] = d
        for k, v in seen.items():
            per.setdefault(k, []).append(v)
    return per

def med(xs):
    return statistics.median(xs) if xs else None

def rat(passes, a, b, key):
    """Per pass, server a's figure over server b's."""
    return [p[a][key] / p[b][key] for p in passes
            if a in p and b in p and p[a].get(key) and p[b].get(key)]

def show(xs):
    return "n/a" if not xs else f"**{med(xs):.2f}x** ({', '.join(f'{x:.2f}' for x in xs)})"

def ratios(all_rows):
    """Sluice against the peers, per variant and kind: CPU per query against the kind's reference
    (median of the per-pass ratios, each pass's servers measured minutes apart), the average
    latency against gdnsd and against gdnsd with a receive buffer that drops nothing (when it ran),
    and the queries each lost. A server that drops queries at the ceiling frees dnsperf's slots
    and shows a shorter queue, so the latency is only comparable between servers that lose none."""
    per = by_pass(all_rows)
    keys = [k for k in per if k[1] in REFERENCE and any("sluice" in p for p in per[k])]
    if not keys:
        return
    print(f"\n### Sluice against the peers: medians over {len(all_rows)} passes (per-pass ratios in brackets)\n")
    print("| variant | query kind | CPU per query against | CPU per query against gdnsd-rcvbuf | latency against gdnsd | latency against gdnsd-rcvbuf | lost: sluice / gdnsd / gdnsd-rcvbuf / knot |")
    print("|---|---|---|---|---|---|---|")
    for k in keys:
        ps, ref = per[k], REFERENCE[k[1]]
        def lost_of(server):
            xs = sorted({p[server].get("lost", "?") for p in ps if server in p},
                        key=lambda x: float(x.rstrip("%")) if x != "?" else -1)
            return "-" if not xs else xs[0] if len(xs) == 1 else f"{xs[0]}-{xs[-1]}"
        lost = " / ".join(lost_of(s) for s in ("sluice", "gdnsd", "gdnsd-rcvbuf", "knot"))
        print(f"| {k[0]} | {KIND.get(k[1], k[1])} | {ref} {show(rat(ps, 'sluice', ref, 'us_per_q'))} | "
              f"{show(rat(ps, 'sluice', 'gdnsd-rcvbuf', 'us_per_q'))} | "
              f"{show(rat(ps, 'sluice', 'gdnsd', 'avg_ms'))} | {show(rat(ps, 'sluice', 'gdnsd-rcvbuf', 'avg_ms'))} | {lost} |")

def against_base(all_rows):
    """Sluice against sluice-base (another build of Sluice, run.sh's SLUICE_BASE_START) and both
    against gdnsd, per variant and kind, when sluice-base ran: what a change did, measured in the
    same runs as the peers, so it can be read against the spread of gdnsd's own figures."""
    per = by_pass(all_rows)
    keys = [k for k in per if any("sluice" in p and "sluice-base" in p for p in per[k])]
    if not keys:
        return
    def us(passes, server):
        xs = [p[server]["us_per_q"] for p in passes if server in p and p[server].get("us_per_q")]
        return ", ".join(f"{x:.2f}" for x in xs) or "n/a"
    print(f"\n### Sluice against sluice-base: medians over {len(all_rows)} passes (per-pass ratios in brackets)\n")
    print("| variant | query kind | CPU us/query sluice | sluice-base | gdnsd | sluice against sluice-base | sluice against gdnsd | sluice-base against gdnsd | latency sluice against sluice-base |")
    print("|---|---|---|---|---|---|---|---|---|")
    for k in keys:
        ps = per[k]
        print(f"| {k[0]} | {KIND.get(k[1], k[1])} | {us(ps, 'sluice')} | {us(ps, 'sluice-base')} | {us(ps, 'gdnsd')} | "
              f"{show(rat(ps, 'sluice', 'sluice-base', 'us_per_q'))} | {show(rat(ps, 'sluice', 'gdnsd', 'us_per_q'))} | "
              f"{show(rat(ps, 'sluice-base', 'gdnsd', 'us_per_q'))} | {show(rat(ps, 'sluice', 'sluice-base', 'avg_ms'))} |")

if __name__ == "__main__":
    dirs = sys.argv[1:]
    all_rows = [one(d) for d in dirs]
    if len(dirs) > 1:
        spread(all_rows)
        headline(all_rows)
    ratios(all_rows)
    against_base(all_rows)
