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
#
# With NEIGHBOUR=1 a neighbour outside the controller runs beside every
# run: a fio of 64 KiB random writes, iodepth 16, O_DIRECT, on a file of
# its own on the same disk, on for 2 s at 1 s, 4 s, 7 s... of each run
# (lib.sh's nb_*: each burst a fio launched against the clock, so both runs
# of a pair get the same bursts); 8 pairs of 8 s by default.  The lines
# under the table give the neighbour's MiB/s beside each setting and how
# far apart the bursts of a pair's two runs began.
#
# With SVG=FILE.svg (by default with NEIGHBOUR=1, under BENCH_TMPDIR) every
# run logs every 100 ms (--log-interval 100 --log) and bench/plot.py draws
# the pair whose aggregate ratio is the median: for depth=max and
# depth=auto, the depth in force, A's and B's shares (per 100 ms and over
# the second around) and the IOPS over time, the neighbour's bursts as
# measured shaded; the pair's CSVs and bursts go beside the SVG.
# AUTO=N puts a fixed depth where depth=auto was (the "auto" columns are
# then that depth's), to tell what the controller chose from what a depth
# itself gives; BASE=N puts one where depth=max was (the "max" columns),
# to set depth=auto against the deepest depth that still holds the weights
# (84 for 3:1 with 64 out each) rather than against none.
#   bench/auto_disk.sh        (QUICK=1: 3 s runs, 2 pairs; RUNTIME=s REPS=n SIZE_MB=n
#                              NEIGHBOUR=1 SVG=FILE.svg AUTO=N BASE=N)
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
bench_init

NEIGHBOUR=${NEIGHBOUR:-0}
RUNTIME=${RUNTIME:-$(pick 3 8)}
if [ "$NEIGHBOUR" = 1 ]; then
	REPS=${REPS:-$(pick 2 8)}
	SVG=${SVG:-${BENCH_TMPDIR:-/var/tmp}/auto_disk-$(date -u +%Y%m%d-%H%M%S).svg}
else
	REPS=${REPS:-$(pick 2 5)}
	SVG=${SVG:-}
fi
PLOT_MS=100
SIZE_MB=${SIZE_MB:-$(pick 256 1024)}
F=$WORK/auto.dat
fill "$F" "$SIZE_MB" || die "cannot lay out $F"
dev=$(disk_of "$F")
if [ "$NEIGHBOUR" = 1 ]; then
	need fio "apt-get install fio: the neighbour"
	fill "$WORK/neighbour.dat" "$SIZE_MB" || die "cannot lay out the neighbour's file"
	NB_FIO=(fio --name=neighbour --filename="$WORK/neighbour.dat" --size="${SIZE_MB}m" --direct=1
		--ioengine=io_uring --rw=randwrite --bs=64k --iodepth=16 --randrepeat=0 --norandommap
		--time_based)
	nb_lead
	note "each burst of the neighbour is launched $NB_LEAD_MS ms early and waits for its time"
fi

randread_job "$F" "$SIZE_MB" "$RUNTIME" io_uring "iodepth=64" "[a]
cgroup=a
cgroup_weight=300
[b]
cgroup=b
cgroup_weight=100" > "$WORK/ab.fio"
echo "/ depth=${BASE:-max}" > "$WORK/max.qos"
echo "/ depth=${AUTO:-auto}" > "$WORK/auto.qos"

