#!/bin/bash
# depth=auto against depth=max on a file of this machine's disk: two groups
# at weights 3:1 (cgroup_weight 300 and 100), each one job keeping 64
# requests out (4 KiB random reads, O_DIRECT, io_uring).  At depth=max the
# controller holds nothing and the device splits 50:50; at depth=auto it
# should find a depth where weights act without losing throughput.
#
# The two settings run alternately, REPS times each, so that a disk whose
# speed moves meets both alike; the table gives every run and the medians:
# the aggregate at auto over max of the run before it, A's share, A's mean
# latency at auto over max (submission to completion: ioqos's lat, which
# counts the time the controller held a request), and the depth auto
# settled on.
# Targets: aggregate >= 95% of max, A 75 +- 3%, A's latency <= 0.85x.
#   bench/auto_disk.sh        (QUICK=1: 3 s runs, 2 pairs; RUNTIME=s REPS=n SIZE_MB=n)
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
bench_init

RUNTIME=${RUNTIME:-$(pick 3 8)}
REPS=${REPS:-$(pick 2 5)}
SIZE_MB=${SIZE_MB:-$(pick 256 1024)}
F=$WORK/auto.dat
fill "$F" "$SIZE_MB" || die "cannot lay out $F"
dev=$(disk_of "$F")

randread_job "$F" "$SIZE_MB" "$RUNTIME" io_uring "iodepth=64" "[a]
cgroup=a
cgroup_weight=300
[b]
cgroup=b
cgroup_weight=100" > "$WORK/ab.fio"
echo "/ depth=max" > "$WORK/max.qos"
echo "/ depth=auto" > "$WORK/auto.qos"

# run QOS: "iops share_a lat_a_us depth_found" of one run
run() {
	ioqos_run "$WORK/ab.fio" --qos "$WORK/$1.qos" --output-format json > "$WORK/$1.json" ||
		die "ioqos failed ($1)"
	local a b la found
	a=$($PY group "$WORK/$1.json" /a iops)
	b=$($PY group "$WORK/$1.json" /b iops)
	la=$($PY mean "$WORK/$1.json" a lat_ns)
	found=$($PY device "$WORK/$1.json" depth_found)
	awk -v a="$a" -v b="$b" -v la="$la" -v f="$found" \
		'BEGIN { printf "%.0f %.2f %.1f %s\n", a + b, a + b ? 100 * a / (a + b) : 0, la / 1000, f }'
}

rows=() aggs=() shares=() lats=() founds=()
for ((i = 1; i <= REPS; i++)); do
	read -r mx mxs mxl _ <<< "$(run max)"
	read -r au aus aul auf <<< "$(run auto)"
	agg=$(awk -v a="$au" -v m="$mx" 'BEGIN { printf "%.3f", m ? a / m : 0 }')
	lat=$(awk -v a="$aul" -v m="$mxl" 'BEGIN { printf "%.3f", m ? a / m : 0 }')
	note "pair $i: max $mx IOPS (A $mxs%), auto $au IOPS (A $aus%) at depth $auf"
	rows+=("| $i | $mx | $mxs | $mxl | $au | $aus | $aul | $auf | $agg | $lat |")
	aggs+=("$agg") shares+=("$aus") lats+=("$lat") founds+=("$auf")
done
AGG=$(printf '%.3f' "$($PY median "${aggs[@]}")"); SH=$(printf '%.1f' "$($PY median "${shares[@]}")")
LAT=$(printf '%.3f' "$($PY median "${lats[@]}")"); FOUND=$(printf '%.0f' "$($PY median "${founds[@]}")")

say "### depth=auto against depth=max on a real disk (4k randread, O_DIRECT, ${SIZE_MB} MiB file on $dev, 2 groups 300:100 x iodepth 64, ${RUNTIME} s per run, $REPS pairs)"
say ""
machine
say "command: ${0#$TOP/} (REPS=$REPS RUNTIME=$RUNTIME SIZE_MB=$SIZE_MB); ioqos: $IOQOS"
say ""
say "| pair | max IOPS | max A % | max A lat us | auto IOPS | auto A % | auto A lat us | depth found | auto/max IOPS | auto/max A lat |"
say "|---|---|---|---|---|---|---|---|---|---|"
for x in "${rows[@]}"; do say "$x"; done
say ""
say "medians: aggregate $AGG of max, A's share $SH%, A's latency $LAT of max, depth $FOUND"
awk -v g="$AGG" -v s="$SH" -v l="$LAT" 'BEGIN { exit !(g >= 0.95 && s >= 72 && s <= 78 && l <= 0.85) }' &&
	say "targets (aggregate >= 0.95, A 75 +- 3%, A's latency <= 0.85): met" ||
	say "targets (aggregate >= 0.95, A 75 +- 3%, A's latency <= 0.85): NOT met"
