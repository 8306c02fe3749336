#!/bin/bash
# Limits on a real file: the same 4k random-read job (O_DIRECT, iodepth 32)
# held to a byte rate and to an I/O rate for RUNTIME seconds (default 20)
# by ioqos (--qos: rbps / riops on /), by fio's own rate= / rate_iops=,
# and by the kernel's blk-throttle (cgroup v1 blkio.throttle.read_*_device
# on the disk under the file; needs root).  Achieved = bytes (or I/Os)
# completed / runtime, as fio reports it; target: within 1% of the limit.
#   tools/ioqos/bench/cli_rate.sh            (QUICK=1 for a smoke test)
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../../../bench/lib.sh"
bench_init
have fio || { skip "fio is not installed (apt-get install fio)"; exit 0; }

RUNTIME=${RUNTIME:-$(pick 3 20)}
SIZE_MB=${SIZE_MB:-$(pick 256 1024)}
F=$WORK/rate.dat
fill "$F" "$SIZE_MB" || die "cannot lay out $F"
dev=$(disk_of "$F")
kernel=1
if ! is_root || ! have_blkio; then
	kernel=0
	skip "blk-throttle rows: need root and cgroup v1 blkio at $BLKIO"
elif ! mm=$(majmin "$dev") || [ -z "$mm" ]; then
	kernel=0
	skip "blk-throttle rows: cannot find the device number of $dev"
fi

job() { # $1 = limit line for fio, or empty
	cat <<JOB
[global]
ioengine=io_uring
direct=1
rw=randread
bs=4k
iodepth=32
filename=$F
size=${SIZE_MB}m
runtime=$RUNTIME
time_based
[rated]
$1
JOB
}

# case: name, ioqos qos line, fio option, kernel file, kernel value, limit, unit
cases=(
	"bytes|rbps=20M|rate=20m|blkio.throttle.read_bps_device|20971520|20971520|bw_bytes"
	"I/Os|riops=2000|rate_iops=2000|blkio.throttle.read_iops_device|2000|2000|iops"
	"bytes, low|rbps=1M|rate=1m|blkio.throttle.read_bps_device|1048576|1048576|bw_bytes"
)

say "### Limits on a real file: 4k randread, O_DIRECT, iodepth 32, ${RUNTIME} s (${SIZE_MB} MiB file on $dev)"
say ""
machine
say "command: ${0#$TOP/} (RUNTIME=$RUNTIME)"
say ""
say "| limit | ioqos (--qos) | error | fio rate= | error | blk-throttle (v1) | error |"
say "|---|---|---|---|---|---|---|"
n=0
for c in "${cases[@]}"; do
	IFS='|' read -r name qos fopt kfile kval lim field <<< "$c"
	n=$((n + 1))
	job "" > "$WORK/plain.fio"
	job "$fopt" > "$WORK/fio.fio"
	echo "/ $qos" > "$WORK/q.qos"
	ioqos_run "$WORK/plain.fio" --qos "$WORK/q.qos" --output-format json > "$WORK/q$n.json" || die "ioqos failed"
	fio --output-format=json --output="$WORK/f$n.json" "$WORK/fio.fio" || die "fio failed"
	qa=$($PY job "$WORK/q$n.json" '*' "$field")
	fa=$($PY job "$WORK/f$n.json" '*' "$field")
	ka="" ke="skipped"
	if [ "$kernel" = 1 ]; then
		cg_make "ioqos-bench-rate" || die "cannot make a cgroup"; cg=$CG
		echo "$mm $kval" > "$cg/$kfile" || die "cannot set $kfile"
		in_cg "$cg" fio --output-format=json --output="$WORK/k$n.json" "$WORK/plain.fio" || die "fio failed"
		echo "$mm 0" > "$cg/$kfile"
		ka=$($PY job "$WORK/k$n.json" '*' "$field"); ka=$(ints "$ka"); ke=$(err "$ka" "$lim")
	fi
	unit=B/s; [ "$field" = iops ] && unit=IOPS
	say "| $qos ($lim $unit) | $(ints "$qa") | $(err "$qa" "$lim") | $(ints "$fa") | $(err "$fa" "$lim") | ${ka:--} | $ke |"
done
say ""
