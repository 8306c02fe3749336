#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""IOQOS against threads, two panels, for docs/BENCHMARKS.md.

    python3 bench/plot_threads.py CORE.txt THREADS.md > threads.svg

CORE.txt is what `bench_core --threads N` printed for each N, one after
another; its "1 group, nothing held" rows give the upper panel: millions of
requests a second through one controller on a null device, under one mutex
around every call and through lanes.  THREADS.md is the table of
bench/threads.sh; its "one" rows give the lower panel: thousands of IOPS
of psync threads reading a page-cached file, fio alone and `ioqos run`,
whose psync threads take turns under the runner's one lock (where the
table has a mutex build's column, `ioqos run` on lanes beside it).  The x axis is
the number of threads on a log scale."""
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot import (L, T, PLOT_W, COLORS, right_margin, nice_top, head, frame,  # noqa: E402
                  xtick, yticks, legend, polyline)

PANEL_H = 200
GAP = 70


def parse_core(text):
    """{threads: (mutex Mreq/s, lanes Mreq/s)} from the one-group rows"""
    out, n = {}, None
    for line in text.splitlines():
        m = re.match(r"(\d+) threads?, ", line)
        if m:
            n = int(m.group(1))
        elif line.startswith("1 group") and n is not None:
            f = line[len("1 group, nothing held"):].split()
            out[n] = (float(f[0]), float(f[3]))
    return out


def parse_table(text, case="one"):
    """{threads: (fio IOPS, ioqos IOPS, mutex build IOPS or None)}"""
    out = {}
    for line in text.splitlines():
        f = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(f) >= 5 and f[0] == case and f[1].isdigit():
            base = float(f[5]) if len(f) >= 8 else None
            out[int(f[1])] = (float(f[2]), float(f[3]), base)
    return out


def panel(out, y0, xs, series, ylabel, names):
    """one panel at y0: series is [(name, {x: y}, dash)]"""
    y1 = y0 + PANEL_H
    x0, x1 = L, L + PLOT_W
    lo, hi = math.log2(min(xs)), math.log2(max(xs))

    def px(x):
        return x0 + (math.log2(x) - lo) / ((hi - lo) or 1) * (x1 - x0)
    top = nice_top(max(v for _, d, _ in series for v in d.values()))

    def py(y):
        return y1 - y / top * (y1 - y0)
    frame(out, x0, x1, y0, y1, ylabel)
    for x in xs:
        xtick(out, px(x), y0, y1, str(x))
    yticks(out, x0, x1, py, top)
    for k, (name, d, dash) in enumerate(series):
        pts = [(px(x), py(d[x])) for x in sorted(d)]
        polyline(out, pts, COLORS[k % len(COLORS)], 2, dash)
        legend(out, x1 + 10, y0 + 10, k, COLORS[k % len(COLORS)], name, dash)


def main():
    core = parse_core(open(sys.argv[1]).read())
    tab = parse_table(open(sys.argv[2]).read())
    s1 = [("one mutex", {n: v[0] for n, v in core.items()}, "6,4"),
          ("lanes", {n: v[1] for n, v in core.items()}, None)]
    s2 = [("fio alone", {n: v[0] / 1e3 for n, v in tab.items()}, None),
          ("ioqos run, runner's lock", {n: v[1] / 1e3 for n, v in tab.items()}, "6,4")]
    if all(v[2] is not None for v in tab.values()) and tab:
        s2[1] = ("ioqos run, lanes", s2[1][1], None)
        s2.append(("ioqos run, runner's lock", {n: v[2] / 1e3 for n, v in tab.items()}, "6,4"))
    names = [s[0] for s in s1 + s2]
    w = L + PLOT_W + right_margin(names)
    h = T + 2 * PANEL_H + GAP + 50
    out = head(w, h, "One controller, N threads: null device (above), psync on the page cache (below)")
    panel(out, T, sorted(core), s1, "Mreq/s", names)
    panel(out, T + PANEL_H + GAP, sorted(tab), s2, "kIOPS", names)
    out.append('<text x="%d" y="%d" text-anchor="middle">threads</text>'
               % (L + PLOT_W // 2, h - 8))
    out.append("</svg>")
    print("\n".join(out))


if __name__ == "__main__":
    main()
