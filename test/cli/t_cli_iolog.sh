#!/bin/sh
# Logs of every I/O (write_bw_log, write_iops_log, write_lat_log without
# log_avg_msec=): on the sim engine, one line per completed I/O with exact
# values (lat = slat + clat, bw = bs * 10^6 / clat, iops 1, the I/Os' own
# offsets and sizes), as many lines as the JSON counts I/Os, in time
# order; the columns of log_offset= and log_prio= as fio 3.33 writes them,
# line for line against fio's own logs of the same job on fio's null
# engine (offsets, sizes, directions, a trim's 2 included, the prio
# column).  The latency logs averaged over log_avg_msec= (mean, and
# log_max_value=1's largest): exact on the sim engine against the logs of
# every I/O of the same jobs, and their columns, times and line counts
# against fio's own averaged logs.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
cd "$TMP" || exit 1

mkdir q
printf '[global]\nioengine=sim\nsize=1m\nruntime=2s\ntime_based\nramp_time=500ms\n[a]\nrw=randrw\nbsrange=4k-16k\nrate_iops=200\niodepth=4\nwrite_bw_log=b\nwrite_iops_log\nwrite_lat_log=l\nlog_offset=1\n[p]\nrw=read\nbs=8k\nrate_iops=100\nwrite_lat_log=p\nlog_prio=1\nprio=3\ndisable_slat=1\n' >a.fio
if (cd q && "$IOQOS" run ../a.fio --device ssd --output-format=json >../a.json 2>../err); then
	if python3 - q a.json <<'PY'
import json, os, sys
q, js = sys.argv[1:3]
assert sorted(os.listdir(q)) == ["a_iops.1.log", "b_bw.1.log", "l_clat.1.log", "l_lat.1.log",
                                 "l_slat.1.log", "p_clat.2.log", "p_lat.2.log",
                                 "p_slat.2.log"], os.listdir(q)
def rows(name, hexprio=False):
    out = []
    for l in open(os.path.join(q, name)):
        f = [x.strip() for x in l.split(",")]
        if hexprio:
            assert f[-1].startswith("0x") and len(f[-1]) == 6, l
            f[-1] = str(int(f[-1], 16))
        out.append([int(x) for x in f])
    return out
jobs = {j["jobname"]: j for j in json.load(open(js))["jobs"]}
a = jobs["a"]
n = a["read"]["total_ios"] + a["write"]["total_ios"]
lat, clat, slat = rows("l_lat.1.log"), rows("l_clat.1.log"), rows("l_slat.1.log")
bw, iops = rows("b_bw.1.log"), rows("a_iops.1.log")
assert n > 300 and all(len(x) == n for x in (lat, clat, slat, bw, iops)), (n, len(lat))
for L, C, S, B, I in zip(lat, clat, slat, bw, iops):
    assert len(L) == 6 and L[0] == C[0] == S[0] == B[0] == I[0], (L, C)
    assert L[2:] == C[2:] == S[2:] == B[2:] == I[2:]
    assert L[1] == C[1] + S[1] and C[1] > 0, (L, C, S)
    assert B[1] == L[3] * 10**6 // C[1] and I[1] == 1, (B, C)
    assert L[2] in (0, 1) and 4096 <= L[3] <= 16384 and L[4] % 4096 == 0 and L[4] < 2**20
    assert L[5] == 0
t = [r[0] for r in lat]
assert t == sorted(t) and 0 <= t[0] and t[-1] <= 2000, (t[0], t[-1])
for d, name in ((0, "read"), (1, "write")):
    assert sum(r[3] for r in lat if r[2] == d) == a[name]["io_bytes"], name
    assert len([r for r in lat if r[2] == d]) == a[name]["total_ios"], name
p = jobs["p"]
pl = rows("p_lat.2.log", True)
assert len(pl) == p["read"]["total_ios"] and len(pl) > 100
# no log_offset: five columns; prio=3 alone is best effort: 2 << 13 | 3
assert all(len(r) == 5 and r[2] == 0 and r[3] == 8192 and r[4] == 0x4003 for r in pl), pl[:3]
assert os.path.getsize(os.path.join(q, "p_slat.2.log")) == 0
PY
	then ok "every I/O's line, exact on the sim engine"; else bad "sim logs"; fi
else
	bad "sim run: $(cat err)"
fi

# f.fio with the options after TAG appended, run by ioqos in fq/ and by
# fio in ff/, each writing its logs there
run_both() {
	tag=$1
	shift
	for x in "$@"; do printf '%s\n' "$x" >>f.fio; done
	rm -rf fq ff && mkdir fq ff
	(cd fq && "$IOQOS" run ../f.fio >/dev/null 2>../err) || bad "run ($tag): $(cat err)"
	(cd ff && "$FIO" ../f.fio >/dev/null 2>&1) || bad "fio ($tag)"
}

