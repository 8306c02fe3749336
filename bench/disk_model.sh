#!/bin/bash
# A device file for the simulator (ioqos run --engine sim --device FILE)
# measured with fio on a real disk, 4 KiB random reads (O_DIRECT, io_uring)
# unless said otherwise:
#
#   curve=       the IOPS at depths 1, 2, 4 ... 256 (DEPTHS), each run for
#                RAMP s of warm-up and SECS s of measure, swept up and then
#                down SWEEPS (2) times, a depth's figure the mean of its
#                runs: a speed that drifts evenly over the sweeps moves every
#                depth's mean alike (a depth run up at minute m runs down at
#                minute M-m, so each mean sits at minute M/2).  One fio job
#                keeps a depth as long as its CPU allows: on the first way
#                up, where one job used CPU_BUSY% (60) of a CPU or more, the
#                depth runs again as J jobs of D/J each (J: the CPUs, at most
#                4), and from the first depth where they did 10% more IOPS
#                than the one job, every depth runs so; the header says
#                where and what each gave.  60%, not 90: a job that busy
#                spends about as long submitting and reaping as the device
#                takes to serve it, and on a machine shared with other work
#                it never gets the whole CPU.  The comparison, not the CPU
#                alone, decides: at a low depth J jobs of D/J can do less
#                than one job of D.
#   size_cost=   64 KiB random reads against 4 KiB ones at COST_DEPTH: a
#                64 KiB read does the work of W = IOPS(4k) / IOPS(64k) 4 KiB
#                ones, the 60 KiB past the first 4 KiB cost W - 1 of them,
#                so size_cost = 61440 / (W - 1), kept between 4096 (a read
#                costs in proportion to its bytes) and 1 MiB (size almost
#                free).
#   write_cost=  4 KiB random writes against 4 KiB reads at COST_DEPTH,
#                kept between 0.05 and 50.  The cost runs go R4 R64 W4 W4
#                R64 R4, so that each kind's mean falls at the same moment.
#   speed_log=   SPEED_SECS s of fio at depth 32 with write_iops_log and
#                log_avg_msec=10, the jobs' logs summed into one, written
#                beside the device file as NAME-speed.log: the simulator
#                scales its speed by each window's IOPS over the mean.
#   jitter=      not measured: JITTER percent (10, the ssd preset's).  The
#                curve and the speed log carry the device's swings; the
#                header gives the spread of the latency at depth 1.
#   capacity=    the size of the device that holds the file.
#
# PATH is a directory on the disk to measure, where a SIZE_MB MiB file of
# random data is laid out for the runs (as auto_disk.sh does) and removed
# after, or a block device, which is only read (fio --readonly) unless
# WRITE=1: then the write runs and the neighbour overwrite its first
# 2 x SIZE_MB MiB.  Without WRITE=1 a block device gets no write_cost=
# (the simulator's default, 1) and no neighbour measurement.
#
# With NEIGHBOUR=1, also NAME-neighbour.dev: the same device with a
# neighbour (64 KiB random writes 16 deep, on 2 s from 1 s, off 1 s: the
# neighbour_* keys), and NAME-neighbour-reader.log, the IOPS log of a
# 4 KiB reader at depth 32 for NB_SECS s while a second fio did those
# writes in those bursts on a second file of the disk (lib.sh's nb_*), for
# the docs: the neighbour file keeps the calm speed log, since the bursts in
# the reader's log would count twice beside the neighbour_* keys.
#
# Every fio command run is written into the header.  The work files and
# any fio still running are removed on exit, also on Ctrl-C or kill.
#
#   bench/disk_model.sh PATH [OUT.dev]    (default OUT: disk.dev here;
#       QUICK=1: 1 s per run, a smoke test; SIZE_MB SECS RAMP DEPTHS
#       SWEEPS COST_DEPTH SPEED_SECS NB_SECS JITTER CPU_BUSY; JOBS_FROM=D: J jobs
#       from depth D on, not measured; WRITE=1; NEIGHBOUR=1)
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

