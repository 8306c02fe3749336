#!/usr/bin/env python3
"""The reading half of bench/trace_startup.sh: from the block tracepoints
that script records, the reads of one process tree, their think times,
and an fio version 3 iolog that replays them against one file.  See the
script's opening comment for what a trace is and how it replays.

  trace_iolog.py convert RAW SIZE FILE IOLOG READS
        RAW: tracefs text (markers "ioqos-trace start PID" and
        "ioqos-trace end", sched_process_fork, and block_bio_queue,
        block_rq_issue and block_rq_complete of reads on one disk);
        SIZE: bytes of the file the reads are mapped into; FILE: its
        name in the iolog.  Writes IOLOG and READS (one line a read)
        and prints one line of key=value for the shell.
  trace_iolog.py span IOLOG READS
        the schedule's length (us from the first read's timestamp to the
        last read's completion), the reads and their bytes, the file's
        size as READS states it
  trace_iolog.py fio JSON
        reads, bytes, runtime (ms), mean completion latency (us) and the
        error of an fio run's first job

Timestamps in RAW are the mono clock in us (the text's resolution); the
iolog's are us too, as fio 3.33 writes and reads them (log_io_u() prints
utime_since_now(), iolog_delay() sleeps the difference in us).
"""
import bisect
import json
import re
import sys

LINE = re.compile(r'^\s*(?P<comm>.*)-(?P<pid>\d+)\s+\[\d+\]\s+\S+\s+'
                  r'(?P<ts>\d+)\.(?P<us>\d{6}): (?P<ev>\w+): (?P<rest>.*)$')
ALIGN = 4096        # extents keep their offset within a page when mapped


def sector_span(toks):
    """(sector, nr_sector) from a block event's fields "... S + N ..." """
    k = toks.index('+')
    return int(toks[k - 1]), int(toks[k + 1])


class Trace:
    """One recorded start: the tree's reads and the device around them."""

    def __init__(self, path):
        self.start_us = self.end_us = None
        self.root = None
        self.tree = set()           # pids and tids of the program's tree
        self.reads = []             # dicts: issue, done, sector, nr, rwbs, pid
        self.other = {}             # comm -> [reads, bytes] of other readers
        self.lost = 0               # tree reads issued, never completed
        self.parse(path)

    def parse(self, path):
        bios = []                   # pending read bios: [start, end, pid, comm]
        out = {}                    # sector -> request in flight
        with open(path, errors='replace') as f:
            for line in f:
                m = LINE.match(line)
                if not m:
                    continue
                ts = int(m['ts']) * 1000000 + int(m['us'])
                ev, rest, pid = m['ev'], m['rest'], int(m['pid'])
                if ev == 'tracing_mark_write':
                    w = rest.split()
                    if w[:2] == ['ioqos-trace', 'start']:
                        self.start_us, self.root = ts, int(w[2])
                        self.tree = {self.root}
                    elif w[:2] == ['ioqos-trace', 'end']:
                        self.end_us = ts
                elif ev == 'sched_process_fork':
                    kv = dict(x.split('=', 1) for x in rest.split() if '=' in x)
                    if int(kv.get('pid', -1)) in self.tree:
                        self.tree.add(int(kv['child_pid']))
                elif ev == 'block_bio_queue':
                    toks = rest.split()
                    s, n = sector_span(toks)
                    bios.append([s, s + n, pid, m['comm'].strip()])
                elif ev == 'block_rq_issue':
                    toks = rest.split()
                    s, n = sector_span(toks)
                    if n == 0:
                        continue
                    if s in out and out[s]['nr'] == n:
                        # issued again after the driver gave it back:
                        # the first issue stands, its bios are taken
                        out[s]['requeued'] += 1
                        continue
                    # the request's owner: a bio of the tree inside it
                    owner, comm = None, '(no-bio)'
                    keep = []
                    for b in bios:
                        if b[0] < s + n and b[1] > s:
                            if owner is None or b[2] in self.tree:
                                owner, comm = b[2], b[3]
                            if b[1] > s + n:
                                keep.append([s + n, b[1], b[2], b[3]])
                        else:
                            keep.append(b)
                    bios = keep
                    out[s] = {'issue': ts, 'sector': s, 'nr': n,
                              'rwbs': toks[1], 'pid': owner, 'comm': comm,
                              'left': n,
                              'requeued': 0}
                elif ev == 'block_rq_complete':
                    toks = rest.split()
                    s, n = sector_span(toks)
                    r = out.get(s)
                    if r is None:
                        continue
                    # a request may complete in parts, each from where
                    # the last ended
                    del out[s]
                    r['left'] -= n
                    if r['left'] > 0 and n > 0:
                        out[s + n] = r
                        continue
                    r['done'] = ts
                    self.account(r)
        for r in out.values():
            if r['pid'] in self.tree:
                self.lost += 1
        self.reads.sort(key=lambda r: (r['issue'], r['done']))

    def account(self, r):
        if r['pid'] is not None and r['pid'] in self.tree:
            self.reads.append(r)
            return
        o = self.other.setdefault(r['comm'], [0, 0])
        o[0] += 1
        o[1] += r['nr'] * 512

    def timing(self):
        """Each read's service time and the think time before it (us).

        service: from the later of its issue and the previous completion
        of the program's reads to its own completion: the device's time
        for it alone where the program's requests queued behind one
        another (a readahead batch), not the time it waited behind them.
        think: from the later of the previous read's issue and the
        program's last completion before this issue, to this issue; 0
        for the first read."""
        prev_issue = None
        done = []                   # completions of the tree, in order
        for r in self.reads:
            k = bisect.bisect_left(done, r['done'])
            r['service'] = r['done'] - max(r['issue'], done[k - 1] if k else 0)
            if prev_issue is None:
                r['think'] = 0
            else:
                j = bisect.bisect_right(done, r['issue'])
                last = done[j - 1] if j else prev_issue
                r['think'] = max(0, r['issue'] - max(prev_issue, last))
            prev_issue = r['issue']
            bisect.insort(done, r['done'])


