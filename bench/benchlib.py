#!/usr/bin/env python3
"""Small helpers for the benchmark scripts: read fio's and ioqos's JSON,
take medians, time a command's CPU, and count the bytes a limiter lets
through after an idle period from fio's per-I/O logs or ioqos's interval
log.  Each subcommand prints one value (or one line) for the shell.

  benchlib.py job   FILE.json JOBNAME FIELD      read.FIELD of a job (summed over
                                                 jobs of that name; JOBNAME '*' = all)
  benchlib.py group FILE.json PATH FIELD         ioqos group's read.FIELD
  benchlib.py pct   FILE.json JOBNAME KEY P      percentile P of read.KEY (clat_ns,
                                                 lat_ns) in ns; the largest over
                                                 jobs of that name
  benchlib.py mean  FILE.json JOBNAME KEY        mean of read.KEY (clat_ns, lat_ns) in ns,
                                                 weighted by I/Os over jobs of that name
  benchlib.py device FILE.json FIELD             ioqos.device.FIELD of an ioqos run
  benchlib.py median X...                        median
  benchlib.py cpu   OUT -- CMD...                run CMD, write its user+sys seconds to OUT
  benchlib.py burst-fio LOG MS...                bytes completed within MS of the first I/O
                                                 after the longest gap in a fio per-I/O log,
                                                 then when the first completed (ms)
  benchlib.py burst-ioqos CSV GROUP T0 MS...     the same from an ioqos --log CSV (1 ms
                                                 intervals) for a phase that began at T0 ms
  benchlib.py waterfill DEPTH W:D...             the shares DEPTH slots give groups of
                                                 weight W and demand D (outstanding I/Os)
  benchlib.py waterfill-run FILE.json W:D...     the same over the depths in force in an
                                                 ioqos run's intervals (weighted by their
                                                 I/Os), then "|" the lowest and "|" the
                                                 highest depth after the first second
                                                 ("-|-|-" if no interval had a depth)
  benchlib.py first-fio LOG                      ms from the start of the post-idle phase
                                                 to its first completion
  benchlib.py perf-split REPORT PART=OBJ,OBJ...  the share of a perf report's samples
                                                 (perf report --no-children --sort sym
                                                 -F overhead,sym --stdio) in the functions
                                                 of each part's object files (nm), one
                                                 "PART PERCENT" line each, then "other"
"""
import json
import os
import resource
import statistics
import subprocess
import sys


def load(path):
    with open(path) as f:
        text = f.read()
    # fio may print notes before the JSON document
    return json.loads(text[text.index('{'):])


def cmd_job(path, name, field):
    d = load(path)
    total = 0.0
    found = False
    for j in d['jobs']:
        if name == '*' or j['jobname'] == name:
            found = True
            total += float(j['read'][field]) + (float(j['write'][field]) if field in ('io_bytes', 'bw_bytes', 'iops', 'total_ios') else 0)
    if not found:
        sys.exit('no job %s in %s' % (name, path))
    print('%.6f' % total)


def cmd_group(path, gpath, field):
    d = load(path)
    for g in d['ioqos']['groups']:
        if g['path'] == gpath:
            print('%.6f' % float(g['read'][field]))
            return
    sys.exit('no group %s in %s' % (gpath, path))


def cmd_pct(path, name, key, p):
    d = load(path)
    want = '%.6f' % float(p)
    vals = [j['read'][key]['percentile'][want] for j in d['jobs']
            if j['jobname'] == name and j['read']['total_ios']]
    if not vals:
        sys.exit('no %s percentile %s of job %s in %s' % (key, want, name, path))
    print(max(vals))


def cmd_mean(path, name, key):
    d = load(path)
    ios = tot = 0.0
    for j in d['jobs']:
        r = j['read']
        if j['jobname'] == name and r['total_ios']:
            ios += r['total_ios']
            tot += r[key]['mean'] * r['total_ios']
    if not ios:
        sys.exit('no %s of job %s in %s' % (key, name, path))
    print('%.3f' % (tot / ios))


def cmd_device(path, field):
    # a figure depth=auto alone reports (depth_found) is '-' under a fixed depth
    d = load(path)
    print(d['ioqos']['device'].get(field, '-'))


def cmd_median(xs):
    print('%.6f' % statistics.median(float(x) for x in xs))


