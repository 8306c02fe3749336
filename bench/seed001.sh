#!/bin/bash
# Seed 001's benchmark (the 2016 ".high limit" thread, shared/history 001):
# four groups on one file, examples/seed001.fio,
#   g1  cycles of deep 4 KiB random reads and 1 MiB sequential reads,
#       each phase what takes 3 s alone on this machine's disk
#   g2  quasi-sequential reads, 1 s on, 1 s off
#   g3  a program's cold start (bench/traces/TRACE.iolog) every 5 s
#   g4  a movie: 25 frames a second of 256 KiB, 40 ms a frame
# and, for each row, each phase's time per cycle, each start-up's time
# against the same trace alone, the frames dropped, each group's
# bandwidth and the aggregate.  Rows:
#   none       ioqos run, --qos examples/depth-max.qos (no controller)
#   weights    ioqos run as the job file is: weights 100 each, no depth
#              written (depth=auto)
#   targets    and examples/seed001-latency.qos: latency targets on g3
#              and g4
#   fio-SCHED  fio 3.33 itself on the same jobs (cgroup= lines dropped:
#              no controller) on a loop device (direct I/O) over the
#              same file, its scheduler none, mq-deadline or kyber
# "alone" is the trace replayed by itself (ioqos for ioqos's rows, fio on
# the loop device for fio's).
#
#   bench/seed001.sh [sim|disk|all]
#   bench/seed001.sh report DIR     the tables again from a KEEP=DIR
#
#   sim    the simulator, SIM_DEV (examples/sim/vmdisk.dev, this machine's
#          disk as a device file, or a preset: ssd, nvme, hdd), one run a
#          row (deterministic)
#   disk   io_uring, O_DIRECT, on a 1 GiB file of random data under
#          BENCH_TMPDIR; REPS (3) rounds, each the trace alone and every
#          row once, the rows in the opposite order in every other round;
#          medians over the rounds
#   TRACE=NAME      the start-up replayed (python3-import)
#   ROWS="..."      some of the rows (none weights targets fio-none
#                   fio-mq-deadline fio-kyber)
#   SVG=FILE        an SVG of the start-up times and of g3's and g4's
#                   latency over time (the sim's runs, or the disk's last
#                   round), by bench/seed001.py
#   KEEP=DIR        copy every run's report and logs there (report DIR
#                   makes the tables and the SVG again from them)
#   DISK_LOCK=FILE  run each disk run under flock FILE (to share the disk
#                   with other measurements)
#
# The figures: a phase's time is its job's run time (g1's phases follow
# one another by wait_for=); a start-up's is its replay job's run time
# (fio's replay waits each gap from the previous issue, so a slowed read
# eats into the think time after it: the slowdown is understated by up to
# the trace's think times), and beside it the trace's think times plus
# its reads' latencies in the run, one after another: what the program
# would have taken; a frame is dropped when its read completes more than
# 40 ms after its issue or is never read in the run time, and "behind"
# counts the frames a player that never skips shows late (from g4's
# latency log, bench/seed001.py); each group's bandwidth is over its own
# time (g1's phases, g3's start-ups, g2's and g4's run times), the
# aggregate over the run.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
bench_init

WHAT=${1:-all}
SIM_DEV=${SIM_DEV:-$TOP/examples/sim/vmdisk.dev}
REPS=${REPS:-3}
TRACE=${TRACE:-python3-import}
ROWS=${ROWS:-none weights targets fio-none fio-mq-deadline fio-kyber}
EX=$TOP/examples
SEEDPY="python3 $BENCH_DIR/seed001.py"
READS=$BENCH_DIR/traces/$TRACE.reads
[ -f "$BENCH_DIR/traces/$TRACE.iolog" ] && [ -f "$READS" ] || die "no trace bench/traces/$TRACE.iolog and .reads"
need python3 "apt-get install python3"
case "$SIM_DEV" in /*) ;; */*) SIM_DEV=$TOP/$SIM_DEV ;; esac     # else a preset
cp "$BENCH_DIR/traces/$TRACE.iolog" "$WORK/startup.iolog"

