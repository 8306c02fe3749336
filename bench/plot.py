#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""SVG plots for the benchmarks.

    ./build/bench/bench_core --only d | python3 bench/plot.py > curve.svg
    ./build/bench/bench_core --only h | python3 bench/plot.py --curve > curve.svg
    python3 bench/plot.py --intervals RUN.json [TITLE] > depth.svg
    python3 bench/plot.py --logs [--title T] [--expect G=PCT,...] \
        --run LABEL LOG.csv SPANS [--run ...] > runs.svg

The first plots the cost per request against the number of groups, from the
(d) table that bench_core prints, with a logarithmic x axis: each column of
the table (depth=max, depth=32, the FIFO baseline) becomes a line.  With
--curve it reads the (h) table instead (flat trees of 10 to 1,000,000
leaves: limits, weights, both, and the FIFO of the same run) and draws the
y axis on a log scale too, so that the FIFO's few ns and the controller's
hundreds share one plot.

The second reads the JSON of an `ioqos run --log-interval MS
--output-format json` and draws two panels over time: above, the device's
depth in force and the depth `depth=auto` settled on (the `depth` and
`depth_found` of each interval); below, each top-level group's share of
the interval's I/Os, with the share its weight gives it (its
`expected_share`: what the weights give where they decide) dashed.  Axes are labelled and ticked, legends name each
line.

