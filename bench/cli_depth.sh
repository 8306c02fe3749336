#!/bin/bash
# ioqos run against fio where the controller holds requests back: does a
# slot freed on the device get its next request at once?  On one file of
# real data (4 KiB random reads, O_DIRECT, io_uring), at each depth D:
#
#   fio       one job at iodepth=D: what the device does with D outstanding
#   1 stream  the same job under ioqos with "/ depth=D" (nothing held back)
#   2 groups  cgroup_weight 300 and 100, numjobs=4 iodepth=16 each (128
#             requests wanting to go) under "/ depth=D": D on the device,
#             the rest held and released by weight as slots free
#
# and on psync (one thread per job in both tools):
#
#   numjobs=8  the same job under fio and under ioqos, nothing held back
#   D=P        fio: P jobs, P I/Os outstanding; ioqos: two groups 300:100
#              of P jobs each under "/ depth=P" (one slot per fio job)
#   cached     the same two on a file in the page cache (direct=0 and
#              invalidate=0, read once before): a few microseconds an
#              I/O, where what the front end costs per I/O shows
#
# Each case runs REPS times as pairs of runs back to back (fio first in
# odd pairs, ioqos first in even ones); the table gives median IOPS, the
# median of the pairs' ioqos/fio (the steadier figure on a disk whose
# speed moves between runs), and the weighted group's share (the weights
# say 75%).  Target: the pairs' median ioqos/fio >= 95% in every row.
#   bench/cli_depth.sh  (QUICK=1 for a smoke test; DEPTHS="16 32 64",
#                        PDEPTHS="4 8")
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
bench_init
have fio || { skip "fio is not installed (apt-get install fio)"; exit 0; }

RUNTIME=${RUNTIME:-$(pick 2 5)}
REPS=${REPS:-$(pick 1 3)}
SIZE_MB=${SIZE_MB:-$(pick 256 1024)}
DEPTHS=${DEPTHS:-16 32 64}
PDEPTHS=${PDEPTHS:-4 8}
F=$WORK/depth.dat
fill "$F" "$SIZE_MB" || die "cannot lay out $F"
dev=$(disk_of "$F")

job() { randread_job "$F" "$SIZE_MB" "$RUNTIME" "$@"; }

