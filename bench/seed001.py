#!/usr/bin/env python3
"""The reading half of bench/seed001.sh: from one run of
examples/seed001.fio (ioqos run's or fio's JSON report and the latency
logs of g3 and g4), the figures seed 001 asks for; and from several
runs, an SVG of the start-up times and of the light groups' latency over
time.  Python's standard library only.

  seed001.py row DIR [READS]
        one line of key=value for the shell: each g1 phase's time (ms, in
        cycle order), each start-up's time (ms; with READS, the trace's
        .reads, also each as think times plus the reads' latencies in the
        run, which is what the program would have taken where fio's
        replay lets a slow read eat into the think time after it), the
        frames due in g4's
        run time, those dropped and g4's reads that took over 40 ms, each
        group's bandwidth (MB/s, 10^6 bytes, over the group's own time:
        g1's phases, g3's start-ups, g2's and g4's run times) and the
        aggregate (over the run: from its start to the end of its last
        job)
  seed001.py alone DIR [READS]
        the start-up time (ms) of the one replay in DIR's report (with
        READS, and as think times plus latencies)
  seed001.py svg OUT.svg ALONE_MS LABEL=DIR...
        the start-up times of each run against ALONE_MS, and g3's and
        g4's latency over time, a panel a run

A run's DIR holds out.json (--output-format=json) and the logs of
write_lat_log= (g3-K_lat.N.log, g4_lat.N.log: "ms, ns, dir, bs, ...",
the ms from the job's start at the I/O's completion, and the I/O's
latency, submission to completion).  g4 reads a frame every 40 ms; a
frame is dropped when its read completes more than 40 ms after it was
issued (after the slot that began when the player asked for it), or when
it is never read in the run time (fio catches up on a rate after a stall
without a bound, ioqos run by at most 50 ms: under ioqos a long stall
leaves frames unread).  "behind" counts, for a player that shows every
frame in turn and never skips, the frames late on the clock: the k-th
read (from 0) done after (k + 1) x 40 ms from the job's start, and those
never read; after a stall every frame stays late until the reads catch
up, which under ioqos run's bounded catch-up they never do.
"""
import glob
import json
import os
import re
import sys

FRAME_MS = 40


def report(d):
    with open(os.path.join(d, 'out.json')) as f:
        text = f.read()
    # fio may put a line of its own before the JSON
    return json.loads(text[text.index('{'):])


def jobs(rep):
    """name -> (runtime ms, bytes read, startdelay s) of every job"""
    out = {}
    for j in rep['jobs']:
        opts = j.get('job options', {})
        sd = opts.get('startdelay', '0')
        out[j['jobname']] = (j.get('job_runtime', 0), j['read']['io_bytes'], float(sd.rstrip('s') or 0))
    return out


def lat_log(d, prefix):
    """[(ms at completion, latency ns)] of PREFIX_lat.N.log in DIR"""
    logs = glob.glob(os.path.join(d, prefix + '_lat.*.log'))
    rows = []
    for p in logs:
        with open(p) as f:
            for line in f:
                fs = line.split(',')
                if len(fs) >= 2:
                    rows.append((int(fs[0]), int(fs[1])))
    return rows


