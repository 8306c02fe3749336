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
  benchlib.py top FILE.json KEY                  a top-level value of a JSON report
                                                 (timestamp_ms...)
  benchlib.py fio-sum FILE.json                  a fio run's IOPS (reads and writes, all
                                                 jobs), its first job's CPU (usr + sys, % of
                                                 one CPU), and the mean and the standard
                                                 deviation of its completion latency in us
  benchlib.py iops-merge MS ORIGIN OUT LOG...     fio IOPS logs (log_avg_msec=MS, one per
                                                 job) summed into one, in MS windows from
                                                 ORIGIN (ms, as the logs' clock; '-': the
                                                 first window), written to OUT as fio
                                                 writes them; prints the mean IOPS
  benchlib.py log-stats LOG                      an IOPS log's mean, 5th and 95th
                                                 percentile, and its lowest and highest
                                                 1-s mean
  benchlib.py spans ORIGIN LOG...                when each per-I/O fio log (log_unix_epoch)
                                                 ran, "START-END,..." in s from ORIGIN (ms)
  benchlib.py on-off LOG SPANS                   an IOPS log's mean in the windows inside
                                                 SPANS, outside them, the first over the
                                                 second (%), and the lowest 100-ms mean
                                                 inside ("-" where there is none)
  benchlib.py bursts JSON...                     the IOPS and MiB/s of fio runs over their
                                                 runtimes together (reads and writes)
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


def cmd_top(path, key):
    print(load(path)[key])


def cmd_fio_sum(path):
    jobs = load(path)['jobs']
    iops = sum(j[d]['iops'] for j in jobs for d in ('read', 'write'))
    j = jobs[0]
    d = max(('read', 'write'), key=lambda x: j[x]['total_ios'])
    clat = j[d]['clat_ns']
    print('%.0f %.0f %.1f %.1f' % (iops, j['usr_cpu'] + j['sys_cpu'],
                                   clat['mean'] / 1000, clat['stddev'] / 1000))


def iops_log(path):
    """(ms, IOPS) of a fio IOPS log"""
    rows = []
    with open(path) as f:
        for line in f:
            p = line.split(',')
            if len(p) >= 2:
                rows.append((int(p[0]), float(p[1])))
    return rows


def cmd_iops_merge(ms, origin, out, paths):
    """each job's log onto one grid of ms windows: a sample counts in the
    window its own window's middle falls in (several: their mean; none: the
    job's last rate), the jobs' rates summed.  Each job's first and last
    samples are left out: fio's first covers its start-up, its last a part
    of a window."""
    ms = int(ms)
    jobs = [r[1:-1] for r in (iops_log(p) for p in paths)]
    jobs = [r for r in jobs if r]
    if not jobs:
        sys.exit('iops-merge: no samples in %s' % ' '.join(paths))
    t0 = min(r[0][0] for r in jobs) - ms if origin == '-' else int(origin)
    last = max(r[-1][0] for r in jobs)
    n = (last - t0) // ms
    total = [0.0] * n
    for r in jobs:
        acc = {}
        for t, v in r:
            b = (t - ms // 2 - t0) // ms
            if 0 <= b < n:
                acc.setdefault(b, []).append(v)
        first = min(acc) if acc else n
        rate = 0.0
        for b in range(first, n):
            if b in acc:
                rate = sum(acc[b]) / len(acc[b])
            total[b] += rate
    # the windows before every job had begun are left out
    start = max(min((t - ms // 2 - t0) // ms for t, _ in r) for r in jobs)
    start = max(start, 0)
    with open(out, 'w') as f:
        for b in range(start, n):
            f.write('%d, %.0f, 0, 0, 0\n' % ((b + 1) * ms, total[b]))
    vals = total[start:]
    print('%.0f' % (sum(vals) / len(vals) if vals else 0))


def cmd_log_stats(path):
    rows = iops_log(path)
    if not rows:
        sys.exit('log-stats: no samples in %s' % path)
    vals = sorted(v for _, v in rows)
    secs = {}
    for t, v in rows:
        secs.setdefault((t - 1) // 1000, []).append(v)
    means = [sum(x) / len(x) for x in secs.values() if len(x) * 2 >= max(len(y) for y in secs.values())]
    print('%.0f %.0f %.0f %.0f %.0f' % (sum(vals) / len(vals), vals[len(vals) // 20],
                                       vals[len(vals) * 19 // 20], min(means), max(means)))


def cmd_spans(origin, paths):
    spans = []
    for p in paths:
        ts = [r[0] for r in iops_log(p)] if os.path.exists(p) else []
        if ts:
            spans.append((min(ts) - float(origin), max(ts) - float(origin)))
    print(','.join('%.2f-%.2f' % (a / 1000, b / 1000) for a, b in sorted(spans)) or '-')


def parse_spans(text):
    """[(start, end)] in ms from "1.00-3.00,4.00-6.00" in s"""
    if text in ('', '-'):
        return []
    return [tuple(1000 * float(x) for x in s.split('-')) for s in text.split(',')]


def cmd_on_off(path, spans_text):
    rows = iops_log(path)
    spans = parse_spans(spans_text)
    ms = min(b[0] - a[0] for a, b in zip(rows, rows[1:])) if len(rows) > 1 else 1
    on, off = [], []
    for t, v in rows:
        a = t - ms
        if any(s <= a and t <= e for s, e in spans):
            on.append((t, v))
        elif all(t <= s or a >= e for s, e in spans):
            off.append(v)
    low = '-'
    k = max(1, 100 // ms)
    means = [sum(v for _, v in on[i:i + k]) / k for i in range(len(on) - k + 1)
             if on[i + k - 1][0] - on[i][0] == (k - 1) * ms]
    if means:
        low = '%.0f' % min(means)
    mon = sum(v for _, v in on) / len(on) if on else 0
    moff = sum(off) / len(off) if off else 0
    print('%.0f %.0f %s %s' % (mon, moff, '%.1f' % (100 * mon / moff) if moff else '-', low))


def cmd_bursts(paths):
    ios = byts = ms = 0.0
    for p in paths:
        for j in load(p)['jobs']:
            for d in ('read', 'write'):
                ios += j[d]['total_ios']
                byts += j[d]['io_bytes']
            ms += j['job_runtime']
    print('%.0f %.1f' % (1000 * ios / ms if ms else 0, 1000 * byts / ms / 1048576 if ms else 0))


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
    elif c == 'top':
        cmd_top(a[1], a[2])
    elif c == 'fio-sum':
        cmd_fio_sum(a[1])
    elif c == 'iops-merge':
        cmd_iops_merge(a[1], a[2], a[3], a[4:])
    elif c == 'log-stats':
        cmd_log_stats(a[1])
    elif c == 'spans':
        cmd_spans(a[1], a[2:])
    elif c == 'on-off':
        cmd_on_off(a[1], a[2])
    elif c == 'bursts':
        cmd_bursts(a[1:])
    elif c == 'perf-split':
        cmd_perf_split(a[1], a[2:])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