# run_in DIR CMD...: a fresh DIR holding the trace (and the file), CMD run
# there (in the background and tracked, so that an interruption stops it),
# its JSON report DIR/out.json, its stderr DIR/err; on the disk, under
# flock DISK_LOCK where one is given
ON_DISK=0
run_in() {
	local d=$1 rc
	shift
	rm -rf "$d"
	mkdir -p "$d"
	ln -s "$WORK/startup.iolog" "$d/startup.iolog"
	[ -f "$WORK/seed001.dat" ] && ln -s "$WORK/seed001.dat" "$d/seed001.dat"
	disk_lock
	bg_wait run_there "$d" "$@"
	rc=$?
	disk_unlock
	[ "$rc" = 0 ] || die "$* failed in $d: $(tail -3 "$d/err")"
	[ -n "${KEEP:-}" ] && { mkdir -p "$KEEP"; cp -r "$d" "$KEEP/"; }
	return 0
}
disk_lock() {
	[ "$ON_DISK" = 1 ] && [ -n "${DISK_LOCK:-}" ] || return 0
	exec 9>> "$DISK_LOCK" || die "cannot open $DISK_LOCK"
	flock 9
}
disk_unlock() { [ "$ON_DISK" = 1 ] && [ -n "${DISK_LOCK:-}" ] && exec 9>&-; return 0; }
run_there() { cd "$1" || exit 1; shift; exec "$@" > out.json 2> err 9>&-; }

# the job file for fio: no cgroup (fio's are cgroup v1 blkio groups, and
# no controller is the point), the file the loop device
fio_job() { # DEV
	sed -e '/^cgroup/d' -e "s|^filename=seed001.dat|filename=$1|" \
		-e "s|^replay_redirect=seed001.dat|replay_redirect=$1|" "$EX/seed001.fio" > "$WORK/seed001-fio.fio"
}

# one_row ROW DIR [ENGINE-ARGS...]: one run of a row in DIR
one_row() {
	local r=$1 d=$2
	shift 2
	case $r in
	none)    run_in "$d" "$IOQOS" run "$EX/seed001.fio" --output-format=json --qos "$EX/depth-max.qos" "$@" ;;
	weights) run_in "$d" "$IOQOS" run "$EX/seed001.fio" --output-format=json "$@" ;;
	targets) run_in "$d" "$IOQOS" run "$EX/seed001.fio" --output-format=json --qos "$EX/seed001-latency.qos" "$@" ;;
	fio-*)   set_sched "$LOOP" "${r#fio-}" || die "cannot set the scheduler ${r#fio-} on $LOOP"
	         run_in "$d" fio "$WORK/seed001-fio.fio" --output-format=json ;;
	esac
}

# ratios A B L: "A/L / B/L"
ratios() { awk -v a="$1" -v b="$2" -v l="$3" 'BEGIN { printf "%.2f / %.2f", a / l, b / l }'; }

