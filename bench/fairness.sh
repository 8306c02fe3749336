#!/bin/bash
# Fairness and its cost, on one loop device (direct I/O, backed by a file
# of real data on a real disk):
#
#   2008  three groups at weights 200:100:25 (prio 0/4/7, 8:4:1: 61.5% /
#         30.8% / 7.7%), 4 and 25 random 4 KiB readers (iodepth 1) each
#   2016  groups A and B at weights 150:50 (prio 2:6, 3:1: 75% / 25%),
#         4 KiB random reads at iodepth x numjobs 1x1, 8x1, 1x8, 8x8, and
#         8x1 with A capped at 50 MiB/s
#
# under
#
#   none, mq-deadline   the kernel's schedulers that do not share: the
#                       uncontrolled device (caps by blk-throttle)
#   bfq                 BFQ with cgroup v1 blkio.bfq.weight (caps by
#                       blk-throttle)
#   ioqos               ioqos run, io_uring, the device's scheduler set to
#                       none, weights from the job file, / depth=D in
#                       --qos for each D in DEPTHS, a number or auto
#                       (caps by rbps)
#
# Each kernel group is one fio process (numjobs clones) in a blkio cgroup.
# The table gives each group's MiB/s and share, the share the weights give
# (for ioqos at depth D: what D slots give groups that cannot hold more
# slots than they have I/Os outstanding; at depth=auto, what the depths
# in force gave over the run, each interval of PLOT_MS at its depth,
# weighted by its I/Os, with the range of those depths after the first
# second and the depth found at the end), each
# group's p99 latency, and the aggregate as a fraction of the uncontrolled
# device (the larger of none and mq-deadline in the same case); with
# REPS rounds, also the median over the rounds of each run's aggregate
# against the uncontrolled one of its own round (the rounds take every
# controller in turn, so a device whose speed moves over minutes moves a
# run and the uncontrolled runs beside it alike).  The p99
# is from submission to completion: fio's clat for the kernel rows (the
# kernel holds I/Os below the system call, inside clat), ioqos's lat
# (lat_percentiles=1: its clat leaves out the time the controller held the
# I/O) for the ioqos rows.
#
# With SVG=FILE.svg, the run of PLOT_CASE (default 2016-qd8-jobs8) at
# depth=auto logs every PLOT_MS (default 100) ms and bench/plot.py draws
# the depth in force, the depth found and each group's share over time.
#
#   bench/fairness.sh      (QUICK=1: 3 s per case; DUR=s; DEPTHS="8 32 auto": ioqos's
#                           depths; CASES="2008-4 2016-qd8" to run some cases only;
#                           REPS=N: N runs of each row, taken in turn, the median shown;
#                           SVG=FILE.svg PLOT_CASE=C PLOT_MS=MS)
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
bench_init

DUR=${DUR:-$(pick 3 10)}
REPS=${REPS:-1}
DEPTHS=${DEPTHS:-8 32 auto}
SVG=${SVG:-}
PLOT_CASE=${PLOT_CASE:-2016-qd8-jobs8}
PLOT_MS=${PLOT_MS:-100}
REGION_MB=${REGION_MB:-$(pick 128 256)}
CASES=${CASES:-2008-4 2008-25 2016-qd1 2016-qd8 2016-jobs8 2016-qd8-jobs8 2016-cap50}

loop_setup $((REGION_MB * 3))
D=${DEV#/dev/}
SCHEDS=()
for s in none mq-deadline bfq; do
	grep -qw "$s" "/sys/block/$D/queue/scheduler" && SCHEDS+=("$s")
done
kernel_ok=1
is_root && have_blkio || { kernel_ok=0; skip "kernel rows: need root and cgroup v1 blkio ($BLKIO)"; }
bfq_ok=1
case " ${SCHEDS[*]} " in *" bfq "*) ;; *) bfq_ok=0; skip "bfq rows: the bfq scheduler is not available (modprobe bfq)" ;; esac