def cmd_cpu(out, argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    rc = subprocess.call(argv)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(out, 'w') as f:
        f.write('%.3f\n' % cpu)
    sys.exit(rc)


def fio_log(path):
    """(completion ms since job start, latency ns, bytes) per I/O"""
    rows = []
    with open(path) as f:
        for line in f:
            p = [x.strip() for x in line.split(',')]
            if len(p) < 4:
                continue
            rows.append((int(p[0]), int(p[1]), int(p[3])))
    rows.sort()
    return rows


def post_idle(rows):
    """the I/Os after the longest gap between completions if it is an idle
    period (over 3 s), else all; and the phase's start in ms: when its
    first I/O was submitted (completion - total latency)"""
    gap, at = -1, 0
    for i in range(1, len(rows)):
        g = rows[i][0] - rows[i - 1][0]
        if g > gap:
            gap, at = g, i
    tail = rows[at:] if gap > 3000 else rows
    start = min(t - lat / 1e6 for t, lat, _ in tail)
    return tail, start, gap


def cmd_burst_fio(path, mss):
    tail, start, gap = post_idle(fio_log(path))
    out = []
    for ms in mss:
        out.append(str(sum(b for t, _, b in tail if t - start <= float(ms))))
    out.append('%.0f' % (tail[0][0] - start))
    print(' '.join(out))


def cmd_first_fio(path):
    tail, start, gap = post_idle(fio_log(path))
    print('%.1f' % (tail[0][0] - start))


def cmd_burst_ioqos(path, group, start, mss):
    """ioqos --log CSV: time_ms (end of the interval), group, read B/s, ..."""
    rows = []
    prev = 0.0
    with open(path) as f:
        for line in f:
            p = line.strip().split(',')
            if len(p) < 3 or p[1] != group:
                continue
            try:
                t, bw = float(p[0]), float(p[2])
            except ValueError:
                continue
            rows.append((prev, t, bw * (t - prev) / 1000.0))
            prev = t
    start = float(start)
    tail = [r for r in rows if r[0] >= start - 1e-9]
    out = ['%.0f' % sum(b for t0, t1, b in tail if t1 - start <= float(ms) + 1e-9) for ms in mss]
    first = [t1 for t0, t1, b in tail if b > 0]
    out.append('%.0f' % (first[0] - start) if first else '-')
    print(' '.join(out))


def waterfill(depth, specs):
    """shares (%) of `depth` slots among groups given as weight:demand:
    by weight, no group above its demand, the rest to the others"""
    left = float(depth)
    w = {i: float(x.split(':')[0]) for i, x in enumerate(specs)}
    d = {i: float(x.split(':')[1]) for i, x in enumerate(specs)}
    alloc = {i: 0.0 for i in w}
    active = set(w)
    while active and left > 1e-9:
        tw = sum(w[i] for i in active)
        give = {i: left * w[i] / tw for i in active}
        capped = [i for i in active if alloc[i] + give[i] >= d[i]]
        if not capped:
            for i in active:
                alloc[i] += give[i]
            break
        for i in capped:
            left -= d[i] - alloc[i]
            alloc[i] = d[i]
            active.discard(i)
    tot = sum(alloc.values())
    return [100 * alloc[i] / tot for i in sorted(alloc)]


def cmd_waterfill(depth, specs):
    print(' : '.join('%.1f' % x for x in waterfill(depth, specs)))


def cmd_waterfill_run(path, specs):
    """what the depths in force over an ioqos run give: each interval's
    shares at its depth, weighted by the I/Os of the interval; then the
    lowest and the highest depth in force after the first second"""
    io = load(path)['ioqos']
    acc = [0.0] * len(specs)
    n_all, ds = 0, []
    for x in io.get('intervals', []):
        n = x['read_ios'] + x['write_ios']
        if x['group'] != '/' or x['depth'] == 'max' or not n:
            continue
        for i, v in enumerate(waterfill(x['depth'], specs)):
            acc[i] += n * v
        n_all += n
        if x['t_ms'] > 1000:
            ds.append(x['depth'])
    if not n_all:
        # no interval had a depth in force (all at max): nothing to expect
        print('-|-|-')
        return
    ds = ds or [0]
    print('%s|%d|%d' % (' : '.join('%.1f' % (v / n_all) for v in acc), min(ds), max(ds)))


def cmd_perf_split(report, parts):
    owner = {}
    names = []
    for spec in parts:
        name, objs = spec.split('=', 1)
        names.append(name)
        for o in objs.split(','):
            out = subprocess.run(['nm', '--defined-only', o], capture_output=True,
                                 text=True, check=True).stdout
            for line in out.splitlines():
                f = line.split()
                if len(f) == 3 and f[1] in 'tTwW':
                    owner.setdefault(f[2], name)
    share = dict((n, 0.0) for n in names + ['other'])
    with open(report) as f:
        for line in f:
            f2 = line.split()
            if len(f2) < 3 or not f2[0].endswith('%') or line.lstrip().startswith('#'):
                continue
            sym = f2[2]
            part = owner.get(sym) or owner.get(sym.split('.')[0]) or 'other'
            share[part] += float(f2[0][:-1])
    for n in names + ['other']:
        print('%s %.1f' % (n, share[n]))


def main():
    a = sys.argv[1:]
    if not a:
        sys.exit(__doc__)
    c = a[0]
    if c == 'job':
        cmd_job(a[1], a[2], a[3])
    elif c == 'group':
        cmd_group(a[1], a[2], a[3])
    elif c == 'pct':
        cmd_pct(a[1], a[2], a[3], a[4])
    elif c == 'mean':
        cmd_mean(a[1], a[2], a[3])
    elif c == 'device':
        cmd_device(a[1], a[2])
    elif c == 'median':
        cmd_median(a[1:])
    elif c == 'cpu':
        cmd_cpu(a[1], a[3:] if a[2] == '--' else a[2:])
    elif c == 'burst-fio':
        cmd_burst_fio(a[1], a[2:])
    elif c == 'first-fio':
        cmd_first_fio(a[1])
    elif c == 'waterfill':
        cmd_waterfill(a[1], a[2:])
    elif c == 'waterfill-run':
        cmd_waterfill_run(a[1], a[2:])
    elif c == 'burst-ioqos':
        cmd_burst_ioqos(a[1], a[2], a[3], a[4:])
    elif c == 'perf-split':
        cmd_perf_split(a[1], a[2:])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