# median X...
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# list "a,b,c": its median
lmed() { median ${1//,/ }; }
lmax() { printf '%s\n' ${1//,/ } | sort -n | tail -1; }

# table ALONE_IOQOS ALONE_FIO ROW=DIR,DIR...: medians over each row's runs
table() {
	local a_q=$1 a_f=$2 a_qe=$3 a_fe=$4 spec r dirs d line alone alone_e k
	shift 4
	say "| row | g1 random phase (ms) | g1 sequential phase (ms) | start-up (ms), median / max | x alone | think + latencies (ms), median / max | x alone | frames dropped | reads > 40 ms | frames behind | g1 MB/s | g2 MB/s | g3 MB/s | g4 MB/s | aggregate MB/s |"
	say "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for spec in "$@"; do
		r=${spec%%=*}
		dirs=${spec#*=}
		local rm=() sm=() stm=() stx=() etm=() etx=() dr=() sl=() bh=() g1=() g2=() g3=() g4=() ag=() phases_r="" phases_s="" st fr frames=0
		for d in ${dirs//,/ }; do
			line=$($SEEDPY row "$d" "$READS") || die "cannot read the run in $d"
			rm+=("$(lmed "$(kv rand_ms "$line")")")
			sm+=("$(lmed "$(kv seq_ms "$line")")")
			stm+=("$(lmed "$(kv startup_ms "$line")")")
			stx+=("$(lmax "$(kv startup_ms "$line")")")
			etm+=("$(lmed "$(kv est_ms "$line")")")
			etx+=("$(lmax "$(kv est_ms "$line")")")
			dr+=("$(kv dropped "$line")")
			sl+=("$(kv slow "$line")")
			bh+=("$(kv behind "$line")")
			g1+=("$(kv g1_mbs "$line")"); g2+=("$(kv g2_mbs "$line")")
			g3+=("$(kv g3_mbs "$line")"); g4+=("$(kv g4_mbs "$line")")
			ag+=("$(kv agg_mbs "$line")")
			phases_r="$phases_r $(kv rand_ms "$line")"
			phases_s="$phases_s $(kv seq_ms "$line")"
			frames=$(kv frames "$line")
		done
		case $r in fio-*) alone=$a_f alone_e=$a_fe ;; *) alone=$a_q alone_e=$a_qe ;; esac
		if [ -n "${stm[0]}" ]; then
			st="$(median "${stm[@]}") / $(median "${stx[@]}") | $(ratios "$(median "${stm[@]}")" "$(median "${stx[@]}")" "$alone")"
			st="$st | $(median "${etm[@]}") / $(median "${etx[@]}") | $(ratios "$(median "${etm[@]}")" "$(median "${etx[@]}")" "$alone_e")"
		else
			st="- | - | - | -"
		fi
		if [ "$frames" = 0 ]; then
			fr="- | - | -"
		else
			fr="$(echo "${dr[@]}" | tr ' ' '+') of $frames | $(echo "${sl[@]}" | tr ' ' '+') | $(echo "${bh[@]}" | tr ' ' '+')"
		fi
		say "| $r | $(median "${rm[@]}") ($(echo $phases_r | tr ' ' ';')) | $(median "${sm[@]}") ($(echo $phases_s | tr ' ' ';')) |" \
			"$st | $fr | $(median "${g1[@]}") | $(median "${g2[@]}") | $(median "${g3[@]}") | $(median "${g4[@]}") | $(median "${ag[@]}") |"
	done
}

# kv KEY LINE
kv() { local w; for w in $2; do [ "${w%%=*}" = "$1" ] && { echo "${w#*=}"; return; }; done; }

svg_of() { # ALONE_MS ROW=DIR...
	[ -n "${SVG:-}" ] || return 0
	$SEEDPY svg "$SVG" "$@" || die "cannot draw $SVG"
	say ""
	say "SVG: $SVG"
}

sim() {
	local r
	say "### The simulator: $(basename "$SIM_DEV"), trace $TRACE"
	say ""
	say "command: bench/seed001.sh sim (ioqos run examples/seed001.fio --engine sim --device $(basename "$SIM_DEV") [--qos ...])"
	machine
	say ""
	run_in "$WORK/sim-alone" "$IOQOS" run "$EX/seed001.fio" --section g3-1 --output-format=json --engine sim --device "$SIM_DEV"
	run_in "$WORK/sim-g1" "$IOQOS" run "$EX/seed001.fio" --section g1-rand-1 --section g1-seq-1 --section g1-rand-2 \
		--section g1-seq-2 --section g1-rand-3 --section g1-seq-3 --output-format=json --engine sim --device "$SIM_DEV"
	for r in $ROWS; do
		case $r in fio-*) continue ;; esac
		one_row "$r" "$WORK/sim-$r" --engine sim --device "$SIM_DEV"
	done
	sim_table "$WORK"
	say ""
}

# sim_table BASE: the simulator's table (and SVG) from BASE/sim-*
sim_table() {
	local b=$1 r specs=() alone alone_e
	read -r alone alone_e <<< "$($SEEDPY alone "$b/sim-alone" "$READS")"
	for r in $ROWS; do [ -d "$b/sim-$r" ] && specs+=("$r=$b/sim-$r"); done
	say "the trace alone: $alone ms (think + latencies $alone_e ms); g1 alone: random phases $(kv rand_ms "$($SEEDPY row "$b/sim-g1")") ms," \
		"sequential phases $(kv seq_ms "$($SEEDPY row "$b/sim-g1")") ms"
	say ""
	table "$alone" "$alone" "$alone_e" "$alone_e" "g1 alone=$b/sim-g1" "${specs[@]}"
	svg_of "$alone" "${specs[@]}"
}

disk() {
	local k r order
	have fio || { skip "disk: fio is not installed (apt-get install fio)"; return 0; }
	have_loop || { skip "disk: needs root and loop devices for the kernel's rows"; return 0; }
	say "### This machine's disk: trace $TRACE, $REPS rounds"
	say ""
	say "command: REPS=$REPS bench/seed001.sh disk"
	machine
	say "load before: $(cut -d' ' -f1-3 /proc/loadavg); file on $(disk_of "$WORK")"
	say ""
	ON_DISK=1
	disk_lock
	fill "$WORK/seed001.dat" 1024 || die "cannot lay out $WORK/seed001.dat"
	disk_unlock
	make_loop "$WORK/seed001.dat" || die "cannot attach a loop device"
	fio_job "$LOOP"
	run_in "$WORK/disk-g1" "$IOQOS" run "$EX/seed001.fio" --section g1-rand-1 --section g1-seq-1 --section g1-rand-2 \
		--section g1-seq-2 --section g1-rand-3 --section g1-seq-3 --output-format=json
	for ((k = 1; k <= REPS; k++)); do
		run_in "$WORK/disk-alone-$k" "$IOQOS" run "$EX/seed001.fio" --section g3-1 --output-format=json
		run_in "$WORK/disk-falone-$k" fio "$WORK/seed001-fio.fio" --section=g3-1 --output-format=json
		order=$ROWS
		[ $((k % 2)) = 0 ] && order=$(printf '%s\n' $ROWS | tac | tr '\n' ' ')
		for r in $order; do
			case $r in
			fio-*) one_row "$r" "$WORK/disk-$r-$k" ;;
			*) one_row "$r" "$WORK/disk-$r-$k" --engine io_uring ;;
			esac
			note "round $k: $r done ($(cut -d' ' -f1-3 /proc/loadavg))"
		done
	done
	say "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
	disk_table "$WORK"
	say ""
}

# disk_table BASE: the disk's table (and SVG) from BASE/disk-*: each row's
# rounds, the trace alone in each round
disk_table() {
	local b=$1 r d a_q=() a_f=() a_qe=() a_fe=() list=() runs n x y
	for d in "$b"/disk-alone-*; do read -r x y <<< "$($SEEDPY alone "$d" "$READS")"; a_q+=("$x"); a_qe+=("$y"); done
	for d in "$b"/disk-falone-*; do read -r x y <<< "$($SEEDPY alone "$d" "$READS")"; a_f+=("$x"); a_fe+=("$y"); done
	say "the trace alone: ioqos ${a_q[*]} ms (median $(median "${a_q[@]}"); think + latencies ${a_qe[*]}, median" \
		"$(median "${a_qe[@]}")), fio on the loop device ${a_f[*]} ms (median $(median "${a_f[@]}"); think + latencies" \
		"${a_fe[*]}, median $(median "${a_fe[@]}")); g1 alone: random phases $(kv rand_ms "$($SEEDPY row "$b/disk-g1")") ms," \
		"sequential phases $(kv seq_ms "$($SEEDPY row "$b/disk-g1")") ms"
	say ""
	n=${#a_q[@]}
	for r in $ROWS; do
		runs=$(ls -d "$b/disk-$r"-[0-9]* 2>/dev/null | tr '\n' ',')
		[ -n "$runs" ] && list+=("$r=${runs%,}")
	done
	table "$(median "${a_q[@]}")" "$(median "${a_f[@]}")" "$(median "${a_qe[@]}")" "$(median "${a_fe[@]}")" \
		"g1 alone=$b/disk-g1" "${list[@]}"
	list=()
	for r in $ROWS; do [ -d "$b/disk-$r-$n" ] && list+=("$r=$b/disk-$r-$n"); done
	svg_of "$(median "${a_q[@]}")" "${list[@]}"
}

case "$WHAT" in
sim) sim ;;
disk) disk ;;
all) sim; disk ;;
report)
	[ -d "${2:-}" ] || die "usage: $0 report DIR (a KEEP= directory)"
	[ -d "$2/sim-alone" ] && { say "### The simulator"; say ""; sim_table "$2"; say ""; }
	[ -d "$2/disk-alone-1" ] && { say "### This machine's disk"; say ""; disk_table "$2"; say ""; }
	;;
*) die "usage: $0 [sim|disk|all|report DIR]" ;;
esac