# the format against fio's: sequential I/O at depth 1 completes in order
find_fio
if [ -n "$FIO" ]; then
	for v in "read log_offset=1" "write log_prio=1 prioclass=2 prio=5" "read log_offset=1 log_prio=1" \
		"trim log_offset=1"; do
		rw=${v%% *} v=${v#* }
		printf '[global]\nioengine=null\nsize=256k\n[f]\nrw=%s\nbs=4k\nwrite_bw_log=f\nwrite_iops_log=f\nwrite_lat_log=f\n' "$rw" >f.fio
		# shellcheck disable=SC2086
		run_both "$v" $v
		if python3 - fq ff <<'PY'
import os, sys
q, f = sys.argv[1:3]
def cols(d, name):
    # all but time and value: direction, size, offset, prio as written
    return [[x.strip() for x in l.split(",")][2:] for l in open(os.path.join(d, name))]
for name in ("f_bw.1.log", "f_iops.1.log", "f_lat.1.log", "f_clat.1.log"):
    a, b = cols(q, name), cols(f, name)
    assert len(a) == 64 and a == b, (name, a[:3], b[:3])
assert os.path.exists(os.path.join(q, "f_slat.1.log"))
PY
		then ok "columns as fio's (rw=$rw $v)"; else bad "columns against fio's (rw=$rw $v)"; fi
	done
fi

# The latency logs averaged over log_avg_msec=, fio's rule (iolog.c): a
# direction's window closes at the first of its completions a window's
# length or more past the window's start, that I/O counted in it and its
# time the line's; the next window starts at that time rounded down to a
# multiple; at the end what is left is written at the job's end.  On the
# sim engine, in virtual time, the same jobs log every I/O in one run and
# average in another: the averages must be those of the lines of every
# I/O, to the nanosecond.  [a] is busy and mixed, ends on its runtime; [b]
# trims four times a second, so windows with no I/O run into the next;
# [c] stops on its count with a window open.
printf '[global]\nioengine=sim\nsize=1m\nrandseed=7\n[a]\nrw=randrw\nbsrange=4k-16k\nrate_iops=250\niodepth=4\nruntime=2s\ntime_based\nlog_offset=1\nwrite_lat_log=a\n[b]\nrw=randtrim\nbs=8k\nrate_iops=,4\nnumber_ios=9\nlog_prio=1\nprio=3\ndisable_slat=1\nwrite_lat_log=b\n[c]\nrw=randread\nbs=4k\nrate_iops=20\nnumber_ios=20\nwrite_lat_log=c\n' >v.fio
mkdir v0
(cd v0 && "$IOQOS" run ../v.fio >/dev/null 2>../err) || bad "sim run, every I/O: $(cat err)"
for mx in 0 1; do
	mkdir v1$mx
	sed "s/^\[global\]\$/[global]\nlog_avg_msec=100\nlog_max_value=$mx/" v.fio >v1$mx.fio
	(cd v1$mx && "$IOQOS" run ../v1$mx.fio >/dev/null 2>../err) || bad "sim run, averaged: $(cat err)"
	if python3 - v0 v1$mx $mx <<'PY'
import os, sys
every, avg, mx = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
A = 100
def rows(d, name):
    return [[x.strip() for x in l.split(",")] for l in open(os.path.join(d, name))]
def expect(ios, end):
    """fio's averaged lines of (ms, ns, ddir) completions, in order"""
    start, win, out = {}, {}, []
    val = max if mx else lambda v: (2 * sum(v) + len(v)) // (2 * len(v))
    for ms, ns, d in ios:
        win.setdefault(d, []).append(ns)
        if ms - start.get(d, 0) >= A:
            out.append((ms, val(win[d]), d))
            win[d], start[d] = [], ms - ms % A
    left = [(end, val(win[d]), d) for d in sorted(win) if win[d]]
    return out + left, len(left)
n, final, quiet = 0, 0, 0
for job, num, tail in (("a", 1, ["0", "0", "0"]), ("b", 2, ["0", "0x0000"]), ("c", 3, ["0", "0"])):
    for kind in ("lat", "clat", "slat"):
        name = "%s_%s.%d.log" % (job, kind, num)
        ios = [(int(r[0]), int(r[1]), int(r[2])) for r in rows(every, name)]
        got = rows(avg, name)
        if job == "b" and kind == "slat":
            assert not ios and not got, name     # disable_slat=1
            continue
        # a job on its runtime ends at 2000 ms; on its count, at its last I/O
        end = 2000 if job == "a" else ios[-1][0]
        want, left = expect(ios, end)
        assert [r[3:] for r in got] == [tail] * len(got), (name, got[:3])
        assert [(int(r[0]), int(r[1]), int(r[2])) for r in got] == want, \
            (name, got[:5], want[:5])
        n += len(want)
        final += left
        quiet += sum(1 for x, y in zip(want, want[1:]) if y[2] == x[2] and
                     y[0] // A - x[0] // A > 1)
dirs = {int(r[2]) for r in rows(avg, "a_lat.1.log")} | {int(r[2]) for r in rows(avg, "b_lat.2.log")}
# the run covers what it means to: three directions, windows that end with
# the job, windows that run over quiet ones
assert dirs == {0, 1, 2} and final >= 3 and quiet >= 10 and n > 150, (dirs, final, quiet, n)
PY
	then ok "averaged latency logs (log_max_value=$mx): those of every I/O by fio's rule, exact on the sim engine"
	else bad "averaged latency logs (log_max_value=$mx) against the logs of every I/O"; fi
done

# the averaged logs against fio's own for the same jobs on the null
# engine: what a real clock leaves comparable.  Every column but time and
# value exactly (direction, bs 0, offset 0, prio 0 or 0x0000); per
# direction as many lines within one; each line's time by the rule above
# (at or past the multiple of log_avg_msec after the line before, the
# last excepted: it may be the end's); the values ns above 0.
if [ -n "$FIO" ]; then
	for v in "randrw log_offset=1 log_prio=1" "randread rate_iops=20 log_max_value=1" "trim"; do
		rw=${v%% *} v=${v#"$rw"}
		printf '[global]\nioengine=null\nsize=64m\n[f]\nrw=%s\nbs=4k\nruntime=1\ntime_based\nwrite_lat_log=f\nwrite_bw_log=f\nwrite_iops_log=f\nlog_avg_msec=100\n' "$rw" >f.fio
		# shellcheck disable=SC2086
		run_both "$rw$v" $v
		if python3 - fq ff <<'PY'
import os, sys
q, f = sys.argv[1:3]
A = 100
def rows(d, name):
    return [[x.strip() for x in l.split(",")] for l in open(os.path.join(d, name))]
def n(log, d):
    return sum(1 for r in log if r[2] == d)
for name in ("f_lat.1.log", "f_clat.1.log"):
    a, b = rows(q, name), rows(f, name)
    assert {tuple(r[2:]) for r in a} == {tuple(r[2:]) for r in b}, (name, a[:3], b[:3])
    assert all(r[3:-1] == ["0"] * (len(r) - 4) for r in a), (name, a[:3])
    for log in (a, b):
        for d in {r[2] for r in log}:
            t = [int(r[0]) for r in log if r[2] == d]
            assert all(int(r[1]) > 0 for r in log), (name, log[:3])
            assert t[0] >= A and all(y >= x - x % A + A for x, y in zip(t, t[1:-1])), (name, d, t)
            assert t == sorted(t), (name, d, t)
    assert all(abs(n(a, d) - n(b, d)) <= 1 for d in {r[2] for r in a + b}), \
        (name, [(d, n(a, d), n(b, d)) for d in {r[2] for r in a + b}])
assert os.path.exists(os.path.join(q, "f_slat.1.log"))
# the bw and iops logs beside them: the same columns after the value
for name in ("f_bw.1.log", "f_iops.1.log"):
    a, b = rows(q, name), rows(f, name)
    assert a and {tuple(r[2:]) for r in a} == {tuple(r[2:]) for r in b}, (name, a[:3], b[:3])
PY
		then ok "averaged latency logs as fio's ($rw$v)"; else bad "averaged latency logs against fio's ($rw$v)"; fi
	done
fi

printf '[l]\nsize=1m\nwrite_lat_log\nlog_avg_msec=100\nlog_max_value=1\n' >l.fio
if "$IOQOS" check l.fio 2>&1 | grep -q "latency logs: l_{lat,clat,slat}.N.log, the largest over 100 ms"; then
	ok "ioqos check describes an averaged latency log"
else
	bad "ioqos check of an averaged latency log: $("$IOQOS" check l.fio 2>&1)"
fi
printf '[l]\nsize=1m\nwrite_lat_log\nlog_avg_msec=1500us\n' >l.fio
expect_fail "averaged latency logs in whole milliseconds" "log_avg_msec=1500us: .*whole milliseconds" "$IOQOS" check l.fio
finish
