#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""SVG plots for the benchmarks.

    ./build/bench/bench_core --only d | python3 bench/plot.py > curve.svg
    ./build/bench/bench_core --only h | python3 bench/plot.py --curve > curve.svg
    python3 bench/plot.py --intervals RUN.json [TITLE] > depth.svg

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
line."""
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


def main():
    a = sys.argv[1:]
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