The third reads the CSVs of `ioqos run --log-interval MS --log FILE` runs
(time_ms,group,read_bw_bytes,write_bw_bytes,read_iops,write_iops,depth,
depth_found) and draws each run as a column of three panels over time: the
depth in force and the depth found; each top-level group's share of the
I/Os, per interval (thin) and over the second around each interval (thick),
with the shares of --expect dashed; and the top-level groups' IOPS together,
per interval and over the second around it, in thousands.  SPANS ("1.0-3.0,4.0-6.0" in
s from the run's start, or "-") are shaded in every panel of the run: when a
neighbour outside the controller was on."""
import json
import math
import sys

L, T, B = 80, 40, 60                  # margins: left, top, bottom
PLOT_W = 540                          # the plot area's width
CHAR_W = 7.0                          # a generous width of one 12 px character
COLORS = ["#1f77b4", "#d62728", "#7f7f7f", "#2ca02c", "#9467bd", "#ff7f0e"]


def right_margin(names):
    """room for the legend: a line sample and the longest name"""
    return 45 + int(CHAR_W * max(len(n) for n in names)) + 10


def nice_top(ymax):
    """a round number at or just above ymax"""
    top = 10 ** math.ceil(math.log10(ymax)) if ymax > 0 else 1
    for step in (0.2, 0.25, 0.5):       # a tighter top where it fits
        if top * step >= ymax:
            return top * step
    return top


def head(w, h, title):
    return ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
            'font-family="sans-serif" font-size="12">' % (w, h),
            '<rect width="100%" height="100%" fill="white"/>',
            '<text x="%d" y="20" font-size="14">%s</text>' % (L, title)]


def frame(out, x0, x1, y0, y1, ylabel):
    """the two axes of a panel spanning x0..x1, y0 (top)..y1 (bottom)"""
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (x0, y1, x1, y1))
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (x0, y0, x0, y1))
    mid = (y0 + y1) // 2
    out.append('<text x="20" y="%d" text-anchor="middle" transform="rotate(-90 20 %d)">'
               '%s</text>' % (mid, mid, ylabel))


def xtick(out, x, y0, y1, label):
    out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (x, y0, x, y1))
    out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (x, y1 + 18, label))


def yticks(out, x0, x1, py, top, n=5):
    for i in range(n + 1):
        y = top * i / n
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                   % (x0, py(y), x1, py(y)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%g</text>' % (x0 - 6, py(y) + 4, y))


def legend(out, x, y, k, color, name, dash=None):
    yl = y + 20 * k
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>'
               % (x + 10, yl, x + 30, yl, color,
                  ' stroke-dasharray="%s"' % dash if dash else ''))
    out.append('<text x="%d" y="%d">%s</text>' % (x + 35, yl + 4, name))


def polyline(out, pts, color, width, dash=None):
    out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="%.1f" '
               'stroke-linejoin="round"%s/>'
               % (" ".join("%.1f,%.1f" % p for p in pts), color, width,
                  ' stroke-dasharray="%s"' % dash if dash else ''))


# ---- the core benchmark's curve --------------------------------------------

NAMES = ["depth=max (pass-through)", "depth=32 (weighted)", "FIFO baseline"]


def parse(lines):
    """rows of (groups, depth=max ns, depth=32 ns, FIFO ns) from table (d)"""
    rows, on = [], False
    for line in lines:
        f = line.split()
        if f[:2] == ["groups", "depth=max"]:
            on = True
            continue
        if on:
            if len(f) >= 8 and f[0].isdigit():
                rows.append((int(f[0]), float(f[1]), float(f[4]), float(f[7])))
            elif rows:
                break
    return rows


CURVE_NAMES = ["limits", "weights (depth 32)", "limits and weights", "FIFO baseline"]


def parse_curve(lines):
    """rows of (groups, limits, weights, both, FIFO ns) from table (h)"""
    rows, on = [], False
    for line in lines:
        f = line.split()
        if f[:5] == ["groups", "limits", "weights", "both", "FIFO"]:
            on = True
            continue
        if on:
            if len(f) >= 5 and f[0].isdigit():
                rows.append((int(f[0]),) + tuple(float(v) for v in f[1:5]))
            elif rows:
                break
    return rows


def svg(rows, title, names=NAMES, logy=False):
    R = right_margin(names)
    W, H = L + PLOT_W + R, 420
    xs = [r[0] for r in rows]
    ytop = nice_top(max(max(r[1:]) for r in rows))
    ybot = 10 ** math.floor(math.log10(min(min(r[1:]) for r in rows))) if logy else 0
    if logy:
        ytop = 10 ** math.ceil(math.log10(ytop))
    lx0, lx1 = math.log10(min(xs)), math.log10(max(xs))

    def px(x):
        return L + (math.log10(x) - lx0) / (lx1 - lx0) * (W - L - R)

    def py(y):
        if logy:
            return H - B - (math.log10(y) - math.log10(ybot)) / \
                (math.log10(ytop) - math.log10(ybot)) * (H - T - B)
        return H - B - y / ytop * (H - T - B)

    out = head(W, H, title)
    frame(out, L, W - R, T, H - B, "ns per request (submit + next + done)" +
          (", log scale" if logy else ""))
    for x in xs:
        xtick(out, px(x), T, H - B, format(x, ","))
    if logy:
        v = ybot
        while v <= ytop * 1.001:
            out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                       % (L, py(v), W - R, py(v)))
            out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>'
                       % (L - 5, py(v) + 4, format(v, "g")))
            v *= 10
    else:
        yticks(out, L, W - R, py, ytop)
    out.append('<text x="%d" y="%d" text-anchor="middle">groups under "/" '
               '(log scale)</text>' % ((L + W - R) // 2, H - 15))
    for k, name in enumerate(names):
        # widest first: where two lines meet, the one below shows as a
        # border of the one on top
        width = 2 + 2.5 * (len(names) - 1 - k)
        polyline(out, [(px(r[0]), py(r[k + 1])) for r in rows], COLORS[k], width)
        for r in rows:
            out.append('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"/>'
                       % (px(r[0]), py(r[k + 1]), 1 + width / 2, COLORS[k]))
        legend(out, W - R, T + 20, k, COLORS[k], name)
    out.append('</svg>')
    return "\n".join(out) + "\n"


# ---- depth and shares over time -------------------------------------------

def intervals(doc):
    """(times in s, depth, depth found, {group: [share %]}, {group: expected %})
    from ioqos's JSON; the shares are of the top-level groups' I/Os"""
    io = doc["ioqos"]
    top = [g["path"] for g in io["groups"]
           if g["path"] != "/" and g["path"].count("/") == 1]
    expect = {g["path"]: g["expected_share"] for g in io["groups"]
              if g["path"] in top and "expected_share" in g}
    rows = {}
    for x in io["intervals"]:
        rows.setdefault(x["t_ms"], {})[x["group"]] = x
    ts, depth, found, share = [], [], [], {g: [] for g in top}
    for t in sorted(rows):
        r = rows[t]
        tot = sum(r[g]["read_ios"] + r[g]["write_ios"] for g in top if g in r)
        if "/" not in r or not tot:
            continue
        d = r["/"]["depth"]
        ts.append(t / 1000.0)
        depth.append(None if d == "max" else d)
        found.append(r["/"]["depth_found"] or None)
        for g in top:
            n = r[g]["read_ios"] + r[g]["write_ios"] if g in r else 0
            share[g].append(100.0 * n / tot)
    return ts, depth, found, share, expect


def runs(ts, ys, px, py):
    """the points of a step line, broken where a value is missing"""
    out, cur = [], []
    for i, (t, y) in enumerate(zip(ts, ys)):
        if y is None:
            if cur:
                out.append(cur)
            cur = []
            continue
        t0 = ts[i - 1] if i else 0.0
        cur += [(px(t0), py(y)), (px(t), py(y))]
    if cur:
        out.append(cur)
    return out


def svg_intervals(doc, title):
    ts, depth, found, share, expect = intervals(doc)
    if len(ts) < 2:
        sys.exit("plot.py: fewer than two intervals with I/O in the JSON")
    groups = sorted(share)
    names = ["depth in force", "depth found"] + \
        ["%s (weights: %.1f%%)" % (g, expect[g]) if g in expect else g for g in groups]
    R = right_margin(names)
    W = L + PLOT_W + R
    PH, GAP = 200, 70                     # each panel's height, the gap between
    H = T + PH + GAP + PH + B
    tmax = ts[-1]
    dtop = nice_top(max([d for d in depth + found if d] or [1]) * 1.1)
    y0a, y1a = T, T + PH                  # depth panel
    y0b, y1b = T + PH + GAP, T + PH + GAP + PH   # share panel

    def px(t):
        return L + t / tmax * (W - L - R)

    def pya(y):
        return y1a - y / dtop * PH

    def pyb(y):
        return y1b - y / 100.0 * PH

    out = head(W, H, title)
    frame(out, L, W - R, y0a, y1a, "depth (requests)")
    frame(out, L, W - R, y0b, y1b, "share of I/Os (%)")
    step = nice_top(tmax / 8)
    k = 0
    while k * step <= tmax + 1e-9:
        xtick(out, px(k * step), y0a, y1a, "%g" % (k * step))
        xtick(out, px(k * step), y0b, y1b, "%g" % (k * step))
        k += 1
    yticks(out, L, W - R, pya, dtop)
    yticks(out, L, W - R, pyb, 100.0, 4)
    out.append('<text x="%d" y="%d" text-anchor="middle">time (s)</text>'
               % ((L + W - R) // 2, H - 15))
    # depth: in force (wide) under found (narrow, on top)
    for pts in runs(ts, depth, px, pya):
        polyline(out, pts, COLORS[0], 4)
    for pts in runs(ts, found, px, pya):
        polyline(out, pts, COLORS[1], 1.5)
    legend(out, W - R, y0a + 20, 0, COLORS[0], names[0])
    legend(out, W - R, y0a + 20, 1, COLORS[1], names[1])
    for k, g in enumerate(groups):
        c = COLORS[(k + 3) % len(COLORS)]
        polyline(out, [(px(t), pyb(s)) for t, s in zip(ts, share[g])], c, 2)
        if g in expect:
            out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" '
                       'stroke-width="1.5" stroke-dasharray="6,4"/>'
                       % (L, pyb(expect[g]), W - R, pyb(expect[g]), c))
        legend(out, W - R, y0b + 20, k, c, names[k + 2], "6,4" if g in expect else None)
    out.append('</svg>')
    return "\n".join(out) + "\n"


# ---- runs side by side from --log CSVs ---------------------------------------

SPAN_FILL = "#f6d3b3"                  # a neighbour's bursts


def read_log(path):
    """(times in s, depth, depth found, {group: [IOPS]}) per interval of an
    ioqos --log CSV; the groups are the top-level ones"""
    rows = {}
    with open(path) as f:
        for line in f:
            p = line.strip().split(",")
            if len(p) < 8 or p[0] == "time_ms":
                continue
            rows.setdefault(float(p[0]), {})[p[1]] = p
    ts, depth, found, iops = [], [], [], {}
    groups = sorted({g for r in rows.values() for g in r if g != "/" and g.count("/") == 1})
    for g in groups:
        iops[g] = []
    for t in sorted(rows):
        r = rows[t]
        any_row = next(iter(r.values()))
        ts.append(t / 1000.0)
        depth.append(None if any_row[6] == "max" else float(any_row[6]))
        found.append(float(any_row[7]) or None)
        for g in groups:
            iops[g].append(float(r[g][4]) + float(r[g][5]) if g in r else 0.0)
    return ts, depth, found, iops


def around(ts, ys, half):
    """each point's mean over the points within half (s) of it"""
    out, lo, hi, acc = [], 0, 0, 0.0
    for t in ts:
        while hi < len(ts) and ts[hi] <= t + half + 1e-9:
            acc += ys[hi]
            hi += 1
        while ts[lo] < t - half - 1e-9:
            acc -= ys[lo]
            lo += 1
        out.append(acc / (hi - lo))
    return out


def shares(ts, iops, smooth):
    """{group: [share %]} per interval, or over the second around each"""
    tot = [sum(v) for v in zip(*iops.values())]
    if smooth:
        tot = around(ts, tot, 0.5)
    out = {}
    for g, ys in iops.items():
        num = around(ts, ys, 0.5) if smooth else ys
        out[g] = [100.0 * n / d if d else None for n, d in zip(num, tot)]
    return out


def svg_logs(cols, title, expect):
    """cols: [(label, (ts, depth, found, iops), [(start s, end s)])]"""
    groups = sorted({g for _, d, _ in cols for g in d[3]})
    names = ["depth in force", "depth found"] + \
        ["%s%s" % (g, " (%g%%)" % expect[g] if g in expect else "") for g in groups] + \
        ["per interval", "over 1 s around", "neighbour on"]
    R = right_margin(names)
    CW, GAPX = 420, 70                    # each column's plot width, the gap between
    W = L + len(cols) * CW + (len(cols) - 1) * GAPX + R
    PH = [110, 200, 130]                  # the panels' heights: depth, shares, IOPS
    GAP, TOP = 45, T + 25
    H = TOP + sum(PH) + GAP * 2 + B
    ys0 = [TOP, TOP + PH[0] + GAP, TOP + PH[0] + PH[1] + 2 * GAP]
    tmax = max(d[0][-1] for _, d, _ in cols)
    dmax = max([x for _, d, _ in cols for x in d[1] + d[2] if x] or [1])
    dtop = nice_top(dmax * 1.1)
    itot = [[sum(v) / 1000.0 for v in zip(*d[3].values())] for _, d, _ in cols]
    itop = nice_top(max(max(x) for x in itot) * 1.05 or 1)
    out = head(W, H, title)
    step = nice_top(tmax / 6)
    for k, (label, d, spans) in enumerate(cols):
        ts, depth, found, iops = d
        x0 = L + k * (CW + GAPX)
        x1 = x0 + CW

        def px(t, x0=x0):
            return x0 + t / tmax * CW

        out.append('<text x="%d" y="%d" font-size="13" font-weight="bold">%s</text>'
                   % (x0, TOP - 12, label))
        for i, (y0, h) in enumerate(zip(ys0, PH)):
            y1 = y0 + h
            for a, b in spans:
                a, b = max(a, 0), min(b, tmax)
                if b > a:
                    out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>'
                               % (px(a), y0, px(b) - px(a), h, SPAN_FILL))
            frame(out, x0, x1, y0, y1, ["depth", "share of I/Os (%)", "thousand IOPS"][i] if k == 0 else "")
            j = 0
            while j * step <= tmax + 1e-9:
                xtick(out, px(j * step), y0, y1, "%g" % (j * step))
                j += 1

        # depth
        y0, y1 = ys0[0], ys0[0] + PH[0]

        def pyd(y, y1=y1):
            return y1 - y / dtop * PH[0]

        yticks(out, x0, x1, pyd, dtop, 4)
        if not any(depth):
            out.append('<text x="%d" y="%d" fill="#555">no depth in force (depth=max)</text>'
                       % (x0 + 10, y0 + 20))
        for pts in runs(ts, depth, px, pyd):
            polyline(out, pts, COLORS[0], 3)
        for pts in runs(ts, found, px, pyd):
            polyline(out, pts, COLORS[1], 1.5)

        # shares
        y0, y1 = ys0[1], ys0[1] + PH[1]

        def pys(y, y1=y1):
            return y1 - y / 100.0 * PH[1]

        yticks(out, x0, x1, pys, 100.0, 4)
        thin, thick = shares(ts, iops, False), shares(ts, iops, True)
        for n, g in enumerate(groups):
            c = COLORS[(n + 3) % len(COLORS)]
            if g in expect:
                out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" '
                           'stroke-width="1.5" stroke-dasharray="6,4"/>'
                           % (x0, pys(expect[g]), x1, pys(expect[g]), c))
            if g not in thin:
                continue
            for pts in runs(ts, thin[g], px, pys):
                polyline(out, pts, c, 0.8)
            polyline(out, [(px(t), pys(v)) for t, v in zip(ts, thick[g]) if v is not None], c, 2.5)

        # IOPS
        y0, y1 = ys0[2], ys0[2] + PH[2]

        def pyi(y, y1=y1):
            return y1 - y / itop * PH[2]

        yticks(out, x0, x1, pyi, itop, 4)
        for pts in runs(ts, itot[k], px, pyi):
            polyline(out, pts, COLORS[2], 0.8)
        polyline(out, [(px(t), pyi(v)) for t, v in zip(ts, around(ts, itot[k], 0.5))], "black", 2)
        out.append('<text x="%d" y="%d" text-anchor="middle">time (s)</text>'
                   % ((x0 + x1) // 2, H - 15))
    xl = W - R
    legend(out, xl, ys0[0] + 10, 0, COLORS[0], names[0])
    legend(out, xl, ys0[0] + 10, 1, COLORS[1], names[1])
    for n, g in enumerate(groups):
        legend(out, xl, ys0[1] + 10, n, COLORS[(n + 3) % len(COLORS)], names[2 + n],
               "6,4" if g in expect else None)
    yl = ys0[1] + 10 + 20 * len(groups) + 10
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#555" stroke-width="0.8"/>'
               % (xl + 10, yl, xl + 30, yl))
    out.append('<text x="%d" y="%d">%s</text>' % (xl + 35, yl + 4, names[-3]))
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#555" stroke-width="2.5"/>'
               % (xl + 10, yl + 20, xl + 30, yl + 20))
    out.append('<text x="%d" y="%d">%s</text>' % (xl + 35, yl + 24, names[-2]))
    out.append('<rect x="%d" y="%d" width="20" height="12" fill="%s"/>'
               % (xl + 10, ys0[2] + 10, SPAN_FILL))
    out.append('<text x="%d" y="%d">%s</text>' % (xl + 35, ys0[2] + 20, names[-1]))
    out.append('</svg>')
    return "\n".join(out) + "\n"


