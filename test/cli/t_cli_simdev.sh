#!/bin/sh
# The sim engine's device files beyond the channel model's figures: the
# speed over time (speed_log=, drift=, steps=).  Each scenario runs a job
# with --log-interval and reads the JSON report's intervals with python;
# every figure asserted is one the model fixes, so each check can fail.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
cd "$TMP" || exit 1

# job NAME RW BS DEPTH SECONDS: one job of NAME.fio, time based
job() {
	printf '[%s]\nrw=%s\nbs=%s\niodepth=%s\nruntime=%s\ntime_based\n' \
		"$1" "$2" "$3" "$4" "$5" >"$1.fio"
}

# run NAME DEV FIO ARGS...: NAME.json from a run, or a failure reported
run() {
	rn=$1 dev=$2 fio=$3
	shift 3
	if ! "$IOQOS" run "$fio" --engine sim --device "$dev" --output-format=json \
		"$@" >"$rn.json" 2>"$rn.err"; then
		bad "$rn: $(cat "$rn.err")"
		return 1
	fi
}

# check NAME WHAT: python on stdin (sys.argv[1]: NAME.json) passes
check() {
	if python3 - "$1.json" >"$1.py.out" 2>&1; then ok "$2"; else bad "$2:"; cat "$1.py.out"; fi
}

# ---- speed_log ----------------------------------------------------------

# a 2 s log in a folder of its own, named relative to the device file:
# speeds 0.5, 1.5, 0.5, 1.5 for half a second each, then again
mkdir -p dev
printf '500, 100, 0, 4096, 0\n1000, 300, 0, 4096, 0\n1500,100\n2000 ,  300 ,1\n' >dev/speed.log
printf 'speed_log=speed.log\njitter=0\n' >dev/log.dev
job qd1 randread 4k 1 4
if run log dev/log.dev qd1.fio --log-interval 250; then
	check log "speed_log: the IOPS follow the log, and it repeats" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert "speed_log=speed.log" in r["device"], r["device"]
iv = [x["read_ios"] for x in r["ioqos"]["intervals"]]
assert len(iv) == 16, iv
slow, fast = iv[0:2] + iv[4:6] + iv[8:10] + iv[12:14], iv[2:4] + iv[6:8] + iv[10:12] + iv[14:16]
# QD1 on the ssd's figures: 134.5 us per I/O, 1858 I/Os in 250 ms at speed 1
for v in slow:
    assert abs(v / (1858 * 0.5) - 1) < 0.01, iv
for v in fast:
    assert abs(v / (1858 * 1.5) - 1) < 0.01, iv
PY
fi

# a log that ioqos writes itself (fio's format, log_avg_msec=): a device
# twice as slow from 1 s on, measured, then played by another device
printf 'slowdown_at=1s\nslowdown=2\njitter=0\n' >slow.dev
printf '[m]\nrw=randread\nbs=4k\niodepth=1\nruntime=2\ntime_based\nwrite_iops_log=m\nlog_avg_msec=250\n' >m.fio
if "$IOQOS" run m.fio --engine sim --device slow.dev >/dev/null 2>m.err; then
	printf 'speed_log=%s/m_iops.1.log\njitter=0\n' "$TMP" >played.dev
	if run played played.dev qd1.fio --log-interval 250 --runtime-all 2; then
		check played "speed_log: a log written by write_iops_log plays back" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
iv = [x["read_ios"] for x in r["ioqos"]["intervals"]]
assert len(iv) == 8, iv
# speeds 4/3 then 2/3 of the mean: the same halving as the measured device
for v in iv[:4]:
    assert abs(v / (1858 * 4 / 3) - 1) < 0.01, iv
for v in iv[4:]:
    assert abs(v / (1858 * 2 / 3) - 1) < 0.01, iv
PY
	fi
else
	bad "write_iops_log run: $(cat m.err)"
fi

# ---- drift --------------------------------------------------------------

