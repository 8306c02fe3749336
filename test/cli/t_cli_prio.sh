#!/bin/sh
# I/O priorities with fio 3.33's meaning, on a real file with io_uring:
# cmdprio_percentage= gives its share of the I/Os cmdprio_class=/cmdprio=
# (the prio column of the per-I/O log, over 4000 seeded I/Os, within four
# standard deviations of the share), and exactly those values are on the
# SQEs handed to liburing (a preloaded wrapper of io_uring_submit reads
# them); cmdprio_bssplit='s per-entry classes by block size; fio's JSON
# "prios"; prio=/prioclass= by ioprio_set(2) on a psync job's thread
# (strace); the refusals (psync's cmdprio, percentage with bssplit, sim).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
command -v cc >/dev/null || { echo "cc is needed"; exit 77; }
cd "$TMP" || exit 1
cc -shared -fPIC -O1 -o shim.so "$ROOT/test/cli/helpers/sqe_shim.c" -ldl ||
	{ bad "the SQE wrapper does not build"; finish; }
# ASan wants to come first; the wrapper only wraps two functions
export ASAN_OPTIONS="$ASAN_OPTIONS:verify_asan_link_order=0"

# --- cmdprio_percentage: the share, the log, the SQEs, the JSON
printf '[global]\nfilename=p.dat\nsize=16m\ndirect=0\nioengine=io_uring\niodepth=8\nrandseed=11\nwrite_lat_log=pl\nlog_prio=1\n[pct]\nrw=randread\nbs=4k\nnumber_ios=4000\nprioclass=3\nprio=5\ncmdprio_percentage=30\ncmdprio_class=1\ncmdprio=4\n' >pct.fio
if SQE_LOG=sqe.log LD_PRELOAD=./shim.so "$IOQOS" run pct.fio --output-format=json >pct.json 2>err; then
	if python3 - <<'PY'
import json, math
log = [l.split(",") for l in open("pl_clat.1.log")]
prios = [int(f[-1], 16) for f in log]
n = len(prios)
assert n == 4000, n
hi = sum(p == (1 << 13 | 4) for p in prios)
assert all(p in (1 << 13 | 4, 3 << 13 | 5) for p in prios), set(prios)
sd = math.sqrt(n * 0.3 * 0.7)
assert abs(hi - 0.3 * n) < 4 * sd, (hi, n)
sqe = [tuple(map(int, l.split())) for l in open("sqe.log")]
# every SQE: the I/O's priority; the same values as the log, I/O for I/O
assert sorted(p for _, p in sqe) == sorted(prios), (len(sqe), n)
r = json.load(open("pct.json"))["jobs"][0]["read"]
p = {(x["prioclass"], x["prio"]): x["clat_ns"]["N"] for x in r["prios"]}
assert p == {(3, 5): n - hi, (1, 4): hi}, p
PY
	then ok "cmdprio_percentage=30: the log's prio column, the SQEs' ioprio, JSON prios"
	else bad "cmdprio_percentage"; fi
else
	bad "cmdprio_percentage run"; cat err
fi

# --- cmdprio_bssplit, both syntaxes: per-size shares, classes per entry
printf '[global]\nfilename=p.dat\nsize=16m\ndirect=0\nioengine=libaio\niodepth=4\nrandseed=3\nwrite_lat_log=bl\nlog_prio=1\nrw=randread\nnumber_ios=3000\n[adv]\nbssplit=4k/50:16k/50\ncmdprio_bssplit=4k/25/1/1:4k/75/3/2:16k/0\n[simple]\nstonewall\nbssplit=4k/50:16k/50\ncmdprio_bssplit=16k/100\ncmdprio_class=3\ncmdprio=6\n' >bs.fio
if SQE_LOG=sqe2.log LD_PRELOAD=./shim.so "$IOQOS" run bs.fio >/dev/null 2>err; then
	if python3 - <<'PY'
import math
def rows(name):
    return [(int(f[3]), int(f[-1], 16)) for f in (l.split(",") for l in open(name))]
adv, simple = rows("bl_clat.1.log"), rows("bl_clat.2.log")
assert all(p == 0 for bs, p in adv if bs == 16384), "16k keeps no priority"
small = [p for bs, p in adv if bs == 4096]
assert set(small) <= {1 << 13 | 1, 3 << 13 | 2}, set(small)
n, rt = len(small), sum(p == 1 << 13 | 1 for p in small)
assert abs(rt - 0.25 * n) < 4 * math.sqrt(n * 0.25 * 0.75), (rt, n)
assert all(p == (0 if bs == 4096 else 3 << 13 | 6) for bs, p in simple)
sqe = sorted(p for _, p in (map(int, l.split()) for l in open("sqe2.log")))
assert sqe == sorted(p for _, p in adv + simple)
PY
	then ok "cmdprio_bssplit: BS/PCT with cmdprio_class, BS/PCT/CLASS/LEVEL"
	else bad "cmdprio_bssplit"; fi
else
	bad "cmdprio_bssplit run"; cat err
fi

# --- prio= and prioclass= on a psync job: ioprio_set(2) on its thread
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
	printf '[t]\nfilename=p.dat\nsize=1m\nioengine=psync\nrw=read\nbs=64k\nprioclass=3\nprio=6\n' >ps.fio
	if strace -f -e trace=ioprio_set -o st.log "$IOQOS" run ps.fio >/dev/null 2>err &&
	   grep -q 'ioprio_set(IOPRIO_WHO_PROCESS, 0, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 6)) = 0' st.log; then
		ok "prioclass=3 prio=6 on psync: ioprio_set on the job's thread"
	else
		bad "psync ioprio_set"; cat err st.log
	fi
else
	skip_part "psync ioprio_set: no strace, or no ptrace here"
fi

# --- refusals, each with its reason
printf '[a]\nfilename=p.dat\nsize=1m\nioengine=psync\ncmdprio_percentage=10\n' >r1.fio
expect_fail "cmdprio on psync" "r1.fio.*cmdprio options belong to fio's libaio and io_uring" \
	"$IOQOS" check r1.fio
printf '[a]\nfilename=p.dat\nsize=1m\ncmdprio_percentage=10\ncmdprio_bssplit=4k/10\n' >r2.fio
expect_fail "percentage with bssplit" "mutually exclusive" "$IOQOS" check r2.fio
printf '[a]\nsize=1m\ncmdprio_percentage=10\n' >r3.fio
expect_fail "cmdprio on sim" "cmdprio: ioqos sets a priority per I/O on io_uring SQEs.*sim" \
	"$IOQOS" run r3.fio --engine sim
printf '[a]\nsize=1m\ncmdprio_bssplit=4k/60:4k/50\n' >r4.fio
expect_fail "bssplit over 100" "cmdprio_bssplit=.*adding up to 100 at most" "$IOQOS" check r4.fio
finish
