#!/bin/sh
# The psync engine's threads under ThreadSanitizer (build/ioqos-tsan): a
# short run of several clones under a depth that holds requests back, and
# a Ctrl-C in the middle of one.  Any report of a race fails the test.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
TSAN=${IOQOS_TSAN:-$ROOT/build/ioqos-tsan}
[ -x "$TSAN" ] || { echo "no $TSAN: build it first"; exit 1; }
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"

mkdir -p "$TMP/d"
# global DIRECT RUNTIME: the [global] section of the job files here
global() {
	cat <<E
[global]
ioengine=psync
directory=$TMP/d
filename=data.bin
size=4m
bs=4k
direct=$1
runtime=$2
time_based
E
}
job() { # direct runtime
	global "$1" "$2"
	cat <<E
[readers]
rw=randread
numjobs=4
cgroup=r
[writer]
rw=randwrite
cgroup=w
E
}
printf '/ depth=3\n/r weight=300\n' >"$TMP/q.qos"
direct=1
job 1 300ms >"$TMP/t.fio"
"$TSAN" run "$TMP/t.fio" --qos "$TMP/q.qos" --output-format=json >"$TMP/t.json" 2>"$TMP/err"
rc=$?
if [ $rc != 0 ] && grep -q 'Invalid argument' "$TMP/err"; then
	# a filesystem without O_DIRECT (tmpfs)
	direct=0
	job 0 300ms >"$TMP/t.fio"
	"$TSAN" run "$TMP/t.fio" --qos "$TMP/q.qos" --output-format=json >"$TMP/t.json" 2>"$TMP/err"
	rc=$?
fi
if [ $rc = 0 ] && python3 - "$TMP/t.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["engine"] == "psync" and not r["interrupted"]
j = [x for x in r["jobs"] if x["jobname"] == "readers"]
assert len(j) == 4 and all(x["read"]["total_ios"] > 0 for x in j), j
w = [x for x in r["jobs"] if x["jobname"] == "writer"]
assert w[0]["write"]["total_ios"] > 0
# five threads, one I/O each, three slots: the slots stay full (one loop
# thread doing the I/O itself could never have more than one out)
dev = r["ioqos"]["device"]
assert dev["depth"] == 3 and dev["inflight_mean"] >= 2, dev
for x in r["jobs"]:
    for d in ("read", "write"):
        assert x[d]["io_bytes"] == 4096 * x[d]["total_ios"]
PY
then ok "psync, 5 threads, depth 3, no race (direct=$direct)"
else bad "psync under tsan: exit $rc"; head -40 "$TMP/err"; fi

# the loop's thread at its timers while the workers take turns: paced
# jobs (thinktime=, rate_iops=); then beside io_uring, whose ring is the
# loop thread's own, so that the workers hand their I/Os over instead
cat >"$TMP/paced.fio" <<E
[global]
directory=$TMP/d
filename=data.bin
size=4m
bs=4k
direct=$direct
runtime=400ms
time_based
rw=randread
[think]
ioengine=psync
numjobs=2
thinktime=2ms
cgroup=r
[paced]
ioengine=psync
rate_iops=500
E
for ring in 0 1; do
	[ $ring = 1 ] && printf '[ring]\nioengine=io_uring\niodepth=4\n' >>"$TMP/paced.fio"
	"$TSAN" run "$TMP/paced.fio" --qos "$TMP/q.qos" --output-format=json >"$TMP/p.json" 2>"$TMP/p.err"
	rc=$?
	if [ $rc = 0 ] && python3 - "$TMP/p.json" $ring <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
n = {}
for x in r["jobs"]:
    n.setdefault(x["jobname"], []).append(x["read"]["total_ios"])
want = ["paced", "think"] + (["ring"] if sys.argv[2] == "1" else [])
assert sorted(n) == sorted(want) and len(n["think"]) == 2, n
assert all(v > 0 for k in n for v in n[k]), n
# 500 IOPS over 0.4 s, and no more than one I/O per 2 ms of think time
assert n["paced"][0] <= 201 and max(n["think"]) <= 201, n
PY
	then ok "psync paced (beside io_uring: $ring): no race"
	else bad "psync paced (beside io_uring: $ring) under tsan: exit $rc"; head -40 "$TMP/p.err"; fi
done

# every job's thread on its lane with nothing between it and the file,
# then held by a limit that the loop's thread lets go at its wake time:
# 4 threads in two groups 3:1 under "/ riops=2000 burst=10ms" for 300 ms
# get no more than R*T + B + one request each (621), and all four run
{ global "$direct" 300ms; cat <<E
rw=randread
[a]
numjobs=2
cgroup=a
[b]
numjobs=2
cgroup=b
E
} >"$TMP/lanes.fio"
for lim in "" "/ riops=2000 burst=10ms"; do
	printf '%s\n/a weight=300\n/b weight=100\n' "$lim" >"$TMP/l.qos"
	"$TSAN" run "$TMP/lanes.fio" --qos "$TMP/l.qos" --output-format=json >"$TMP/l.json" 2>"$TMP/l.err"
	rc=$?
	if [ $rc = 0 ] && python3 - "$TMP/l.json" "$lim" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
n = [x["read"]["total_ios"] for x in r["jobs"]]
assert len(n) == 4 and all(v > 0 for v in n), n
if sys.argv[2]:
    assert sum(n) <= 2000 * 0.3 + 20 + 1, n
PY
	then ok "psync on lanes, 4 threads, two groups${lim:+, $lim}: no race"
	else bad "psync on lanes${lim:+ ($lim)} under tsan: exit $rc"; head -40 "$TMP/l.err"; fi
done

# Ctrl-C while the workers are busy (once they have read 64 KiB, however
# late a loaded machine starts the run): they stop, the report is partial
job $direct 60 >"$TMP/long.fio"
"$TSAN" run "$TMP/long.fio" --qos "$TMP/q.qos" --output-format=json >"$TMP/int.json" 2>"$TMP/int.err" &
pid=$!
wait_read $pid 65536
kill -INT $pid
wait $pid
rc=$?
if [ $rc = 128 ] && python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["interrupted"]' "$TMP/int.json"; then
	ok "psync Ctrl-C under tsan: partial report, exit $rc"
else
	bad "psync Ctrl-C under tsan: exit $rc"; head -40 "$TMP/int.err"
fi
finish
