#!/bin/sh
# Logs of every I/O (write_bw_log, write_iops_log, write_lat_log without
# log_avg_msec=): on the sim engine, one line per completed I/O with exact
# values (lat = slat + clat, bw = bs * 10^6 / clat, iops 1, the I/Os' own
# offsets and sizes), as many lines as the JSON counts I/Os, in time
# order; the columns of log_offset= and log_prio= as fio 3.33 writes them,
# line for line against fio's own logs of the same job on fio's null
# engine (offsets, sizes, directions, a trim's 2 included, the prio
# column).
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

# the format against fio's: sequential I/O at depth 1 completes in order
find_fio
if [ -n "$FIO" ]; then
	for v in "read log_offset=1" "write log_prio=1 prioclass=2 prio=5" "read log_offset=1 log_prio=1" \
		"trim log_offset=1"; do
		rw=${v%% *} v=${v#* }
		rm -rf fq ff && mkdir fq ff
		printf '[global]\nioengine=null\nsize=256k\n[f]\nrw=%s\nbs=4k\nwrite_bw_log=f\nwrite_iops_log=f\nwrite_lat_log=f\n' "$rw" >f.fio
		for x in $v; do printf '%s\n' "$x" >>f.fio; done
		(cd fq && "$IOQOS" run ../f.fio >/dev/null 2>../err) || bad "run ($v): $(cat err)"
		(cd ff && "$FIO" ../f.fio >/dev/null 2>&1) || bad "fio ($v)"
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

printf '[l]\nsize=1m\nwrite_lat_log\nlog_avg_msec=100\n' >l.fio
expect_fail "averaged latency logs" "write_lat_log with log_avg_msec" "$IOQOS" check l.fio
finish
