#!/bin/bash
# ioqos run against fio on io_uring: the same 4k random-read job (O_DIRECT,
# iodepth 32, numjobs 1) on the same file, alternately, REPS times; median
# IOPS, the ratio (target: ioqos >= 95% of fio) and the CPU seconds each
# process used.  The file is laid out with real data in a work directory
# on a real disk (BENCH_TMPDIR, default /var/tmp).
#   tools/ioqos/bench/cli_uring.sh           (QUICK=1 for a smoke test)
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../../../bench/lib.sh"
bench_init
have fio || { skip "fio is not installed (apt-get install fio)"; exit 0; }

RUNTIME=${RUNTIME:-$(pick 2 10)}
REPS=${REPS:-$(pick 1 5)}
SIZE_MB=${SIZE_MB:-$(pick 256 1024)}
DEPTH=${DEPTH:-32}
F=$WORK/uring.dat
fill "$F" "$SIZE_MB" || die "cannot lay out $F"
dev=$(disk_of "$F")

cat > "$WORK/job.fio" <<JOB
[global]
ioengine=io_uring
direct=1
rw=randread
bs=4k
iodepth=$DEPTH
numjobs=1
filename=$F
size=${SIZE_MB}m
runtime=$RUNTIME
time_based
[uring]
JOB

f=() r=() fc=() rc=()
for ((i = 1; i <= REPS; i++)); do
	$PY cpu "$WORK/fc$i" -- fio --output-format=json --output="$WORK/f$i.json" "$WORK/job.fio" || die "fio failed"
	$PY cpu "$WORK/rc$i" -- "$IOQOS" run "$WORK/job.fio" --output-format json > "$WORK/r$i.json" || die "ioqos failed"
	f+=("$($PY job "$WORK/f$i.json" '*' iops)"); fc+=("$(cat "$WORK/fc$i")")
	r+=("$($PY job "$WORK/r$i.json" '*' iops)"); rc+=("$(cat "$WORK/rc$i")")
	note "rep $i: fio ${f[-1]} (${fc[-1]} s CPU)  ioqos ${r[-1]} (${rc[-1]} s CPU)"
done
fm=$($PY median "${f[@]}"); rm=$($PY median "${r[@]}")
fcm=$($PY median "${fc[@]}"); rcm=$($PY median "${rc[@]}")

say "### io_uring: ioqos run vs fio (4k randread, O_DIRECT, iodepth=$DEPTH, ${SIZE_MB} MiB file on $dev, ${RUNTIME} s, median of $REPS)"
say ""
machine
say "device: $dev ($(cat /sys/block/$(basename "$dev")/queue/scheduler 2>/dev/null | sed 's/.*\[\(.*\)\].*/\1/' || echo '?') scheduler)"
say "command: ${0#$TOP/} (REPS=$REPS RUNTIME=$RUNTIME)"
say ""
say "| runner | IOPS (median) | runs | CPU s per run (median) | vs fio |"
say "|---|---|---|---|---|"
say "| $(fio --version), ioengine=io_uring | $(ints "$fm") | $(ints "${f[@]}") | $fcm | 100% |"
say "| ioqos run, engine io_uring | $(ints "$rm") | $(ints "${r[@]}") | $rcm | $(pct "$rm" "$fm") |"
say ""
awk -v f="$fm" -v r="$rm" 'BEGIN { print (r >= 0.95 * f ? "target (>= 95% of fio): met" : "target (>= 95% of fio): NOT met") }'