# drift=20: the log of the speed has a standard deviation of 0.2; at QD1
# the IOPS are the speed's, so the spread of 20 ms intervals over 30 s
# (some 300 independent values at tau 100 ms) is near 0.2
printf 'jitter=0\ndrift=20\ndrift_tau=100ms\n' >drift.dev
job d30 randread 4k 1 30
run drift1 drift.dev d30.fio --log-interval 20 --seed 1 &&
run drift1b drift.dev d30.fio --log-interval 20 --seed 1 &&
run drift2 drift.dev d30.fio --log-interval 20 --seed 2 && {
	cmp -s drift1.json drift1b.json && ok "drift: one seed, one run" ||
		bad "drift: two runs with one seed differ"
	cmp -s drift1.json drift2.json && bad "drift: the seed changes nothing" ||
		ok "drift: another seed, another run"
	check drift1 "drift: the spread asked for, around a mean of 1" <<'PY'
import json, math, sys
r = json.load(open(sys.argv[1]))
assert "drift=20 drift_tau=100ms" in r["device"], r["device"]
iv = [x["read_ios"] for x in r["ioqos"]["intervals"]]
assert len(iv) == 1500, len(iv)
l = [math.log(v) for v in iv]
m = sum(l) / len(l)
sd = (sum((x - m) ** 2 for x in l) / len(l)) ** 0.5
assert 0.16 < sd < 0.24, sd
mean = sum(iv) / len(iv) / (1858 * 20 / 250)
assert 0.9 < mean < 1.1, mean
# neighbouring intervals are alike (tau 100 ms), far ones are not
c1 = sum((l[i] - m) * (l[i + 1] - m) for i in range(len(l) - 1)) / len(l) / sd ** 2
c50 = sum((l[i] - m) * (l[i + 50] - m) for i in range(len(l) - 50)) / len(l) / sd ** 2
assert c1 > 0.7 and c50 < 0.3, (c1, c50)
PY
}

# ---- steps --------------------------------------------------------------

# slower by 2 to 3 for 50-150 ms, every 500 ms on average: about a sixth
# of the time, and never by more than 3 or less than 2 inside a step
printf 'jitter=0\nsteps=2-3\nstep_every=500ms\nstep_len=100ms\n' >steps.dev
run steps1 steps.dev d30.fio --log-interval 10 --seed 1 &&
run steps1b steps.dev d30.fio --log-interval 10 --seed 1 &&
run steps2 steps.dev d30.fio --log-interval 10 --seed 2 && {
	cmp -s steps1.json steps1b.json && ok "steps: one seed, one run" ||
		bad "steps: two runs with one seed differ"
	cmp -s steps1.json steps2.json && bad "steps: the seed changes nothing" ||
		ok "steps: another seed, another run"
	check steps1 "steps: their share of the time and their depth" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert "steps=2-3 step_every=500ms step_len=100ms" in r["device"], r["device"]
iv = [x["read_ios"] for x in r["ioqos"]["intervals"]]
full = 1858 * 10 / 250
rel = [v / full for v in iv]
slowed = [x for x in rel if x < 0.95]
share = len(slowed) / len(rel)
assert 0.10 < share < 0.24, share
# an interval wholly inside a step runs at 1/3 to 1/2; one that a step's
# edge cuts lies between that and 1
assert min(rel) > 1 / 3 - 0.02, min(rel)
inside = [x for x in slowed if x < 0.52]
assert len(inside) > 0.6 * len(slowed), (len(inside), len(slowed))
# the factors are spread over [2, 3], not one value
assert max(inside) - min(inside) > 0.1, (min(inside), max(inside))
PY
}

# ---- the curve device -----------------------------------------------------