def parse_spans(text):
    if text in ("", "-"):
        return []
    return [tuple(float(x) for x in s.split("-")) for s in text.split(",")]


def main_logs(a):
    title, expect, cols = "ioqos: the depth, the groups' shares and the IOPS over time", {}, []
    i = 0
    while i < len(a):
        if a[i] == "--title" and i + 1 < len(a):
            title = a[i + 1]
            i += 2
        elif a[i] == "--expect" and i + 1 < len(a):
            for x in a[i + 1].split(","):
                g, v = x.split("=")
                expect[g] = float(v)
            i += 2
        elif a[i] == "--run" and i + 3 < len(a):
            d = read_log(a[i + 2])
            if len(d[0]) < 2:
                sys.exit("plot.py: fewer than two intervals in %s" % a[i + 2])
            cols.append((a[i + 1], d, parse_spans(a[i + 3])))
            i += 4
        else:
            sys.exit(__doc__)
    if not cols:
        sys.exit(__doc__)
    sys.stdout.write(svg_logs(cols, title, expect))


def main():
    a = sys.argv[1:]
    if a[:1] == ["--logs"]:
        main_logs(a[1:])
        return
    if a[:1] == ["--intervals"]:
        if len(a) < 2:
            sys.exit(__doc__)
        with open(a[1]) as f:
            text = f.read()
        doc = json.loads(text[text.index("{"):])
        if "intervals" not in doc.get("ioqos", {}):
            sys.exit("plot.py: %s has no ioqos.intervals (run with --log-interval)" % a[1])
        title = a[2] if len(a) > 2 else "ioqos: the device's depth and each group's share"
        sys.stdout.write(svg_intervals(doc, title))
        return
    if a[:1] == ["--curve"]:
        rows = parse_curve(sys.stdin.read().splitlines())
        if len(rows) < 2:
            sys.exit("plot.py: no (h) table with two or more rows on stdin")
        title = a[1] if len(a) > 1 else "libioqos: cost per request against groups, flat trees"
        sys.stdout.write(svg(rows, title, CURVE_NAMES, logy=True))
        return
    rows = parse(sys.stdin.read().splitlines())
    if len(rows) < 2:
        sys.exit("plot.py: no (d) table with two or more rows on stdin")
    title = a[0] if a else "libioqos: cost per request against groups"
    sys.stdout.write(svg(rows, title))


if __name__ == "__main__":
    main()