TARGET=${1:-}
OUT=${2:-disk.dev}
[ -n "$TARGET" ] && [ $# -le 2 ] || die "usage: bench/disk_model.sh DIR|BLOCKDEV [OUT.dev]"
need fio "apt-get install fio"
need python3 "apt-get install python3"
need lsblk "apt-get install util-linux"
need dd "apt-get install coreutils"
need awk "apt-get install gawk"
fio --enghelp=io_uring > /dev/null 2>&1 || die "this fio ($(fio --version)) has no io_uring engine"

SECS=${SECS:-$(pick 1 3)}
RAMP=${RAMP:-$(pick 0 1)}
SIZE_MB=${SIZE_MB:-$(pick 256 1024)}
DEPTHS=${DEPTHS:-1 2 4 8 16 32 64 128 256}
COST_DEPTH=${COST_DEPTH:-32}
SPEED_DEPTH=32
SPEED_SECS=${SPEED_SECS:-$(pick 5 60)}
NB_SECS=${NB_SECS:-$(pick 7 30)}
JITTER=${JITTER:-10}
CPU_BUSY=${CPU_BUSY:-60}
SWEEPS=${SWEEPS:-$(pick 1 2)}
JOBS_FROM=${JOBS_FROM:-}
WRITE=${WRITE:-0}
NEIGHBOUR=${NEIGHBOUR:-0}
JOBS_MAX=$(nproc)
[ "$JOBS_MAX" -gt 4 ] && JOBS_MAX=4

OUT_DIR=$(cd "$(dirname "$OUT")" 2>/dev/null && pwd) || die "no directory for $OUT"
NAME=$(basename "$OUT" .dev)
[ -w "$OUT_DIR" ] || die "cannot write into $OUT_DIR"

RO=()
if [ -b "$TARGET" ]; then
	bench_work
	F=$TARGET
	DEV=$TARGET
	[ -r "$F" ] || die "cannot read $F (root?)"
	if [ "$WRITE" = 1 ]; then
		[ -w "$F" ] || die "cannot write $F (root?)"
		NF_OPTS=(--filename="$F" --offset="${SIZE_MB}m" --size="${SIZE_MB}m")
	else
		RO=(--readonly)
	fi
	WHERE="the first $SIZE_MB MiB of $F"
elif [ -d "$TARGET" ]; then
	BENCH_TMPDIR=$(cd "$TARGET" && pwd) bench_work
	F=$WORK/model.dat
	note "laying out $SIZE_MB MiB of random data in $F"
	fill "$F" "$SIZE_MB" || die "cannot lay out $F"
	DEV=$(disk_of "$F")
	WHERE="a $SIZE_MB MiB file of random data on $DEV ($(df --output=fstype "$F" | tail -1))"
	NF_OPTS=(--filename="$WORK/neighbour.dat" --size="${SIZE_MB}m")
	WRITE=1
else
	die "$TARGET is neither a directory nor a block device"
fi

# the disk under DEV (a partition's parent), for its size and scheduler
DISK=$(lsblk -no PKNAME "$DEV" 2>/dev/null | head -1)
[ -n "$DISK" ] || DISK=${DEV#/dev/}
SCHED=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$DISK/queue/scheduler" 2>/dev/null)
CAPACITY=$(lsblk -bdno SIZE "$DEV" 2>/dev/null | tr -d ' ')
DESC=$(lsblk -dno SIZE,ROTA,MODEL "/dev/$DISK" 2>/dev/null | awk '{ m = ""; for (i = 3; i <= NF; i++) m = m " " $i
	printf "%s, %s%s", $1, ($2 == 1 ? "rotational to the kernel" : "not rotational"), (m != "" ? "," m : "") }')
ON=$DEV
[ "$DEV" = "/dev/$DISK" ] || ON="$DEV on /dev/$DISK"

# busy: the share of the last 2 s in which the disk had I/O in flight
busy() {
	local a b
	a=$(awk -v d="$DISK" '$3 == d { print $13 }' /proc/diskstats)
	sleep 2
	b=$(awk -v d="$DISK" '$3 == d { print $13 }' /proc/diskstats)
	[ -n "$a" ] && [ -n "$b" ] && echo "$(((b - a) / 20))%" || echo "?"
}
BEFORE="load average $(cut -d' ' -f1-3 /proc/loadavg), $DISK busy $(busy) of the 2 s before"

COMMON=(--filename="$F" --size="${SIZE_MB}m" --direct=1 --ioengine=io_uring --randrepeat=0
	--norandommap --time_based --group_reporting "${RO[@]}")
CMDS=()   # every fio command line run, in order

# run_fio OUT.json OPTION...: one fio run, recorded for the header
run_fio() {
	local out=$1
	shift
	CMDS+=("fio $* --output-format=json")
	bg_wait fio "$@" --output-format=json --output="$out" ||
		die "fio failed: $(tail -3 "$out" 2>/dev/null)"
}

# split_jobs D: the most jobs, up to JOBS_MAX, that divide depth D
split_jobs() {
	local j
	for ((j = JOBS_MAX; j > 1; j--)); do (($1 % j == 0)) && break; done
	echo "$j"
}

# jobs_for D: the jobs that keep depth D: split_jobs from JOBS_FROM on,
# else one
jobs_for() {
	if [ -n "$JOBS_FROM" ] && [ "$1" -ge "$JOBS_FROM" ]; then split_jobs "$1"; else echo 1; fi
}

jobs_word() { if [ "$1" = 1 ]; then echo "1 job"; else echo "$1 jobs"; fi; }

# point D J RW BS TAG: a run at depth D as J jobs; sets IOPS, CPU (of the
# first job), LAT and SD (its completion latency's mean and deviation, us)
# (not to be called in $(...): run_fio records the command in this shell)
point() {
	local ramp=()
	[ "$RAMP" != 0 ] && ramp=(--ramp_time="$RAMP")
	run_fio "$WORK/$5.json" "${COMMON[@]}" --name=model --rw="$3" --bs="$4" \
		--iodepth=$(($1 / $2)) --numjobs="$2" "${ramp[@]}" --runtime="$SECS"
	read -r IOPS CPU LAT SD <<< "$($PY fio-sum "$WORK/$5.json")"
}

# ---- the curve: up, then down, SWEEPS times --------------------------------
declare -A RES JOBS CPUS
LAT1=
tried=
for ((sw = 1; sw <= SWEEPS; sw++)); do
	for d in $DEPTHS; do
		j=${JOBS[$d]:-$(jobs_for "$d")}
		note "curve, sweep $sw up: depth $d ($(jobs_word "$j"))"
		point "$d" "$j" randread 4k "up.$sw.$d"
		js=$(split_jobs "$d")
		if [ "$sw" = 1 ] && [ "$j" = 1 ] && [ -z "$JOBS_FROM" ] && [ "$js" -gt 1 ] &&
			awk -v c="$CPU" -v b="$CPU_BUSY" 'BEGIN { exit !(c >= b) }'; then
			one=$IOPS onecpu=$CPU
			note "  one job used $CPU% of a CPU: depth $d again as $js jobs"
			point "$d" "$js" randread 4k "split.$d"
			tried="$tried depth $d: 1 job $one IOPS ($onecpu% of a CPU), $js jobs $IOPS;"
			if awk -v a="$IOPS" -v b="$one" 'BEGIN { exit !(a > 1.1 * b) }'; then
				JOBS_FROM=$d j=$js
			else
				IOPS=$one CPU=$onecpu
			fi
		fi
		[ "$sw" = 1 ] && CPUS[$d]=$CPU JOBS[$d]=$j
		RES[$d]="${RES[$d]} $IOPS"
		[ "$sw" = 1 ] && [ "$d" = 1 ] && LAT1="$LAT us mean, $SD us standard deviation"
	done
	for d in $(echo "$DEPTHS" | tr ' ' '\n' | sort -rn); do
		note "curve, sweep $sw down: depth $d"
		point "$d" "${JOBS[$d]}" randread 4k "down.$sw.$d"
		RES[$d]="${RES[$d]} $IOPS"
	done
done
CURVE=
for d in $DEPTHS; do
	CURVE="$CURVE,$d:$(echo "${RES[$d]}" | awk '{ s = 0; for (i = 1; i <= NF; i++) s += $i; printf "%.0f", s / NF }')"
done
CURVE=${CURVE#,}

# ---- the costs at COST_DEPTH: R4 R64 W4 W4 R64 R4 -----------------------
cj=${JOBS[$COST_DEPTH]:-$(jobs_for "$COST_DEPTH")}
note "costs at depth $COST_DEPTH"
point "$COST_DEPTH" "$cj" randread 4k r4a; r4a=$IOPS
point "$COST_DEPTH" "$cj" randread 64k r64a; r64a=$IOPS
if [ "$WRITE" = 1 ]; then
	point "$COST_DEPTH" "$cj" randwrite 4k w4a; w4a=$IOPS
	point "$COST_DEPTH" "$cj" randwrite 4k w4b; w4b=$IOPS
fi
point "$COST_DEPTH" "$cj" randread 64k r64b; r64b=$IOPS
point "$COST_DEPTH" "$cj" randread 4k r4b; r4b=$IOPS
read -r WORK64 SIZE_COST <<< "$(awk -v a="$r4a" -v b="$r4b" -v c="$r64a" -v e="$r64b" 'BEGIN {
	w = (c + e) ? (a + b) / (c + e) : 0
	s = w > 1 ? 61440 / (w - 1) : 1048576
	if (s < 4096) s = 4096
	if (s > 1048576) s = 1048576
	printf "%.2f %.0f\n", w, s }')"
WRITE_COST=
if [ "$WRITE" = 1 ]; then
	WRITE_COST=$(awk -v a="$r4a" -v b="$r4b" -v c="$w4a" -v e="$w4b" 'BEGIN {
		w = (c + e) ? (a + b) / (c + e) : 50
		if (w < 0.05) w = 0.05
		if (w > 50) w = 50
		printf "%.2f\n", w }')
fi

# ---- the speed log --------------------------------------------------------
sj=${JOBS[$SPEED_DEPTH]:-$(jobs_for "$SPEED_DEPTH")}
note "speed log: $SPEED_SECS s at depth $SPEED_DEPTH"
run_fio "$WORK/speed.json" "${COMMON[@]}" --name=speed --rw=randread --bs=4k \
	--iodepth=$((SPEED_DEPTH / sj)) --numjobs="$sj" --runtime="$SPEED_SECS" \
	--write_iops_log="$WORK/speed" --log_avg_msec=10
SPEED_MEAN=$($PY iops-merge 10 - "$WORK/speed.log" "$WORK"/speed_iops.*.log) || die "cannot merge the speed logs"
read -r s_mean s_p5 s_p95 s_lo s_hi <<< "$($PY log-stats "$WORK/speed.log")"

# ---- the neighbour's bursts beside a reader -------------------------------
NB_DONE=0
if [ "$NEIGHBOUR" = 1 ] && [ "$WRITE" = 1 ]; then
	if [ -d "$TARGET" ]; then
		note "laying out $SIZE_MB MiB of random data for the neighbour"
		fill "$WORK/neighbour.dat" "$SIZE_MB" || die "cannot lay out the neighbour's file"
	fi
	NB_FIO=(fio --name=neighbour "${NF_OPTS[@]}" --direct=1 --ioengine=io_uring --rw=randwrite
		--bs=64k --iodepth=16 --randrepeat=0 --norandommap --time_based)
	nb_lead
	note "a reader at depth 32 for $NB_SECS s beside the neighbour's bursts"
	# the reader waits in exec_prerun= as the bursts do, so that its I/O
	# begins at the schedule's start (its output file in the work directory)
	origin=$(($(now_ms) + NB_LEAD_MS))
	nb_start "$origin" "$NB_SECS" "$WORK/nb"
	cd "$WORK" || die "cannot enter $WORK"
	run_fio "$WORK/reader.json" "${COMMON[@]}" --name=reader --rw=randread --bs=4k \
		--iodepth=$((SPEED_DEPTH / sj)) --numjobs="$sj" --runtime="$NB_SECS" \
		--exec_prerun="sh $WORK/nbgate $origin" \
		--write_iops_log="$WORK/reader" --log_avg_msec=10 --log_unix_epoch=1
	cd "$OLDPWD" || die "cannot go back to $OLDPWD"
	nb_wait
	CMDS+=("${NB_FIO[*]} --runtime=MSms --exec_prerun=sh DIR/nbgate DUE --write_bw_log=DIR/nb.K --log_unix_epoch=1 --output-format=json (one per burst, launched ${NB_LEAD_MS} ms before it is due; DIR/nbgate sleeps until the clock reads DUE, the burst's time in unix ms, and so does the reader's)")
	$PY iops-merge 10 "$origin" "$WORK/reader.log" "$WORK"/reader_iops.*.log > /dev/null ||
		die "cannot merge the reader's logs"
	SPANS=$(nb_spans "$origin" "$WORK/nb") || die "cannot read the neighbour's logs"
	read -r nb_on nb_off nb_pct nb_low <<< "$($PY on-off "$WORK/reader.log" "$SPANS")"
	read -r nb_iops nb_mibs <<< "$($PY bursts "$WORK"/nb.*.json)"
	NB_DONE=1
elif [ "$NEIGHBOUR" = 1 ]; then
	skip "the neighbour's bursts: $F is only read (WRITE=1 to write on it)"
fi

# ---- the device files -------------------------------------------------------
header() {
	local d c
	echo "# $1: $DEV as bench/disk_model.sh measured it on $(date -u '+%Y-%m-%d %H:%M UTC'):"
	echo "# 4 KiB random reads unless said, O_DIRECT, io_uring, on $WHERE."
	echo "# machine: Linux $(uname -r), $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)); $(fio --version)"
	echo "# device: $ON ($DESC; scheduler ${SCHED:-?}); $BEFORE"
	echo "#"
	echo "# curve: each depth ${RAMP} s of warm-up and $SECS s of measure, swept up the depths"
	echo "# and then down, $([ "$SWEEPS" = 1 ] && echo once || echo "$SWEEPS times"), each depth's IOPS the mean of its runs (so that a"
	echo "# drift even over the sweeps moves all depths alike)."
	[ -n "$tried" ] && echo "Where one job used $CPU_BUSY% of a CPU or more, the same depth ran as several jobs:${tried%;}." |
		fold -s -w 86 | sed 's/^/# /; s/ *$//'
	if [ -n "$JOBS_FROM" ]; then
		echo "# Depths $JOBS_FROM and up ran as ${JOBS[$JOBS_FROM]} jobs of depth/${JOBS[$JOBS_FROM]} each$([ -z "$tried" ] && echo " (JOBS_FROM=$JOBS_FROM)")."
	else
		echo "# Every depth ran as one job."
	fi
	echo "#   depth  jobs  CPU % (first run, per job)  IOPS of the runs in order (up, down, ...)"
	for d in $DEPTHS; do
		printf '#   %5s  %4s  %26s  %s\n' "$d" "${JOBS[$d]}" "${CPUS[$d]}" "${RES[$d]# }"
	done
	echo "# size_cost: at depth $COST_DEPTH, 4 KiB reads $r4a and $r4b IOPS, 64 KiB reads $r64a and $r64b:"
	echo "# a 64 KiB read costs $WORK64 4 KiB ones, size_cost = 61440 / ($WORK64 - 1), within 4096 and 1 MiB."
	if [ -n "$WRITE_COST" ]; then
		echo "# write_cost: at depth $COST_DEPTH, 4 KiB writes $w4a and $w4b IOPS against the reads'"
		echo "# (the runs went R4 R64 W4 W4 R64 R4)."
	else
		echo "# write_cost: not measured ($F is only read); the simulator's default, 1."
	fi
	echo "# jitter: not measured, $JITTER% (the ssd preset's); at depth 1 the latency was $LAT1."
	echo "# speed_log: $SPEED_SECS s at depth $SPEED_DEPTH ($(jobs_word "$sj")), IOPS per 10 ms, the jobs' logs summed;"
	echo "# mean $s_mean, 5th-95th percentile $s_p5-$s_p95, 1-s means from $s_lo to $s_hi."
	echo "# capacity: the size of $DEV."
	echo "#"
	echo "# fio commands, in the order they ran (FILE: the measured file or device, DIR: the work"
	echo "# directory; the curve's ran up and down, the costs' twice):"
	for c in "${CMDS[@]}"; do
		c=${c//"$F"/FILE}
		c=${c//"$WORK"/DIR}
		echo "#   $c"
	done | awk '!seen[$0]++'
}
keys() {
	echo "curve=$CURVE"
	echo "size_cost=$SIZE_COST"
	[ -n "$WRITE_COST" ] && echo "write_cost=$WRITE_COST"
	echo "jitter=$JITTER"
	[ -n "$CAPACITY" ] && echo "capacity=$CAPACITY"
	echo "speed_log=$NAME-speed.log"
}

{ header "$NAME.dev"; keys; } > "$WORK/out.dev"
cp "$WORK/speed.log" "$OUT_DIR/$NAME-speed.log" || die "cannot write $OUT_DIR/$NAME-speed.log"
mv "$WORK/out.dev" "$OUT_DIR/$NAME.dev" || die "cannot write $OUT_DIR/$NAME.dev"
say "wrote $OUT_DIR/$NAME.dev and $NAME-speed.log"
if [ "$NB_DONE" = 1 ]; then
	{
		header "$NAME-neighbour.dev"
		echo "#"
		echo "# The neighbour: 64 KiB random writes 16 deep, on 2 s from 1 s, off 1 s, as"
		echo "# the last fio command above.  Beside a 4 KiB reader at depth $SPEED_DEPTH ($(jobs_word "$sj")) for $NB_SECS s on the"
		echo "# same disk, it ran at $SPANS s of the reader's run"
		echo "# and did $nb_iops writes/s ($nb_mibs MiB/s) in its bursts; the reader did $nb_on IOPS"
		echo "# while it was on and $nb_off while it was off ($nb_pct%), its lowest 100-ms mean on: $nb_low."
		echo "# The reader's IOPS per 10 ms: $NAME-neighbour-reader.log (for the docs; the"
		echo "# speed log below is the calm one: the bursts in the reader's log would count"
		echo "# twice beside the neighbour_* keys)."
		keys
		echo "neighbour_depth=16"
		echo "neighbour_bs=65536"
		echo "neighbour_rw=randwrite"
		echo "neighbour_at=1s"
		echo "neighbour_on=2s"
		echo "neighbour_off=1s"
	} > "$WORK/out.dev"
	cp "$WORK/reader.log" "$OUT_DIR/$NAME-neighbour-reader.log" || die "cannot write $OUT_DIR/$NAME-neighbour-reader.log"
	mv "$WORK/out.dev" "$OUT_DIR/$NAME-neighbour.dev" || die "cannot write $OUT_DIR/$NAME-neighbour.dev"
	say "wrote $OUT_DIR/$NAME-neighbour.dev and $NAME-neighbour-reader.log"
	say "neighbour: reader $nb_on IOPS on, $nb_off off ($nb_pct%), lowest 100 ms $nb_low; bursts at $SPANS s"
fi
say ""
keys