CURVE=1:15k,8:57k,16:68k,32:80k,64:88k,128:92k
printf '# a made-up NVMe drive\ncurve=%s\n' "$CURVE" >curve.dev
# IOPS(n) in python, from the points as the documentation gives the model
cat >curve.py <<'PY'
import math
PTS = [(1, 15e3), (8, 57e3), (16, 68e3), (32, 80e3), (64, 88e3), (128, 92e3)]
def iops(n):
    if n <= PTS[0][0]:
        return PTS[0][1] * n / PTS[0][0]
    if n >= PTS[-1][0]:
        return PTS[-1][1]
    for (d0, i0), (d1, i1) in zip(PTS, PTS[1:]):
        if d0 <= n < d1:
            return i0 + (i1 - i0) * math.log(n / d0) / math.log(d1 / d0)
PY

# a job alone at iodepth n gets IOPS(n), at a latency of n / IOPS(n), at
# the points, between them, below the first and past the last
for n in 1 4 8 24 32 100 128 200; do
	job "qd$n" randread 4k "$n" 1
	run "curve$n" curve.dev "qd$n.fio" || continue
	N=$n check "curve$n" "curve: iodepth $n gives IOPS($n) at $n / IOPS($n)" <<'PY'
import json, os, sys
sys.path.insert(0, ".")
from curve import iops
n = int(os.environ["N"])
r = json.load(open(sys.argv[1]))
assert r["device"].startswith("curve.dev: curve=1:15k,8:57k,16:68k,32:80k,64:88k,128:92k "
                              "size_cost=4096 write_cost=1 jitter=10 "), r["device"]
rd = r["jobs"][0]["read"]
want = iops(n)
assert abs(rd["iops"] / want - 1) < 0.02, (rd["iops"], want)
lat = rd["clat_ns"]["mean"] / 1e9
assert abs(lat / (n / want) - 1) < 0.02, (lat, n / want)
PY
done

# two runs with one seed are one run; the jitter moves with the seed
run curve8b curve.dev qd8.fio && cmp -s curve8.json curve8b.json &&
	ok "curve: one seed, one run" || bad "curve: two runs with one seed differ"
run curve8s curve.dev qd8.fio --seed 7 && cmp -s curve8.json curve8s.json &&
	bad "curve: the seed changes nothing" || ok "curve: another seed, another run"

# a 64 KiB read costs 1 + 60 KiB / size_cost 4 KiB reads: 16 by default,
# 1.9375 with size_cost=64k; a write costs write_cost times a read
job big randread 64k 1 1
run big curve.dev big.fio && check big "curve: a 64 KiB read costs its bytes' worth" <<'PY'
import json, sys
rd = json.load(open(sys.argv[1]))["jobs"][0]["read"]
assert abs(rd["iops"] / (15e3 / 16) - 1) < 0.02, rd["iops"]
PY
printf 'curve=%s\nsize_cost=64k\n' "$CURVE" >cheap.dev
run cheap cheap.dev big.fio && check cheap "curve: size_cost=64k makes it 1.94 reads" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert " size_cost=65536 " in r["device"], r["device"]
rd = r["jobs"][0]["read"]
assert abs(rd["iops"] / (15e3 / 1.9375) - 1) < 0.02, rd["iops"]
PY
printf 'curve=%s\nwrite_cost=3\n' "$CURVE" >wr.dev
job wr8 randwrite 4k 8 1
run wr wr.dev wr8.fio && run wrr wr.dev qd8.fio &&
check wr "curve: write_cost=3 makes writes a third as fast, not reads" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rr = json.load(open(sys.argv[1].replace("wr.json", "wrr.json")))
assert " write_cost=3 " in r["device"], r["device"]
assert abs(r["jobs"][0]["write"]["iops"] / (57e3 / 3) - 1) < 0.02, r["jobs"][0]["write"]
assert abs(rr["jobs"][0]["read"]["iops"] / 57e3 - 1) < 0.02, rr["jobs"][0]["read"]
PY

