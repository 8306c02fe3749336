#!/bin/sh
# fio's generic options with fio's meaning, each checked by what it does:
# exact counts from the sim and null engines, and the bytes on disk after
# psync runs on files in a scratch directory (the written pattern shows
# where each I/O went).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }

run_json() {  # run_json FILE [args]: the JSON report in $TMP/r.json
	f=$1
	shift
	"$IOQOS" run "$f" --output-format=json "$@" >"$TMP/r.json" 2>"$TMP/err"
}

# io_size, loops, number_ios: exact counts
cat >"$TMP/n.fio" <<'E'
[global]
ioengine=sim
size=1m
bs=4k
[sized]
rw=randread
io_size=256k
loops=3
[counted]
rw=read
number_ios=77
[timed]
rw=write
runtime=1
time_based
number_ios=500
E
if run_json "$TMP/n.fio" && python3 - "$TMP/r.json" <<'PY'
import json, sys
j = {x["jobname"]: x for x in json.load(open(sys.argv[1]))["jobs"]}
assert j["sized"]["read"]["io_bytes"] == 3 * 256 * 1024, j["sized"]["read"]
assert j["counted"]["read"]["total_ios"] == 77
assert j["timed"]["write"]["total_ios"] == 500     # even when time based
PY
then ok "io_size, loops, number_ios"; else bad "io_size, loops, number_ios: $(cat "$TMP/err")"; fi

# bssplit and bsrange: every I/O is one of the sizes, in the shares asked
cat >"$TMP/b.fio" <<'E'
[global]
ioengine=sim
size=256m
runtime=2
time_based
iodepth=8
[split]
rw=randread
bssplit=4k/75:64k/25
[range]
rw=randwrite
bsrange=4k-16k
[both]
rw=randrw
bssplit=8k/100,128k/100
E
if run_json "$TMP/b.fio" --seed 5 && python3 - "$TMP/r.json" <<'PY'
import json, sys
j = {x["jobname"]: x for x in json.load(open(sys.argv[1]))["jobs"]}
r = j["split"]["read"]
n, b = r["total_ios"], r["io_bytes"]
big = (b - 4096 * n) / (65536 - 4096)          # I/Os of 64k
assert big == int(big) and 0 <= big <= n, (n, b)
assert abs(big / n - 0.25) < 0.02, big / n      # thousands of draws
w = j["range"]["write"]
assert w["io_bytes"] % 4096 == 0 and 4096 * w["total_ios"] < w["io_bytes"] < 16384 * w["total_ios"]
avg = w["io_bytes"] / w["total_ios"]
assert abs(avg - 10240) < 300, avg               # 4k, 8k, 12k, 16k alike
x = j["both"]
assert x["read"]["io_bytes"] == 8192 * x["read"]["total_ios"]
assert x["write"]["io_bytes"] == 131072 * x["write"]["total_ios"]
PY
then ok "bssplit and bsrange"; else bad "bssplit and bsrange: $(cat "$TMP/err")"; fi

# disable_clat, disable_slat, gtod_reduce: not measured, reported as zeros
cat >"$TMP/d.fio" <<'E'
[global]
ioengine=sim
size=1m
[noclat]
disable_clat=1
[reduced]
gtod_reduce=1
E
if run_json "$TMP/d.fio" && python3 - "$TMP/r.json" <<'PY'
import json, sys
j = {x["jobname"]: x for x in json.load(open(sys.argv[1]))["jobs"]}
a, b = j["noclat"]["read"], j["reduced"]["read"]
assert a["clat_ns"]["N"] == 0 and a["lat_ns"]["N"] == a["total_ios"] == 256
assert b["clat_ns"]["N"] == b["slat_ns"]["N"] == b["lat_ns"]["N"] == 0 and b["total_ios"] == 256
PY
then ok "disable_clat and gtod_reduce"; else bad "disable_*: $(cat "$TMP/err")"; fi