# run QOS I: "iops share_a lat_a_us depth_found" of run QOS of pair I; with
# SVG, its intervals in $WORK/QOS.I.csv; with NEIGHBOUR, the bursts beside
# it in $WORK/spans.QOS.I (s from the run's start) and the neighbour's
# "IOPS MiB/s" in $WORK/nb.QOS.I
# (not to be called in $(...): the cleanup list lives in this shell)
run() {
	local log=() t0 origin
	[ -n "$SVG" ] && log=(--log-interval "$PLOT_MS" --log "$WORK/$1.$2.csv")
	t0=$(now_ms)
	[ "$NEIGHBOUR" = 1 ] && nb_start "$t0" "$RUNTIME" "$WORK/nbrun" > /dev/null
	bg_wait "$IOQOS" run "$WORK/ab.fio" --qos "$WORK/$1.qos" --output-format json "${log[@]}" > "$WORK/$1.json" ||
		die "ioqos failed ($1)"
	if [ "$NEIGHBOUR" = 1 ]; then
		nb_wait
		# the run began its runtime before it reported; its launch if
		# that is out of bounds
		origin=$(($($PY top "$WORK/$1.json" timestamp_ms) - RUNTIME * 1000))
		[ "$origin" -ge "$t0" ] && [ "$origin" -le $((t0 + 1000)) ] || origin=$t0
		nb_spans "$origin" "$WORK/nbrun" > "$WORK/spans.$1.$2" || die "cannot read the neighbour's logs"
		$PY bursts "$WORK"/nbrun.*.json > "$WORK/nb.$1.$2" || die "cannot read the neighbour's reports"
		rm -f "$WORK"/nbrun.*
	fi
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
	run max "$i" > "$WORK/r"
	read -r mx mxs mxl _ < "$WORK/r"
	run auto "$i" > "$WORK/r"
	read -r au aus aul auf < "$WORK/r"
	agg=$(awk -v a="$au" -v m="$mx" 'BEGIN { printf "%.3f", m ? a / m : 0 }')
	lat=$(awk -v a="$aul" -v m="$mxl" 'BEGIN { printf "%.3f", m ? a / m : 0 }')
	note "pair $i: max $mx IOPS (A $mxs%), auto $au IOPS (A $aus%) at depth $auf"
	rows+=("| $i | $mx | $mxs | $mxl | $au | $aus | $aul | $auf | $agg | $lat |")
	aggs+=("$agg") shares+=("$aus") lats+=("$lat") founds+=("$auf")
done
AGG=$(printf '%.3f' "$($PY median "${aggs[@]}")"); SH=$(printf '%.1f' "$($PY median "${shares[@]}")")
LAT=$(printf '%.3f' "$($PY median "${lats[@]}")"); FOUND=$(printf '%.0f' "$($PY median "${founds[@]}")")

nbtitle=
[ "$NEIGHBOUR" = 1 ] && nbtitle=", beside a neighbour: 64 KiB random writes x iodepth 16 on for 2 s every 3 s from 1 s"
say "### depth=auto against depth=max on a real disk (4k randread, O_DIRECT, ${SIZE_MB} MiB file on $dev, 2 groups 300:100 x iodepth 64, ${RUNTIME} s per run, $REPS pairs$nbtitle)"
say ""
machine
say "command: ${0#$TOP/} (REPS=$REPS RUNTIME=$RUNTIME SIZE_MB=$SIZE_MB$([ "$NEIGHBOUR" = 1 ] && echo " NEIGHBOUR=1")${AUTO:+ AUTO=$AUTO}${BASE:+ BASE=$BASE}); ioqos: $IOQOS"
say ""
say "| pair | max IOPS | max A % | max A lat us | auto IOPS | auto A % | auto A lat us | depth found | auto/max IOPS | auto/max A lat |"
say "|---|---|---|---|---|---|---|---|---|---|"
for x in "${rows[@]}"; do say "$x"; done
say ""
say "medians: aggregate $AGG of max, A's share $SH%, A's latency $LAT of max, depth $FOUND"
awk -v g="$AGG" -v s="$SH" -v l="$LAT" 'BEGIN { exit !(g >= 0.95 && s >= 72 && s <= 78 && l <= 0.85) }' &&
	say "targets (aggregate >= 0.95, A 75 +- 3%, A's latency <= 0.85): met" ||
	say "targets (aggregate >= 0.95, A 75 +- 3%, A's latency <= 0.85): NOT met"

if [ "$NEIGHBOUR" = 1 ]; then
	# the neighbour's MiB/s in its bursts, the median over the runs of
	# each setting; how far apart a pair's bursts began, at most
	nbmax=$($PY median $(for ((i = 1; i <= REPS; i++)); do cut -d' ' -f2 "$WORK/nb.max.$i"; done))
	nbauto=$($PY median $(for ((i = 1; i <= REPS; i++)); do cut -d' ' -f2 "$WORK/nb.auto.$i"; done))
	apart=$(for ((i = 1; i <= REPS; i++)); do paste -d' ' "$WORK/spans.max.$i" "$WORK/spans.auto.$i"; done | awk '{
		n = split($1, m, ","); k = split($2, a, ",")
		if (n != k) bad = 1
		for (j = 1; j <= n && j <= k; j++) {
			split(m[j], x, "-"); split(a[j], y, "-")
			d = x[1] - y[1]; if (d < 0) d = -d; if (d > w) w = d
		}
	} END { printf "%.0f ms%s", 1000 * w, bad ? " (and a pair whose runs had not the same number of bursts)" : "" }')
	say "neighbour: a fio of 64 KiB random writes (iodepth 16, O_DIRECT, io_uring) on a ${SIZE_MB} MiB file of its own on $dev, on for 2 s at 1 s, 4 s, 7 s... of every run; median $(printf '%.1f' "$nbmax") MiB/s in its bursts beside depth=max, $(printf '%.1f' "$nbauto") beside depth=auto; the bursts of a pair's two runs began at most $apart apart"
fi
if [ -n "$SVG" ]; then
	# the pair whose aggregate ratio is the median (the lower of the two
	# middle ones for an even count)
	k=$(for ((i = 1; i <= REPS; i++)); do echo "${aggs[i - 1]} $i"; done | sort -g |
		awk '{ p[NR] = $2 } END { print p[int((NR + 1) / 2)] }')
	base=${SVG%.svg}
	cp "$WORK/max.$k.csv" "$base-max.csv" && cp "$WORK/auto.$k.csv" "$base-auto.csv" ||
		die "cannot write beside $SVG"
	smax=- sauto=-
	if [ "$NEIGHBOUR" = 1 ]; then
		smax=$(cat "$WORK/spans.max.$k") sauto=$(cat "$WORK/spans.auto.$k")
		printf 'depth=max %s\ndepth=auto %s\n' "$smax" "$sauto" > "$base-bursts.txt"
	fi
	python3 "$BENCH_DIR/plot.py" --logs --expect /a=75,/b=25 \
		--title "pair $k of $REPS (the median auto/max IOPS, ${aggs[k - 1]})$([ "$NEIGHBOUR" = 1 ] && echo ", neighbour's bursts shaded")" \
		--run "depth=max" "$WORK/max.$k.csv" "$smax" \
		--run "depth=auto" "$WORK/auto.$k.csv" "$sauto" > "$WORK/plot.svg" || die "plot.py failed"
	mv "$WORK/plot.svg" "$SVG" || die "cannot write $SVG"
	say ""
	say "plot: pair $k (the median aggregate ratio), intervals of $PLOT_MS ms: $SVG"
	say "its data: $base-max.csv, $base-auto.csv$([ "$NEIGHBOUR" = 1 ] && echo ", $base-bursts.txt (the bursts, s from each run's start)")"
fi