# the speed on a curve device: the rate is IOPS(n) times the speed, a log
# (0.5, 1.5, ...) or a slowdown
printf 'curve=%s\nspeed_log=speed.log\n' "$CURVE" >dev/curvelog.dev
job qd32l randread 4k 32 2
run curvelog dev/curvelog.dev qd32l.fio --log-interval 250 &&
check curvelog "curve: a speed log scales IOPS(n)" <<'PY'
import json, sys
iv = [x["read_ios"] for x in json.load(open(sys.argv[1]))["ioqos"]["intervals"]]
assert len(iv) == 8, iv
for i, v in enumerate(iv):
    want = 80e3 * 0.25 * (0.5 if i % 4 < 2 else 1.5)
    assert abs(v / want - 1) < 0.02, (i, v, want)
PY
printf 'curve=%s\nslowdown_at=1s\nslowdown=2\n' "$CURVE" >curveslow.dev
run curveslow curveslow.dev qd32l.fio --log-interval 250 &&
check curveslow "curve: slowdown=2 from 1 s halves IOPS(n)" <<'PY'
import json, sys
iv = [x["read_ios"] for x in json.load(open(sys.argv[1]))["ioqos"]["intervals"]]
for i, v in enumerate(iv):
    want = 80e3 * 0.25 * (1 if i < 4 else 0.5)
    assert abs(v / want - 1) < 0.02, (i, v, want)
PY

# ---- the neighbour --------------------------------------------------------

# a job at depth 32 beside a neighbour at depth 32 of the same 4 KiB reads:
# 64 out, IOPS(64) = 88k shared by count, half each, at 64 / 88k
printf 'curve=%s\nneighbour_depth=32\nneighbour_bs=4k\nneighbour_rw=randread\n' "$CURVE" >share.dev
job qd32 randread 4k 32 2
run share share.dev qd32.fio && run shareb share.dev qd32.fio && {
	cmp -s share.json shareb.json && ok "neighbour: one seed, one run" ||
		bad "neighbour: two runs with one seed differ"
	check share "neighbour: half of IOPS(64) for the job beside it" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert ("neighbour_depth=32 neighbour_bs=4096 neighbour_rw=randread neighbour_at=0"
        in r["device"]), r["device"]
rd = r["jobs"][0]["read"]
assert abs(rd["iops"] / 44e3 - 1) < 0.02, rd["iops"]
assert abs(rd["clat_ns"]["mean"] / (64 / 88e3 * 1e9) - 1) < 0.02, rd["clat_ns"]["mean"]
PY
}

# neighbour_cost=3: each of its reads is three of the job's, so the job
# gets 32 of every 32 + 3 x 32 units of IOPS(64), a quarter of 88k
printf 'curve=%s\nneighbour_depth=32\nneighbour_bs=4k\nneighbour_rw=randread\nneighbour_cost=3\n' \
	"$CURVE" >cost.dev
run ncost cost.dev qd32.fio && check ncost "neighbour_cost=3: a quarter of IOPS(64)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert "neighbour_cost=3" in r["device"], r["device"]
assert abs(r["jobs"][0]["read"]["iops"] / 22e3 - 1) < 0.02, r["jobs"][0]["read"]["iops"]
PY

# its bursts show in the run's intervals: on for 250 ms every 750 ms from
# 500 ms, 64 KiB random writes (16 reads' worth each): while it is on, the
# job gets 32 of every 32 + 32 x 16 units of IOPS(64), and IOPS(32) else
printf 'curve=%s\nneighbour_depth=32\nneighbour_at=500ms\nneighbour_on=250ms\nneighbour_off=500ms\n' \
	"$CURVE" >burst.dev
run burst burst.dev qd32.fio --log-interval 125 &&
check burst "neighbour: its on/off schedule in the intervals (curve)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert "neighbour_at=500ms neighbour_on=250ms neighbour_off=500ms" in r["device"], r["device"]
iv = [x["read_ios"] for x in r["ioqos"]["intervals"]]
assert len(iv) == 16, iv
on = {4, 5, 10, 11}
drain = {6, 12}          # what it has out when it stops is served first
for i, v in enumerate(iv):
    if i in on:
        assert abs(v / (88e3 * 32 / (32 + 32 * 16) * 0.125) - 1) < 0.1, (i, iv)
    elif i not in drain:
        assert abs(v / (80e3 * 0.125) - 1) < 0.02, (i, iv)
    else:
        assert 0.8 * 80e3 * 0.125 < v < 80e3 * 0.125 * 0.995, (i, iv)