def layout(reads, size):
    """Map the reads' sectors into a file of SIZE bytes: the extents they
    cover, in the device's order, with the gaps between them kept up to a
    cap (the largest that fits, a multiple of ALIGN) and each extent's
    offset within a page kept.  Returns the extents ([start, end) bytes on
    the disk), where each starts in the file, the cap, the bytes of the
    file used and the gaps cut to the cap; raises ValueError where the
    extents alone do not fit."""
    ext = []
    for r in sorted(reads, key=lambda r: r['sector']):
        a, b = r['sector'] * 512, (r['sector'] + r['nr']) * 512
        if ext and a <= ext[-1][1]:
            ext[-1][1] = max(ext[-1][1], b)
        else:
            ext.append([a, b])
    if not ext:
        raise ValueError('no reads')

    def place(cap):
        starts, pos = [], ext[0][0] % ALIGN
        for k, (a, b) in enumerate(ext):
            if k:
                gap = a - ext[k - 1][1]
                pos += gap if gap <= cap else cap + (a - pos - cap) % ALIGN
            starts.append(pos)
            pos += b - a
        return starts, pos

    lo, hi = 0, size // ALIGN
    if place(0)[1] > size:
        raise ValueError('the reads cover %d bytes, more than SIZE=%d'
                         % (place(0)[1], size))
    while lo < hi:              # the largest cap (in pages) that fits
        mid = (lo + hi + 1) // 2
        if place(mid * ALIGN)[1] <= size:
            lo = mid
        else:
            hi = mid - 1
    starts, end = place(lo * ALIGN)
    capped = sum(1 for a, b in zip(ext, ext[1:]) if b[0] - a[1] > lo * ALIGN)
    return ext, starts, lo * ALIGN, end, capped


