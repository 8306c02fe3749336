#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Plot the cost per request against the number of groups, from the (d)
table that bench_core prints, as an SVG with a logarithmic x axis.

    ./build/bench/bench_core --only d | python3 bench/plot.py > curve.svg

Each column of the table (depth=max, depth=32, the FIFO baseline) becomes a
line; the axes are labelled and ticked, the legend names each line."""
import math
import sys

PLOT_W, H = 540, 420                  # the plot area's width, the picture's height
L, T, B = 80, 40, 60                  # margins: left, top, bottom
COLORS = ["#1f77b4", "#d62728", "#7f7f7f"]
NAMES = ["depth=max (pass-through)", "depth=32 (weighted)", "FIFO baseline"]
CHAR_W = 7.0                          # a generous width of one 12 px character
# the right margin holds the legend: a line sample and the longest name
R = 45 + int(CHAR_W * max(len(n) for n in NAMES)) + 10
W = L + PLOT_W + R


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


def svg(rows, title):
    xs = [r[0] for r in rows]
    ymax = max(max(r[1:]) for r in rows)
    ytop = 10 ** math.ceil(math.log10(ymax)) if ymax > 0 else 1
    for step in (0.2, 0.25, 0.5):       # a tighter top where it fits
        if ytop * step >= ymax:
            ytop *= step
            break
    lx0, lx1 = math.log10(min(xs)), math.log10(max(xs))

    def px(x):
        return L + (math.log10(x) - lx0) / (lx1 - lx0) * (W - L - R)

    def py(y):
        return H - B - y / ytop * (H - T - B)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="20" font-size="14">%s</text>' % (L, title)]
    # axes, ticks and grid
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>'
               % (L, H - B, W - R, H - B))
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>'
               % (L, T, L, H - B))
    for x in xs:
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>'
                   % (px(x), T, px(x), H - B))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                   % (px(x), H - B + 18, format(x, ",")))
    for i in range(6):
        y = ytop * i / 5
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                   % (L, py(y), W - R, py(y)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%g</text>'
                   % (L - 6, py(y) + 4, y))
    out.append('<text x="%d" y="%d" text-anchor="middle">groups under "/" '
               '(log scale)</text>' % ((L + W - R) // 2, H - 15))
    out.append('<text x="20" y="%d" text-anchor="middle" transform="rotate(-90 20 %d)">'
               'ns per request (submit + next + done)</text>'
               % ((T + H - B) // 2, (T + H - B) // 2))
    for k, name in enumerate(NAMES):
        # widest first: where two lines meet, the one below shows as a
        # border of the one on top
        width = 2 + 2.5 * (len(NAMES) - 1 - k)
        pts = " ".join("%.1f,%.1f" % (px(r[0]), py(r[k + 1])) for r in rows)
        out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="%.1f" '
                   'stroke-linejoin="round"/>' % (pts, COLORS[k], width))
        for r in rows:
            out.append('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"/>'
                       % (px(r[0]), py(r[k + 1]), 1 + width / 2, COLORS[k]))
        yl = T + 20 + 20 * k
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                   % (W - R + 10, yl, W - R + 30, yl, COLORS[k]))
        out.append('<text x="%d" y="%d">%s</text>' % (W - R + 35, yl + 4, name))
    out.append('</svg>')
    return "\n".join(out) + "\n"


def main():
    rows = parse(sys.stdin.read().splitlines())
    if len(rows) < 2:
        sys.exit("plot.py: no (d) table with two or more rows on stdin")
    title = sys.argv[1] if len(sys.argv) > 1 else "libioqos: cost per request against groups"
    sys.stdout.write(svg(rows, title))


if __name__ == "__main__":
    main()