PY

# the channel device: the ssd preset's figures in a file, and a neighbour
# of 8 64 KiB random writes on for 500 ms in every second from 500 ms
cat >chan.dev <<'EOF'
channels=32
lat=124500ns
chan_bw=4000000000
link_lat=2000ns
link_bw=560000000
seek=0
jitter=10
capacity=256g
neighbour_depth=8
neighbour_at=500ms
neighbour_on=500ms
EOF
job chan8 randread 4k 8 2
run chan chan.dev chan8.fio --log-interval 125 && run chanb chan.dev chan8.fio --log-interval 125 && {
	cmp -s chan.json chanb.json && ok "neighbour: one seed, one run (channels)" ||
		bad "neighbour: two runs with one seed differ (channels)"
	check chan "neighbour: its on/off schedule in the intervals (channels)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert "neighbour_on=500ms neighbour_off=500ms" in r["device"], r["device"]
iv = [x["read_ios"] for x in r["ioqos"]["intervals"]]
assert len(iv) == 16, iv
off = [v for i, v in enumerate(iv) if (i // 4) % 2 == 0 and i % 4]
on = [v for i, v in enumerate(iv) if (i // 4) % 2 == 1 and i % 4]
# alone: QD8 on the ssd, some 7300 in 125 ms; beside the writes, the link
# carries 8 x 64 KiB for each few reads
assert all(abs(v / 7300 - 1) < 0.03 for v in off), iv
assert all(v < 0.3 * min(off) for v in on), iv
PY
}

# random means random places: on a disk, a neighbour reading 4 KiB at
# random makes the arm seek away from a job reading on in order
printf 'channels=1\nlat=200us\nchan_bw=160000000\nlink_lat=0\nlink_bw=600000000\nseek=6ms\njitter=0\n' >disk.dev
cp disk.dev diskrand.dev
printf 'neighbour_depth=1\nneighbour_bs=4k\nneighbour_rw=randread\n' >>diskrand.dev
job seq read 128k 1 2
run disk disk.dev seq.fio && run diskrand diskrand.dev seq.fio &&
check diskrand "neighbour: a random one makes the disk seek" <<'PY'
import json, sys
alone = json.load(open(sys.argv[1].replace("diskrand", "disk")))["jobs"][0]["read"]["iops"]
beside = json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"]
# alone: 1.24 ms per 128 KiB read; beside it, each of its reads and each of
# the neighbour's costs a seek of 6 ms
assert 780 < alone < 830, alone
assert 60 < beside < 90, beside
PY

# the example: a drifting curve device beside a neighbour that writes for
# 2 s in every 5 s from 1 s on: the run's IOPS fall by half in its bursts
if "$IOQOS" run "$ROOT/examples/2016-qd8x8.fio" --device "$ROOT/examples/sim/curve-neighbour.dev" \
	--runtime-all 10 --log-interval 500 --output-format=json >ex.json 2>ex.err; then
	check ex "examples/sim/curve-neighbour.dev: its bursts in the intervals" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for k in ("curve=1:15k,8:57k,16:68k,32:80k,64:88k,128:92k", "size_cost=16384", "write_cost=2",
          "drift=5 drift_tau=50ms", "neighbour_depth=16", "neighbour_on=2s neighbour_off=3s"):
    assert k in r["device"], (k, r["device"])
iv = [x["read_ios"] for x in r["ioqos"]["intervals"] if x["group"] == "/"]
assert len(iv) == 20, iv
burst = [v for i, v in enumerate(iv) if 2 <= i < 6 or 12 <= i < 16]
calm = [v for i, v in enumerate(iv) if i < 2 or 7 <= i < 12 or i >= 17]
assert max(burst) < 0.6 * min(calm), (burst, calm)
PY
else
	bad "the example device: $(cat ex.err)"
fi

finish