# where the writes go, read back from the file: buffer_pattern marks every
# byte written, the layout's filler is anything else
mkdir -p "$TMP/d"
where() {  # where JOBOPTS: the 4k blocks of $TMP/d/f that hold the pattern
	rm -f "$TMP/d/f"
	printf '[w]\nioengine=sync\ndirect=0\nfilename=%s/d/f\nsize=1m\nbs=4k\nbuffer_pattern=0xab\n%b' \
		"$TMP" "$1" >"$TMP/w.fio"
	"$IOQOS" run "$TMP/w.fio" >/dev/null 2>"$TMP/err" || { echo "run failed: $(cat "$TMP/err")"; return; }
	python3 - "$TMP/d/f" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
print(" ".join(str(i) for i in range(len(d) // 4096) if d[i * 4096:(i + 1) * 4096] == b"\xab" * 4096))
PY
}
got=$(where 'rw=write:12k\nio_size=64k\n')
[ "$got" = "0 4 8 12 16 20 24 28 32 36 40 44 48 52 56 60" ] && ok "rw=write:12k skips 12k" || bad "rw=write:12k: $got"
got=$(where 'rw=write\nio_size=64k\nzonemode=strided\nzonesize=16k\nzoneskip=48k\n')
[ "$got" = "0 1 2 3 16 17 18 19 32 33 34 35 48 49 50 51" ] && ok "zonemode=strided" || bad "strided: $got"
got=$(where 'rw=write\nio_size=64k\nzonemode=strided\nzonesize=32k\nzonerange=16k\nzoneskip=48k\n')
[ "$got" = "0 1 2 3 16 17 18 19" ] && ok "zonemode=strided: zonesize twice a zonerange" || bad "strided range: $got"
got=$(where 'rw=randwrite\nio_size=512k\nrandom_distribution=zoned:100/25:0/75\n')
python3 -c 'import sys; b=[int(x) for x in sys.argv[1].split()]; assert b and max(b) < 64 and len(b) > 40, b' "$got" &&
	ok "random_distribution=zoned keeps to its zone" || bad "zoned: $got"
got=$(where 'rw=randwrite\nnorandommap\nrandom_generator=lfsr\n')
[ "$(echo "$got" | wc -w)" = 256 ] && ok "random_generator=lfsr: every block once" || bad "lfsr: $(echo "$got" | wc -w) blocks"
got=$(where 'rw=randwrite\nnorandommap\n')
[ "$(echo "$got" | wc -w)" -lt 200 ] && ok "norandommap alone draws blocks twice" || bad "norandommap: $(echo "$got" | wc -w) blocks"
got=$(where 'rw=randwrite\nio_size=64k\nrw=randwrite:4\n')
python3 -c '
import sys; b=[int(x) for x in sys.argv[1].split()]
runs = []
for x in b:
    if runs and runs[-1][-1] + 1 == x: runs[-1].append(x)
    else: runs.append([x])
assert len(b) == 16 and all(len(r) % 4 == 0 for r in runs), runs' "$got" &&
	ok "rw=randwrite:4: four I/Os per random offset" || bad "randwrite:4: $got"

# nrfiles and filename_format: the files fio would make, sized as fio would
rm -rf "$TMP/d"; mkdir -p "$TMP/d"
printf '[global]\nioengine=psync\ndirect=0\ndirectory=%s/d\nsize=3m\nrw=write\n[multi]\nnrfiles=3\nnumjobs=2\n[named]\nnrfiles=2\nfilename_format=data.$filenum\n' \
	"$TMP" >"$TMP/f.fio"
if "$IOQOS" run "$TMP/f.fio" >/dev/null 2>"$TMP/err"; then
	[ "$(cd "$TMP/d" && ls | tr '\n' ' ')" = "data.0 data.1 multi.0.0 multi.0.1 multi.0.2 multi.1.0 multi.1.1 multi.1.2 " ] &&
		[ "$(stat -c %s "$TMP/d/multi.1.2")" = 1048576 ] && [ "$(stat -c %s "$TMP/d/data.1")" = 1572864 ] &&
		ok "nrfiles and filename_format" || bad "files: $(ls -l "$TMP/d")"
else
	bad "nrfiles run: $(cat "$TMP/err")"
fi

# write_bw_log and write_iops_log averaged over log_avg_msec: fio's files,
# line for line in time, direction and columns against fio's own logs of
# the same job (with log_offset too)
cd "$TMP" || exit 1
for off in 0 1; do
	mkdir -p "$TMP/lq$off" "$TMP/lf$off"
	printf '[global]\nioengine=null\nsize=16m\nruntime=2200ms\ntime_based\n[lg]\nrw=randrw\nwrite_bw_log=bwp\nwrite_iops_log\nlog_avg_msec=1000\nlog_offset=%s\n' $off >"$TMP/l.fio"
	(cd "$TMP/lq$off" && "$IOQOS" run "$TMP/l.fio" >/dev/null 2>"$TMP/err") || bad "logs run: $(cat "$TMP/err")"
	command -v fio >/dev/null && (cd "$TMP/lf$off" && fio "$TMP/l.fio" >/dev/null 2>&1)
	if python3 - "$TMP/lq$off" "$TMP/lf$off" <<'PY'
import os, sys
q, f = sys.argv[1:3]
assert sorted(os.listdir(q)) == ["bwp_bw.1.log", "lg_iops.1.log"], os.listdir(q)
for name in os.listdir(q):
    rows = [[int(x) for x in l.split(",")] for l in open(os.path.join(q, name))]
    # 2.2 s averaged over 1000 ms: two entries per direction
    assert [(r[0], r[2]) for r in rows] == [(1000, 0), (1000, 1), (2000, 0), (2000, 1)], rows
    assert all(r[1] > 0 and r[3] == 0 for r in rows), rows
    if os.path.exists(os.path.join(f, name)):
        theirs = [[int(x) for x in l.split(",")] for l in open(os.path.join(f, name))]
        # fio's clock is real: its stamps are late by as long as fio waited
        # for the CPU at the window's end, within that window in any case
        assert [(r[0] - r[0] % 1000, r[2], len(r), r[3]) for r in theirs] == \
               [(r[0], r[2], len(r), r[3]) for r in rows], (rows, theirs)
PY
	then ok "bw and iops logs as fio's (log_offset=$off)"; else bad "logs (log_offset=$off)"; fi
done
finish