def frames(d, runtime_ms):
    """g4's frames: (due, dropped, over, behind).  due: FRAME_MS slots in
    its run time; over: reads that completed more than FRAME_MS after
    their issue; dropped: those and the frames never read; behind: the
    k-th read (from 0) completed after (k + 1) x FRAME_MS"""
    rows = lat_log(d, 'g4')
    due = int(runtime_ms // FRAME_MS)
    over = sum(1 for _, ns in rows if ns > FRAME_MS * 1000000)
    behind = sum(1 for k, (ms, _) in enumerate(rows[:due]) if ms > (k + 1) * FRAME_MS)
    return due, over + max(0, due - len(rows)), over, behind + max(0, due - len(rows))


def think_ms(reads):
    """the think times' sum of a trace's READS file (ms)"""
    with open(reads) as f:
        return sum(int(l.split()[4]) for l in f if not l.startswith('#')) / 1000


def est(d, js, think):
    """each start-up as the program would see it (ms): the trace's think
    times and its reads' latencies in this run, one after another"""
    out = []
    for n in sorted(js, key=phase_key):
        if n.startswith('g3-'):
            out.append(round(think + sum(ns for _, ns in lat_log(d, n)) / 1e6))
    return out


def row(d, reads=None):
    js = jobs(report(d))
    g1r = [js[n][0] for n in sorted(js, key=phase_key) if n.startswith('g1-rand')]
    g1s = [js[n][0] for n in sorted(js, key=phase_key) if n.startswith('g1-seq')]
    g3 = [js[n][0] for n in sorted(js, key=phase_key) if n.startswith('g3-')]
    g3_end = max((js[n][2] * 1000 + js[n][0] for n in js if n.startswith('g3-')), default=0)
    g1_end = sum(js[n][0] for n in js if n.startswith('g1-'))
    other_end = max((js[n][2] * 1000 + js[n][0] for n in js if n[:2] in ('g2', 'g4')), default=0)
    span_ms = max(g1_end, g3_end, other_end)
    by = {}
    for n, (_, b, _) in js.items():
        g = n.split('-')[0]
        by[g] = by.get(g, 0) + b
    nf, late, slow, behind = frames(d, js['g4'][0] if 'g4' in js else 0)
    # each group over its own time: g1 its phases', g3 its start-ups', g2
    # and g4 their run times (g2's off seconds included)
    busy = {}
    for n, (rt, _, _) in js.items():
        g = n.split('-')[0]
        busy[g] = busy.get(g, 0) + rt
    bw = {g: b / busy[g] / 1000 if busy.get(g) else 0 for g, b in by.items()}
    kv = {
        'rand_ms': ','.join(str(x) for x in g1r),
        'seq_ms': ','.join(str(x) for x in g1s),
        'startup_ms': ','.join(str(x) for x in g3),
        'frames': nf,
        'dropped': late,
        'slow': slow,
        'behind': behind,
        'span_ms': int(span_ms),
    }
    if reads:
        kv['est_ms'] = ','.join(str(x) for x in est(d, js, think_ms(reads)))
    for g in ('g1', 'g2', 'g3', 'g4'):
        kv[g + '_mbs'] = '%.1f' % bw.get(g, 0)
    kv['agg_mbs'] = '%.1f' % (sum(by.values()) / span_ms / 1000)
    print(' '.join('%s=%s' % kv_ for kv_ in kv.items()))


def phase_key(n):
    m = re.match(r'(.*?)-?(\d+)$', n)
    return (m.group(1), int(m.group(2))) if m else (n, 0)


def alone(d, reads=None):
    js = jobs(report(d))
    rt = max(v[0] for v in js.values())
    if reads:
        print(rt, est(d, {n: v for n, v in js.items() if n.startswith('g3-')}, think_ms(reads))[0])
    else:
        print(rt)


# ---- the SVG -------------------------------------------------------------------

def esc(s):
    return s.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')


def svg(out, alone_ms, runs):
    W, pad = 900, 60
    ph = 170                     # a latency panel's height
    top_h = 40 + 26 * len(runs) + 40
    H = top_h + len(runs) * (ph + 30) + 40
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (W, H),
         '<rect width="100%" height="100%" fill="white"/>']
    # start-up times: a row of dots a run, the alone time a line
    sts = []
    for label, d in runs:
        js = jobs(report(d))
        sts.append([js[n][0] for n in sorted(js, key=phase_key) if n.startswith('g3-')])
    xmax = max([alone_ms] + [x for s in sts for x in s]) * 1.1
    x0, x1 = 230, W - pad

    def sx(v):
        return x0 + (x1 - x0) * v / xmax
    o.append('<text x="%d" y="20" font-size="14">start-up time of each replay (ms); the line: the same trace alone (%d ms), dashed: 1.5x</text>' % (pad, alone_ms))
    for k, (label, _) in enumerate(runs):
        y = 45 + 26 * k
        o.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (x0 - 8, y + 4, esc(label)))
        o.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#ddd"/>' % (x0, x1, y, y))
        for v in sts[k]:
            o.append('<circle cx="%.1f" cy="%d" r="4" fill="#1f77b4" fill-opacity="0.7"/>' % (sx(v), y))
    yb = 45 + 26 * len(runs) - 20
    for v, dash in ((alone_ms, ''), (1.5 * alone_ms, ' stroke-dasharray="4,3"')):
        o.append('<line x1="%.1f" x2="%.1f" y1="32" y2="%d" stroke="#d62728"%s/>' % (sx(v), sx(v), yb, dash))
    step = nice_step(xmax)
    v = 0
    while v <= xmax:
        o.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%g</text>' % (sx(v), yb + 14, v))
        v += step
    # latency over time: g3's reads and g4's frames, log scale, a panel a run
    lo, hi = 0.01, 1000.0       # ms
    import math

    def sy(ms, ytop):
        ms = min(max(ms, lo), hi)
        return ytop + ph - ph * (math.log10(ms) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
    tmax = 1
    series = []
    for label, d in runs:
        js = jobs(report(d))
        g3 = []
        for p in glob.glob(os.path.join(d, 'g3-*_lat.*.log')):
            name = os.path.basename(p).split('_lat.')[0]
            off = js.get(name, (0, 0, 0))[2] * 1000
            g3 += [(off + ms, ns / 1e6) for ms, ns in lat_log(d, name)]
        g4 = [(ms, ns / 1e6) for ms, ns in lat_log(d, 'g4')]
        tmax = max([tmax] + [t for t, _ in g3 + g4])
        series.append((label, g3, g4))

    def st(t):
        return x0 + (x1 - x0) * t / tmax
    for k, (label, g3, g4) in enumerate(series):
        yt = top_h + k * (ph + 30)
        o.append('<text x="%d" y="%d" font-size="13">%s: latency (ms, log scale) over time; blue: g3\'s reads, orange: g4\'s frames, red: the 40 ms slot</text>' % (pad, yt - 6, esc(label)))
        o.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>' % (x0, yt, x1 - x0, ph))
        for ms in (0.1, 1, 10, 100):
            y = sy(ms, yt)
            o.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eee"/>' % (x0, x1, y, y))
            o.append('<text x="%d" y="%.1f" text-anchor="end" fill="#555">%g</text>' % (x0 - 4, y + 4, ms))
        y = sy(FRAME_MS, yt)
        o.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#d62728" stroke-dasharray="4,3"/>' % (x0, x1, y, y))
        for pts, col in ((g4, '#ff7f0e'), (g3, '#1f77b4')):
            pts = thin(pts, tmax)
            d = ''.join('M%.0f %.0fh2' % (st(t), sy(v, yt)) for t, v in pts)
            o.append('<path d="%s" stroke="%s" stroke-width="2" stroke-opacity="0.6"/>' % (d, col))
        step = nice_step(tmax / 1000)
        s = 0
        while s <= tmax / 1000:
            o.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%gs</text>' % (st(s * 1000), yt + ph + 14, s))
            s += step
    o.append('</svg>')
    with open(out, 'w') as f:
        f.write('\n'.join(o) + '\n')


def thin(pts, tmax, cols=300):
    """at most three points a column of 2 pixels: its highest, lowest and middle"""
    if len(pts) < cols:
        return pts
    col = {}
    for t, v in pts:
        col.setdefault(int(t * cols / tmax), []).append((t, v))
    out = []
    for c in col.values():
        c.sort(key=lambda p: p[1])
        out += [c[0], c[len(c) // 2], c[-1]]
    return out


def nice_step(span):
    for s in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000):
        if span / s <= 10:
            return s
    return 10 ** len(str(int(span)))


def main(a):
    if len(a) in (2, 3) and a[0] == 'row':
        row(*a[1:])
    elif len(a) in (2, 3) and a[0] == 'alone':
        alone(*a[1:])
    elif len(a) >= 4 and a[0] == 'svg':
        svg(a[1], float(a[2]), [tuple(x.split('=', 1)) for x in a[3:]])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv[1:])