# case -> "group:weight:numjobs:iodepth:cap(B/s, 0 none) ..."
declare -A CASE=(
	[2008-4]="prio0:200:4:1:0 prio4:100:4:1:0 prio7:25:4:1:0"
	[2008-25]="prio0:200:25:1:0 prio4:100:25:1:0 prio7:25:25:1:0"
	[2016-qd1]="A:150:1:1:0 B:50:1:1:0"
	[2016-qd8]="A:150:1:8:0 B:50:1:8:0"
	[2016-jobs8]="A:150:8:1:0 B:50:8:1:0"
	[2016-qd8-jobs8]="A:150:8:8:0 B:50:8:8:0"
	[2016-cap50]="A:150:1:8:52428800 B:50:1:8:0"
)

# group_job NAME NUMJOBS IODEPTH REGION [extra lines]
group_job() {
	printf '[%s]\nnew_group\nnumjobs=%s\niodepth=%s\noffset=%dm\nsize=%dm\n' "$1" "$2" "$3" $(($4 * REGION_MB)) "$REGION_MB"
	shift 4
	for l in "$@"; do printf '%s\n' "$l"; done
}
global() {
	printf '[global]\nioengine=io_uring\ndirect=1\nrw=randread\nbs=4k\nfilename=%s\nruntime=%s\ntime_based\ngroup_reporting\n' "$DEV" "$DUR"
}

# run_kernel CASE SCHED: "group B/s p99-ns" lines
run_kernel() {
	local c=$1 sched=$2 spec k=0 pids=() name w nj qd cap q
	set_sched "$DEV" "$sched" || return 1
	for spec in ${CASE[$c]}; do
		IFS=: read -r name w nj qd cap <<< "$spec"
		cg_make "ioqos-bench/$name" || die "cannot make a cgroup"
		[ "$sched" = bfq ] && echo "$w" > "$CG/blkio.bfq.weight"
		echo "$MM $cap" > "$CG/blkio.throttle.read_bps_device"
		{ global; group_job "$name" "$nj" "$qd" $k; } > "$WORK/$name.fio"
		in_cg "$CG" fio --output-format=json --output="$WORK/$name.json" "$WORK/$name.fio" &
		pids+=($!)
		k=$((k + 1))
	done
	for q in "${pids[@]}"; do wait "$q" || die "fio failed"; done
	for spec in ${CASE[$c]}; do
		IFS=: read -r name w nj qd cap <<< "$spec"
		echo "$MM 0" > "$BLKIO/ioqos-bench/$name/blkio.throttle.read_bps_device"
		echo "$name $($PY job "$WORK/$name.json" "$name" bw_bytes)" \
			"$($PY pct "$WORK/$name.json" "$name" clat_ns 99)"
	done
}

# run_ioqos CASE DEPTH: "group B/s p99-ns" lines; the depth found (or in
# force at the end) in $WORK/found; at depth=auto, the shares the depths
# in force over the run give (intervals of PLOT_MS) in $WORK/wrun; with
# SVG set and CASE the plot case, the intervals drawn to $WORK/plot.svg
run_ioqos() {
	local c=$1 depth=$2 spec k=0 name w nj qd cap log=() df wd=""
	set_sched "$DEV" none || return 1
	echo "/ depth=$depth" > "$WORK/q.qos"
	[ "$depth" = auto ] && log=(--log-interval "$PLOT_MS")
	{ global
	  echo "lat_percentiles=1"
	  for spec in ${CASE[$c]}; do
		IFS=: read -r name w nj qd cap <<< "$spec"
		group_job "$name" "$nj" "$qd" $k "cgroup=$name" "cgroup_weight=$w"
		[ "$cap" != 0 ] && echo "/$name rbps=$cap" >> "$WORK/q.qos"
		k=$((k + 1))
	  done; } > "$WORK/q.fio"
	ioqos_run "$WORK/q.fio" --qos "$WORK/q.qos" --output-format json "${log[@]}" > "$WORK/q.json" ||
		die "ioqos failed"
	for spec in ${CASE[$c]}; do
		IFS=: read -r name w nj qd cap <<< "$spec"
		echo "$name $($PY job "$WORK/q.json" "$name" bw_bytes)" \
			"$($PY pct "$WORK/q.json" "$name" lat_ns 99)"
	done
	if [ "$depth" = auto ]; then
		df=$($PY device "$WORK/q.json" depth_found)
		[ "$df" = 0 ] && df=$($PY device "$WORK/q.json" depth_now)
		echo "$df" > "$WORK/found"
		for spec in ${CASE[$c]}; do IFS=: read -r name w nj qd cap <<< "$spec"; wd="$wd $w:$((nj * qd))"; done
		$PY waterfill-run "$WORK/q.json" $wd > "$WORK/wrun" || die "cannot read the intervals of $WORK/q.json"
	else
		echo "$depth" > "$WORK/found"
	fi
	if [ -n "$SVG" ] && [ "$c" = "$PLOT_CASE" ] && [ "$depth" = auto ]; then
		python3 "$BENCH_DIR/plot.py" --intervals "$WORK/q.json" \
			"ioqos depth=auto, $c: the device's depth and each group's share" \
			> "$WORK/plot.svg" || die "plot.py failed"
	fi
}

