#!/usr/bin/env python3
"""The figures of bench/light.sh.

  light.py fig RUN.json
      one run's line: L's mean and p99 (fio's lat_ns, submission to
      completion, us), the aggregate IOPS of every job and A's share of
      A and B's (%); "-" where the run had no such job
  light.py table FIGS
      FIGS holds lines "SET ROW LMEAN LP99 AGG ASHARE [TARGET]": SET is a
      device and seed (sim) or a round (disk), ROW one of alone, max, auto,
      lat2x, lat500, dN (a fixed depth N); TARGET (us) on the lat rows.
      Prints, per row, the medians over the sets; then, per target row,
      L's p99 over its target, the aggregate over the best fixed depth
      whose L p99 meets the same target (+10%, the bound the target row is
      held to) in the same set, and A's share: median and worst set.
"""
import json
import statistics
import sys

TOL = 1.10


def fig(path):
    with open(path) as f:
        t = f.read()
    r = json.loads(t[t.index("{"):])
    agg = 0.0
    lmean = lp99 = "-"
    for j in r["jobs"]:
        agg += j["read"]["iops"]
        if j["jobname"] == "L":
            lat = j["read"]["lat_ns"]
            lmean = "%.1f" % (lat["mean"] / 1000)
            lp99 = "%.1f" % (lat["percentile"]["99.000000"] / 1000)
    g = {x["path"]: x["read"]["iops"] for x in r.get("ioqos", {}).get("groups", [])}
    a, b = g.get("/A", 0), g.get("/B", 0)
    share = "%.2f" % (100 * a / (a + b)) if a + b else "-"
    print(lmean, lp99, "%.0f" % agg, share)


def num(x):
    return None if x == "-" else float(x)


def table(path):
    sets = {}
    order = []
    for line in open(path):
        w = line.split()
        if len(w) < 6:
            continue
        s, row = w[0], w[1]
        if s not in sets:
            sets[s] = {}
            order.append(s)
        sets[s][row] = [num(x) for x in w[2:6]] + [num(w[6]) if len(w) > 6 else None]
    rows = []
    for s in order:
        for row in sets[s]:
            if row not in rows:
                rows.append(row)
    fixed = sorted((r for r in rows if r.startswith("d")), key=lambda r: int(r[1:]))
    rows = [r for r in rows if not r.startswith("d")] + fixed

    def med(row, k):
        v = [sets[s][row][k] for s in order if row in sets[s] and sets[s][row][k] is not None]
        return statistics.median(v) if v else None

    def f(x, fmt):
        return "-" if x is None else fmt % x

    print("| row | L mean us | L p99 us | aggregate IOPS | A share % | target us |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print("| %s | %s | %s | %s | %s | %s |" % (
            row, f(med(row, 0), "%.0f"), f(med(row, 1), "%.0f"),
            f(med(row, 2), "%.0f"), f(med(row, 3), "%.1f"), f(med(row, 4), "%.0f")))
    print()
    print("| target row | L p99 / target: median, worst | aggregate / best fixed depth meeting it: median, worst (depth) | A share %: min-max | sets |")
    print("|---|---|---|---|---|")
    for row in ("lat2x", "lat500"):
        over, ratio, share, worst_d = [], [], [], None
        for s in order:
            r = sets[s].get(row)
            if not r or r[4] is None:
                continue
            tgt = r[4]
            over.append(r[1] / tgt)
            if r[3] is not None:
                share.append(r[3])
            best = None
            for d in fixed:
                x = sets[s].get(d)
                if x and x[1] <= tgt * TOL and (best is None or x[2] > best[1]):
                    best = (d, x[2])
            if best:
                q = r[2] / best[1]
                if not ratio or q < min(ratio):
                    worst_d = best[0]
                ratio.append(q)
        if not over:
            continue
        print("| %s | %.2f, %.2f | %s | %s | %d |" % (
            row, statistics.median(over), max(over),
            "%.3f, %.3f (%s)" % (statistics.median(ratio), min(ratio), worst_d) if ratio
            else "no fixed depth meets it",
            "%.1f-%.1f" % (min(share), max(share)) if share else "-", len(over)))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "fig":
        fig(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "table":
        table(sys.argv[2])
    else:
        sys.exit("usage: light.py fig RUN.json | table FIGS")