# one_case NAME FIO-JOB IOQOS-JOB QOS: REPS pairs of runs; sets FM RM PM
# SM (medians: fio IOPS, ioqos IOPS, the pairs' ratio, ioqos share of /a
# or -) and the run lists
one_case() {
	local name=$1 fj=$2 rj=$3 qos=$4 i f=() r=() p=() s=() opt=()
	[ "$qos" != - ] && opt=(--qos "$qos")
	for ((i = 1; i <= REPS; i++)); do
		[ $((i % 2)) = 1 ] && { fio --output-format=json --output="$WORK/f.json" "$fj" >/dev/null || die "fio failed: $fj"; }
		ioqos_run "$rj" "${opt[@]}" --output-format json > "$WORK/r.json" || die "ioqos failed: $rj"
		[ $((i % 2)) = 0 ] && { fio --output-format=json --output="$WORK/f.json" "$fj" >/dev/null || die "fio failed: $fj"; }
		f+=("$($PY job "$WORK/f.json" '*' iops)")
		r+=("$($PY job "$WORK/r.json" '*' iops)")
		if grep -q '"/a"' "$WORK/r.json"; then
			local a t
			a=$($PY group "$WORK/r.json" /a iops)
			t=$($PY group "$WORK/r.json" / iops)
			s+=("$(awk -v a="$a" -v t="$t" 'BEGIN { printf "%.1f", t ? 100 * a / t : 0 }')")
		fi
		p+=("$(awk -v f="${f[-1]}" -v r="${r[-1]}" 'BEGIN { printf "%.4f", (f > 0 ? r / f : 0) }')")
		note "$name rep $i: fio ${f[-1]}  ioqos ${r[-1]}${s:+  share ${s[-1]}%}"
	done
	FM=$($PY median "${f[@]}"); RM=$($PY median "${r[@]}"); PM=$($PY median "${p[@]}")
	FR=$(ints "${f[@]}"); RR=$(ints "${r[@]}")
	if [ ${#s[@]} -gt 0 ]; then SM="$($PY median "${s[@]}" | xargs printf '%.1f')%"; else SM=-; fi
}

rows=() met=1
row() { # label
	rows+=("| $1 | $(ints "$FM") | $FR | $(ints "$RM") | $RR | $(pct "$RM" "$FM") | $(pct "$PM" 1) | $SM |")
	awk -v p="$PM" 'BEGIN { exit !(p >= 0.95) }' || met=0
}

for d in $DEPTHS; do
	job io_uring "iodepth=$d" "[one]" > "$WORK/fio$d.fio"
	printf '/ depth=%s\n' "$d" > "$WORK/d$d.qos"
	job io_uring "iodepth=16
numjobs=4" "[a]
cgroup_weight=300
[b]
cgroup_weight=100" > "$WORK/two.fio"
	one_case "D=$d 1 stream" "$WORK/fio$d.fio" "$WORK/fio$d.fio" "$WORK/d$d.qos"
	row "io_uring D=$d, 1 stream at iodepth $d"
	one_case "D=$d 2 groups" "$WORK/fio$d.fio" "$WORK/two.fio" "$WORK/d$d.qos"
	row "io_uring D=$d, 2 groups 300:100 x 4 jobs x iodepth 16"
done
job psync "numjobs=8" "[p]" > "$WORK/psync.fio"
one_case "psync" "$WORK/psync.fio" "$WORK/psync.fio" -
row "psync, numjobs=8, nothing held"
for d in $PDEPTHS; do
	job psync "numjobs=$d" "[p]" > "$WORK/pfio$d.fio"
	printf '/ depth=%s\n' "$d" > "$WORK/pd$d.qos"
	job psync "numjobs=$d" "[a]
cgroup_weight=300
[b]
cgroup_weight=100" > "$WORK/ptwo$d.fio"
	one_case "psync D=$d 2 groups" "$WORK/pfio$d.fio" "$WORK/ptwo$d.fio" "$WORK/pd$d.qos"
	row "psync D=$d, 2 groups 300:100 x $d jobs (fio: $d jobs)"
done
C=$WORK/cached.dat
fill "$C" 256 || die "cannot lay out $C"
cat "$C" > /dev/null
cjob() { randread_job "$C" 256 "$RUNTIME" psync "direct=0
invalidate=0
$1" "$2"; }
cjob "numjobs=8" "[p]" > "$WORK/c8.fio"
one_case "psync cached" "$WORK/c8.fio" "$WORK/c8.fio" -
row "psync, page cache, numjobs=8, nothing held"
cjob "numjobs=4" "[p]" > "$WORK/c4.fio"
cjob "numjobs=4" "[a]
cgroup_weight=300
[b]
cgroup_weight=100" > "$WORK/ctwo.fio"
printf '/ depth=4\n' > "$WORK/cd4.qos"
one_case "psync cached D=4" "$WORK/c4.fio" "$WORK/ctwo.fio" "$WORK/cd4.qos"
row "psync, page cache, D=4, 2 groups 300:100 x 4 jobs (fio: 4 jobs)"

say "### ioqos run vs fio with requests held at the device (4k randread, O_DIRECT, ${SIZE_MB} MiB file on $dev, ${RUNTIME} s per run, median of $REPS)"
say ""
machine
say "command: ${0#$TOP/} (REPS=$REPS RUNTIME=$RUNTIME DEPTHS=\"$DEPTHS\" PDEPTHS=\"$PDEPTHS\"); ioqos: $IOQOS"
say ""
say "| case | fio IOPS | fio runs | ioqos IOPS | ioqos runs | medians' ratio | pairs' median ratio | share of /a (weights: 75%) |"
say "|---|---|---|---|---|---|---|---|"
for x in "${rows[@]}"; do say "$x"; done
say ""
[ $met = 1 ] && say "target (the pairs' median ioqos/fio >= 95% in every row): met" ||
	say "target (the pairs' median ioqos/fio >= 95% in every row): NOT met"