def cmd_convert(raw, size, fname, iolog, readsf):
    t = Trace(raw)
    if t.start_us is None or t.end_us is None:
        sys.exit('trace_iolog: %s: no start or end marker' % raw)
    if not t.reads:
        sys.exit('trace_iolog: %s: the program read nothing from the device'
                 % raw)
    t.timing()
    size = int(size)
    try:
        ext, starts, cap, end, capped = layout(t.reads, size)
    except ValueError as e:
        sys.exit('trace_iolog: %s' % e)
    firsts = [e[0] for e in ext]

    def mapped(r):
        b = r['sector'] * 512
        k = bisect.bisect_right(firsts, b) - 1
        return starts[k] + b - ext[k][0]

    # the serial schedule: T(1) = 1, T(i) = T(i-1) + service(i-1) + think(i)
    ts, sched = 1, []
    for k, r in enumerate(t.reads):
        if k:
            ts += t.reads[k - 1]['service'] + r['think']
        sched.append(ts)
    last = t.reads[-1]
    with open(iolog, 'w') as f:
        f.write('fio version 3 iolog\n')
        f.write('0 %s add\n0 %s open\n' % (fname, fname))
        for ts, r in zip(sched, t.reads):
            f.write('%d %s read %d %d\n' % (ts, fname, mapped(r), r['nr'] * 512))
        f.write('%d %s close\n' % (sched[-1] + last['service'], fname))

    nbytes = sum(r['nr'] * 512 for r in t.reads)
    seq = sum(1 for a, b in zip(t.reads, t.reads[1:])
              if b['sector'] == a['sector'] + a['nr'])
    depth = maxdepth = overlapped = 0
    evs = sorted([(r['issue'], 1) for r in t.reads] +
                 [(r['done'], -1) for r in t.reads], key=lambda e: (e[0], e[1]))
    for _, d in evs:
        if d > 0 and depth > 0:
            overlapped += 1
        depth += d
        maxdepth = max(maxdepth, depth)
    think = sum(r['think'] for r in t.reads)
    service = sum(r['service'] for r in t.reads)
    lat = sum(r['done'] - r['issue'] for r in t.reads)
    ob = sum(v[1] for v in t.other.values())
    on = sum(v[0] for v in t.other.values())
    top = sorted(t.other.items(), key=lambda kv: -kv[1][1])[:4]
    with open(readsf, 'w') as f:
        f.write('# the reads of one cold start, in issue order (bench/trace_startup.sh)\n')
        f.write('# file: %s %d bytes (gaps between extents capped at %d)\n'
                % (fname, size, cap))
        f.write('# times in us: issue and done from the command\'s start;'
                ' service: from the later of the issue and the program\'s'
                ' previous completion; think: before the issue, from the'
                ' later of the previous issue and the program\'s last'
                ' completion; ts: the iolog\'s timestamp\n')
        f.write('#%5s %9s %9s %7s %7s %9s %12s %8s %10s %-4s %s\n'
                % ('read', 'issue', 'done', 'service', 'think', 'ts',
                   'sector', 'bytes', 'offset', 'rwbs', 'comm'))
        for k, (ts, r) in enumerate(zip(sched, t.reads)):
            f.write('%6d %9d %9d %7d %7d %9d %12d %8d %10d %-4s %s\n'
                    % (k + 1, r['issue'] - t.start_us, r['done'] - t.start_us,
                       r['service'], r['think'], ts, r['sector'], r['nr'] * 512,
                       mapped(r), r['rwbs'], r['comm']))
    print('reads=%d bytes=%d wall_us=%d think_us=%d service_us=%d lat_us=%d '
          'first_us=%d tail_us=%d sched_us=%d seq=%d maxdepth=%d overlapped=%d '
          'extents=%d span=%d cap=%d capped=%d lost=%d other_reads=%d other_bytes=%d '
          'requeued=%d pids=%d others=%s'
          % (len(t.reads), nbytes, t.end_us - t.start_us, think, service, lat,
             t.reads[0]['issue'] - t.start_us, t.end_us - last['done'],
             sched[-1] + last['service'] - 1, seq, maxdepth, overlapped,
             len(ext), end, cap, capped, t.lost, on, ob,
             sum(r['requeued'] for r in t.reads),
             len({r['pid'] for r in t.reads}),
             ','.join('%s:%d:%d' % (c.replace(',', '_').replace(' ', '_'), v[0], v[1])
                      for c, v in top) or '-'))


def cmd_span(iolog, readsf):
    size, first, n, nbytes, close = 0, None, 0, 0, None
    with open(readsf) as f:
        for line in f:
            if line.startswith('# file:'):
                size = int(line.split()[3])
    with open(iolog) as f:
        for line in f:
            w = line.split()
            if len(w) == 5 and w[2] == 'read':
                first = int(w[0]) if first is None else first
                n += 1
                nbytes += int(w[4])
            elif len(w) == 3 and w[2] == 'close':
                close = int(w[0])
    if first is None or close is None:
        sys.exit('trace_iolog: %s: no reads or no close' % iolog)
    print('%d %d %d %d' % (close - first, n, nbytes, size))


def cmd_fio(path):
    with open(path) as f:
        text = f.read()
    j = json.loads(text[text.index('{'):])      # fio may print lines first
    job = j['jobs'][0]
    rd = job['read']
    print('%d %d %d %.0f %d' % (rd['total_ios'], rd['io_bytes'], rd['runtime'],
                                rd['clat_ns']['mean'] / 1000, job['error']))


def main():
    a = sys.argv[1:]
    if a[:1] == ['convert'] and len(a) == 6:
        cmd_convert(*a[1:])
    elif a[:1] == ['span'] and len(a) == 3:
        cmd_span(*a[1:])
    elif a[:1] == ['fio'] and len(a) == 2:
        cmd_fio(a[1])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
