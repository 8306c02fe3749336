#!/bin/sh
# The main job's last case: the 2016 two-group test on a real file of the
# machine it runs on, a few seconds long.  Two groups at prio 2 and 6
# (weights 150:50), 8 jobs each at iodepth 8, 4 KiB random reads, O_DIRECT
# on io_uring; once with no controller and once with "/ depth=auto", side
# by side: the aggregate, the split, and what was out on the device.  The
# file lives in a scratch directory (RUN_TMPDIR, default /var/tmp: a real
# disk) that is removed on exit, also when interrupted.
#   sh tools/ioqos/run_real.sh          (RUNTIME=3 SIZE_MB=256)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
IOQOS=${IOQOS:-$top/build/ioqos}
RUNTIME=${RUNTIME:-3}
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
printf '/ depth=auto\n' >"$dir/auto.qos"
direct=1
job 1 >"$dir/job.fio"
dev=$(df --output=source "$dir" 2>/dev/null | tail -1)

echo "== 2016 two-group test on this machine: prio 2:6 (150:50), 4 KiB random reads, 2 x 8 jobs x iodepth 8, ${RUNTIME} s each, ${SIZE_MB} MiB file on ${dev:-?}"
# the first run lays the file out; a filesystem without O_DIRECT runs buffered
if ! run none "$dir/job.fio"; then
	if grep -q 'Invalid argument' "$dir/err"; then
		direct=0
		job 0 >"$dir/job.fio"
		run none "$dir/job.fio"
	fi
fi
if [ ! -s "$dir/none.json" ] || grep -q 'io_uring: ' "$dir/err"; then
	echo "   skipped: $(cat "$dir/err")"
	exit 0
fi
run auto "$dir/job.fio" --qos "$dir/auto.qos" ||
	{ echo "   depth=auto run failed: $(cat "$dir/err")"; exit 1; }
echo "   ioqos run JOB                 (no controller, direct=$direct)"
echo "   ioqos run JOB --qos QOS       (QOS: \"/ depth=auto\")"
python3 - "$dir/none.json" "$dir/auto.json" <<'PY'
import json, sys
runs = [json.load(open(p)) for p in sys.argv[1:3]]

def fig(r):
    g = {x["path"]: x for x in r["ioqos"]["groups"]}
    def iops(p):
        return g[p]["read"]["iops"] + g[p]["write"]["iops"]
    def mib(p):
        return (g[p]["read"]["bw_bytes"] + g[p]["write"]["bw_bytes"]) / 2**20
    return g, iops, mib, r["ioqos"].get("device", {})

rows = []
(g0, i0, m0, d0), (g1, i1, m1, d1) = fig(runs[0]), fig(runs[1])
rows.append(("aggregate", "%.1fk IOPS %6.1f MiB/s" % (i0("/") / 1e3, m0("/")),
             "%.1fk IOPS %6.1f MiB/s" % (i1("/") / 1e3, m1("/")),
             "%.0f%% of uncontrolled" % (100 * i1("/") / i0("/") if i0("/") else 0)))
for p in ("/groupA", "/groupB"):
    w = g0[p]["weight"]
    rows.append(("%s (%d)" % (p, w),
                 "%6.1f MiB/s %5.1f%%" % (m0(p), g0[p].get("share", 0)),
                 "%6.1f MiB/s %5.1f%%" % (m1(p), g1[p].get("share", 0)),
                 "weights: %.0f%%" % (100 * w / (g0["/groupA"]["weight"] + g0["/groupB"]["weight"]))))
def dev(d):
    if not d:
        return "-"
    s = "%.1f out" % d["inflight_mean"]
    if d.get("depth") == "auto":
        s += " (depth now %s" % d["depth_now"]
        if d.get("lat_min_ns"):
            s += ", unloaded %.0f us" % (d["lat_min_ns"] / 1e3)
        s += ")"
    return s
rows.append(("on the device", dev(d0), dev(d1), "mean over the window"))
print("   %-16s %-24s %-24s" % ("", "no controller", "depth=auto"))
for r in rows:
    print("   %-16s %-24s %-24s %s" % r)
PY
