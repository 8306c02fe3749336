#!/bin/sh
# The main job's last case: the 2016 two-group test on a real file of the
# machine it runs on, a few seconds long.  Two groups at prio 2 and 6
# (weights 150:50), 8 jobs each at iodepth 8, 4 KiB random reads, O_DIRECT
# on io_uring; with "/ depth=max" (no controller: every request goes at
# once) and as the job file is, with no depth written (the weights on two
# groups give depth=auto), in PAIRS alternating pairs, max first in each
# (this machine's disk drifts by 5-10% within 100 ms and by 2x between
# minutes): the medians of the aggregate, of each pair's ratio, of the
# split, and what was out on the device.  The file lives in a scratch
# directory (RUN_TMPDIR, default /var/tmp: a real disk) that is removed on
# exit, also when interrupted.
#   sh tools/ioqos/run_real.sh          (RUNTIME=2 PAIRS=3 SIZE_MB=256)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
IOQOS=${IOQOS:-$top/build/ioqos}
RUNTIME=${RUNTIME:-2}
PAIRS=${PAIRS:-3}
SIZE_MB=${SIZE_MB:-256}
[ -x "$IOQOS" ] || { echo "no $IOQOS: run 'make cli' first" >&2; exit 1; }
command -v python3 >/dev/null || { echo "python3 is needed" >&2; exit 1; }
dir=$(mktemp -d "${RUN_TMPDIR:-/var/tmp}/ioqos-run.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'rm -rf "$dir"; exit 130' INT
trap 'rm -rf "$dir"; exit 143' TERM HUP

job() { # direct
	cat <<JOB
; examples/2016-qd8x8.fio on this machine: prio 2:6, 4 KiB random reads,
; 2 x 8 jobs x iodepth 8 = 128 requests wanting to go
[global]
ioengine=io_uring
direct=$1
rw=randread
bs=4k
filename=$dir/ioqos-2016.dat
size=${SIZE_MB}m
iodepth=8
numjobs=8
runtime=$RUNTIME
time_based
group_reporting
[groupA]
prio=2
[groupB]
new_group
prio=6
JOB
}
# run NAME ARGS...: ioqos run ARGS, JSON to $dir/NAME.json; a run stopped
# by a signal (Ctrl-C reaches ioqos too) ends the script, and the trap
# removes the directory
run() {
	name=$1
	shift
	"$IOQOS" run "$@" --output-format=json >"$dir/$name.json" 2>"$dir/err"
	rc=$?
	if [ $rc = 128 ]; then
		echo "   stopped: $(cat "$dir/err")"
		exit 130
	fi
	return $rc
}
printf '/ depth=max\n' >"$dir/max.qos"
: >"$dir/default.qos"
direct=1
job 1 >"$dir/job.fio"
dev=$(df --output=source "$dir" 2>/dev/null | tail -1)

echo "== 2016 two-group test on this machine: prio 2:6 (150:50), 4 KiB random reads, 2 x 8 jobs x iodepth 8, $PAIRS pairs of ${RUNTIME} s runs, ${SIZE_MB} MiB file on ${dev:-?}"
# the first run lays the file out; a filesystem without O_DIRECT runs buffered
if ! run max.0 "$dir/job.fio" --qos "$dir/max.qos"; then
	if grep -q 'Invalid argument' "$dir/err"; then
		direct=0
		job 0 >"$dir/job.fio"
		run max.0 "$dir/job.fio" --qos "$dir/max.qos"
	fi
fi
if [ ! -s "$dir/max.0.json" ] || grep -q 'io_uring: ' "$dir/err"; then
	echo "   skipped: $(cat "$dir/err")"
	exit 0
fi
i=1
while [ "$i" -le "$PAIRS" ]; do
	for k in max default; do
		run "$k.$i" "$dir/job.fio" --qos "$dir/$k.qos" ||
			{ echo "   $k run failed: $(cat "$dir/err")"; exit 1; }
	done
	i=$((i + 1))
done
echo "   ioqos run JOB --qos MAX       (MAX: \"/ depth=max\": no controller, direct=$direct)"
echo "   ioqos run JOB                 (no depth written: the weights give depth=auto)"
python3 - "$dir" "$PAIRS" <<'PY'
import json, statistics, sys
d, n = sys.argv[1], int(sys.argv[2])
runs = {k: [json.load(open("%s/%s.%d.json" % (d, k, i))) for i in range(1, n + 1)]
        for k in ("max", "default")}

def groups(r):
    return {x["path"]: x for x in r["ioqos"]["groups"]}

def iops(r, p):
    g = groups(r)[p]
    return g["read"]["iops"] + g["write"]["iops"]

def mib(r, p):
    g = groups(r)[p]
    return (g["read"]["bw_bytes"] + g["write"]["bw_bytes"]) / 2**20

med = statistics.median
mx, df = runs["max"], runs["default"]
ratio = med(iops(b, "/") / iops(a, "/") for a, b in zip(mx, df) if iops(a, "/"))
rows = [("aggregate", "%.1fk IOPS %6.1f MiB/s" % (med(iops(r, "/") for r in mx) / 1e3,
                                                   med(mib(r, "/") for r in mx)),
         "%.1fk IOPS %6.1f MiB/s" % (med(iops(r, "/") for r in df) / 1e3,
                                     med(mib(r, "/") for r in df)),
         "%.0f%% of depth=max (median of the pairs' ratios)" % (100 * ratio))]
g0 = groups(mx[0])
for p in ("/groupA", "/groupB"):
    w = g0[p]["weight"]
    rows.append(("%s (%d)" % (p, w),
                 "%6.1f MiB/s %5.1f%%" % (med(mib(r, p) for r in mx),
                                          med(groups(r)[p].get("share", 0) for r in mx)),
                 "%6.1f MiB/s %5.1f%%" % (med(mib(r, p) for r in df),
                                          med(groups(r)[p].get("share", 0) for r in df)),
                 "weights: %.0f%%" % (100 * w / (g0["/groupA"]["weight"] + g0["/groupB"]["weight"]))))

def dev(rs):
    ds = [r["ioqos"].get("device", {}) for r in rs]
    if not all(ds):
        return "-"
    s = "%.1f out" % med(x["inflight_mean"] for x in ds)
    if ds[-1].get("depth") == "auto":
        s += " (depth now %s)" % ds[-1]["depth_now"]
    return s
rows.append(("on the device", dev(mx), dev(df), "medians over the runs"))
print("   %-16s %-24s %-24s" % ("", "depth=max", "no depth written"))
for r in rows:
    print("   %-16s %-24s %-24s %s" % r)
PY