say "### Fairness and its cost: the 2008 and 2016 tests on a loop device"
say ""
machine
say "device: $DEV, a loop device (direct I/O) on a ${REGION_MB}x3 MiB file on $BACK, a virtio disk of a VM (not a real SSD)"
say "command: ${0#$TOP/} (DUR=$DUR DEPTHS=\"$DEPTHS\" REPS=$REPS; $(fio --version))"
say ""
say "| case | controller | per group MiB/s | share % | expected % | p99 ms | aggregate MiB/s | vs uncontrolled | rounds' median |"
say "|---|---|---|---|---|---|---|---|---|"
for c in $CASES; do
	[ -n "${CASE[$c]}" ] || die "unknown case $c"
	ctls=()
	if [ "$kernel_ok" = 1 ]; then
		for s in "${SCHEDS[@]}"; do [ "$s" = bfq ] && [ "$bfq_ok" = 0 ] && continue; ctls+=("$s"); done
	fi
	for d in $DEPTHS; do ctls+=("ioqos depth=$d"); done
	# expected shares: weights among the groups not capped; a capped
	# group gets its cap where that is below its share
	wsum=0; for spec in ${CASE[$c]}; do IFS=: read -r name w nj qd cap <<< "$spec"; wsum=$((wsum + w)); done
	exp=""; for spec in ${CASE[$c]}; do IFS=: read -r name w nj qd cap <<< "$spec"; exp="$exp $(awk -v w=$w -v s=$wsum 'BEGIN{printf "%.1f", 100*w/s}')"; done
	unc=0
	declare -A res=() p99=() found=() wrun=() pairs=()
	# REPS rounds of every controller in turn, so that a device whose
	# speed moves over minutes moves under all of them alike; each row
	# is the run whose aggregate is the median of its controller's
	for ((rep = 1; rep <= REPS; rep++)); do
		for i in "${!ctls[@]}"; do
			ctl=${ctls[$i]}
			note "case $c, $ctl$([ "$REPS" -gt 1 ] && echo ", run $rep of $REPS")"
			if [ "${ctl%% *}" = ioqos ]; then
				run_ioqos "$c" "${ctl#*=}" > "$WORK/res.$i.$rep"
				cp "$WORK/found" "$WORK/found.$i.$rep"
				[ "${ctl#*=}" = auto ] && cp "$WORK/wrun" "$WORK/wrun.$i.$rep"
			else
				run_kernel "$c" "$ctl" > "$WORK/res.$i.$rep"
			fi
			awk -v r="$rep" '{ s += $2 } END { print s, r }' "$WORK/res.$i.$rep" >> "$WORK/agg.$i"
		done
	done
	# each round's uncontrolled aggregate, the larger of none and
	# mq-deadline in that round: a device whose speed moves between
	# rounds moves a controller's run and the runs beside it alike
	: > "$WORK/unc.rep"
	for i in "${!ctls[@]}"; do
		case ${ctls[$i]} in none|mq-deadline) cat "$WORK/agg.$i" >> "$WORK/unc.rep" ;; esac
	done
	for i in "${!ctls[@]}"; do
		ctl=${ctls[$i]}
		# the median over the rounds of each run against its own round's
		# uncontrolled aggregate ("-" without kernel rows)
		pairs[$ctl]=-
		[ -s "$WORK/unc.rep" ] && pairs[$ctl]=$(awk '
			NR == FNR { if ($1 > u[$2]) u[$2] = $1; next }
			u[$2] > 0 { print $1 / u[$2] }' "$WORK/unc.rep" "$WORK/agg.$i" | sort -g |
			awk '{ v[NR] = $1 } END { if (NR) printf "%.0f%%", 100 * v[int((NR + 1) / 2)]; else printf "-" }')
		rep=$(sort -n "$WORK/agg.$i" | awk '{ r[NR] = $2 } END { print r[int((NR + 1) / 2)] }')
		rm -f "$WORK/agg.$i"
		cp "$WORK/res.$i.$rep" "$WORK/res"
		[ -f "$WORK/found.$i.$rep" ] && found[$ctl]=$(cat "$WORK/found.$i.$rep")
		[ -f "$WORK/wrun.$i.$rep" ] && wrun[$ctl]=$(cat "$WORK/wrun.$i.$rep")
		res[$ctl]=$(awk '{ printf "%s ", $2 }' "$WORK/res")
		p99[$ctl]=$(awk '{ printf "%s%.2f", (NR > 1 ? " : " : ""), $3 / 1e6 }' "$WORK/res")
		if [ "$ctl" = none ] || [ "$ctl" = mq-deadline ]; then
			unc=$(awk -v u="$unc" '{ s += $2 } END { print (s > u ? s : u) }' "$WORK/res")
		fi
	done
	rm -f "$WORK"/res.* "$WORK"/found.* "$WORK"/wrun.* "$WORK/unc.rep"
	for ctl in "${ctls[@]}"; do
		row=$(echo "${res[$ctl]}" | awk -v u="$unc" '{
			s = 0; for (i = 1; i <= NF; i++) s += $i
			mb = ""; sh = ""
			for (i = 1; i <= NF; i++) {
				mb = mb (i > 1 ? " : " : "") sprintf("%.1f", $i / 1048576)
				sh = sh (i > 1 ? " : " : "") sprintf("%.1f", s ? 100 * $i / s : 0)
			}
			printf "%s | %s | %.1f | %s", mb, sh, s / 1048576, (u > 0 ? sprintf("%.0f%%", 100 * s / u) : "-")
		}')
		e=$(echo "$exp" | awk '{ for (i = 1; i <= NF; i++) printf "%s%s", (i > 1 ? " : " : ""), $i }')
		if [ "${ctl%% *}" = ioqos ]; then
			# at depth D a group cannot hold more slots than it has I/Os
			# outstanding (numjobs x iodepth); the rest go to the others
			wd=""; for spec in ${CASE[$c]}; do IFS=: read -r name w nj qd cap <<< "$spec"; wd="$wd $w:$((nj * qd))"; done
			if [ "${ctl#*=}" = auto ]; then
				# what the depths in force gave, interval by interval
				IFS='|' read -r we lo hi <<< "${wrun[$ctl]}"
				e="$we at depths $lo-$hi (found ${found[$ctl]})"
			elif [ "${found[$ctl]}" = max ]; then
				e="- (no depth found)"
			else
				e="$($PY waterfill "${found[$ctl]}" $wd) at depth ${found[$ctl]}"
			fi
		fi
		[ "$c" = 2016-cap50 ] && e="A capped at 50 MiB/s"
		mb=${row%% | *}; rest=${row#* | }; sh=${rest%% | *}; rest=${rest#* | }
		say "| $c | $ctl | $mb | $sh | $e | ${p99[$ctl]} | ${rest% | *} | ${rest##* | } | ${pairs[$ctl]} |"
	done
	unset res p99 found wrun pairs
done
say ""
say "ioqos depth=D: / depth=D in --qos (the controller lets D requests be outstanding on the device; the rest wait and are released by weight); depth=auto: the controller finds D itself, and the expected share is what the depths in force gave, interval by interval (${PLOT_MS} ms, weighted by each interval's I/Os), with the lowest and highest depth in force after the first second and the depth found at the end."
say "p99 ms: each group's 99th percentile latency from submission to completion: fio's clat_ns for the kernel rows, ioqos's lat_ns (with lat_percentiles=1) for the ioqos rows."
if [ -n "$SVG" ]; then
	if [ -f "$WORK/plot.svg" ]; then
		mv "$WORK/plot.svg" "$SVG" || die "cannot write $SVG"
		say ""
		say "plot: $PLOT_CASE at depth=auto, intervals of $PLOT_MS ms: ${SVG#$TOP/}"
	else
		note "no plot: $PLOT_CASE at depth=auto was not run (CASES, DEPTHS)"
	fi
fi
