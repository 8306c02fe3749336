#!/bin/bash
# bench/trace_startup.sh: the reads of a real program's cold start, with
# their think times, as an fio version 3 iolog that replays them against
# one file.
#
#   bench/trace_startup.sh CMD [ARG...]          record (as root)
#   bench/trace_startup.sh --replay TRACE.iolog... replay each with fio
#
#   OUT=PREFIX   the trace: PREFIX.iolog and PREFIX.reads (default
#                bench/traces/CMD, CMD's base name)
#   REPS=N       cold starts recorded (3); the one of median wall time is kept
#   SIZE=S       the file the reads are mapped into (1g; k, m, g suffixes)
#   RUNDIR=D     where CMD runs (the current directory)
#   DEV=D        the disk recorded (the one CMD's executable lives on)
#   BUF_KB=N     the trace buffer per CPU (65536)
#   RAWDIR=D     also keep each run's tracefs text there (raw.N)
#   CHECK="F..." more files to see cached or not after a drop (CMD's
#                helpers: cc1 and as for gcc), beside its executable and
#                libraries
#
# Needs root, tracefs with the block tracepoints and python3 (the helper,
# bench/trace_iolog.py), and fio for --replay.
#
# Recording.  A start-up reads mostly through page faults on mapped files
# (the executable, its libraries, what it maps later), which a trace of
# system calls does not see, so the reads are taken where they reach the
# disk: the kernel's block tracepoints, in a tracefs instance of the
# script's own (other tracers are left alone), its clock the monotonic
# one.  Each cold start is: sync and drop the page cache (drop_caches=3),
# clear the buffer, then fork a shell that writes "ioqos-trace start PID"
# to the instance's trace_marker and execs CMD; when CMD has exited, an
# end marker, half a second for what it left in flight, and the buffer is
# read.  Of REPS cold starts the one of median wall time is kept, and
# every run's figures are printed, to say how they varied.  The events,
# the block ones filtered in the tracepoint to reads on the disk:
#   block_bio_queue      who asked: the submitting task's pid
#   block_rq_issue       a request handed to the driver: its sector, its
#                        size, when (bios merged into it are one request)
#   block_rq_complete    when it ended
#   sched_process_fork   CMD's process tree, threads included
# A request is CMD's where a bio of its tree lies in it.  Requests are
# issued by whichever task runs the queue (kworkers too), so the pid on
# block_rq_issue says nothing; the bio's does.  Other processes' reads in
# the window are left out of the trace and counted in the summary (a
# filter on pids cannot know CMD's before it forks them, so they are
# sorted out afterwards from the fork events).  trace_iolog.py does the
# sorting.
#
# Think time.  A read's think time is the time before its issue from the
# later of the previous read's issue and the last completion of CMD's
# reads before it: what the program did between getting something from
# the disk (or asking for it) and asking again.  Measured from the last
# completion alone, a read issued while another was in flight would count
# again the gap before that other one.  A read's service time is from the
# later of its issue and the previous completion of CMD's reads to its
# own: the device's time for it alone where CMD's requests queued behind
# one another (a readahead batch), not the time it waited behind them.
#
# The iolog.  A version 3 iolog gives each line an absolute timestamp, in
# us for fio 3.33 (it writes utime_since_now() and sleeps the difference
# in us): "0 FILE add", "0 FILE open", one "T FILE read OFFSET LENGTH" a
# read in issue order, and "T FILE close" at the last read's completion.
# The timestamps are the schedule of the reads one at a time, each
# taking its recorded service time, each issued its think time after the
# previous one's completion: T(1) = 1, T(i) = T(i-1) + service(i-1) +
# think(i).  (The first read is at 1 us: fio takes no delay for a line
# after one stamped 0.)  fio replays a line T(i) - T(i-1) after it issued
# the previous one; with ioengine=psync (one read at a time) that is
# think(i) after the previous read's completion where the file's disk
# serves that read in its recorded service time.  What it does not honour:
# where the replay's read takes longer, the wait after it is shorter by
# the difference, and none once the difference passes the think time; a
# replay slowed by a controller thus understates the slowdown by up to the
# think times' sum.  Where the read is faster, the wait is longer, and the
# replay keeps the recording's pace.  PREFIX.reads has each read's
# service and think time, for a replayer that waits after completions.
#
# The file.  The reads are mapped into one file of SIZE: the extents they
# cover, in the disk's order, each where the one before it ended plus
# their gap on the disk, the gaps capped at the largest size that fits
# and each extent keeping its offset within a 4 KiB page.  The reads keep
# their sizes and their order, and reads that followed one another on the
# disk still do; PREFIX.reads says the cap.  Replay it with
#   fio --name=r --read_iolog=PREFIX.iolog --replay_redirect=FILE \
#       --ioengine=psync --direct=1
# on a FILE of SIZE bytes of real data (not sparse: holes are read without
# the disk), or --replay, which lays one out under BENCH_TMPDIR and says
# what fio measured against the schedule: its run time, its reads' mean
# latency, and the run time less its reads' latencies, which is about the
# time it waited between them (the think times it kept, plus its own
# time a read).  --filename alone does not do:
# fio opens the file the iolog names.
#
# Known weaknesses.
# - Pages that other processes have mapped survive drop_caches: a library
#   or an interpreter that something running uses (libc above all) is
#   not read, and the trace is of a start that is cold where the rest of
#   the machine is not.  The summary says what of CMD's executable and
#   libraries (and CHECK's files) stayed cached after a drop (fincore).
# - Reads only: what CMD writes goes out later, from the writeback threads.
# - The other readers on the disk slow CMD's reads and shift its think
#   times (its CPU too, on a busy machine); record when the load is low.
#   The summary gives the load, the other readers and their bytes.
# - Reads that overlapped (readahead, threads) replay one after another,
#   each in its own service time: where the disk served several side by
#   side, the schedule is longer than the cold start's reads took.
# - Device-mapper and md disks take bios without requests: give DEV= the
#   disk below.  A file system on several disks is traced on one of them.
# - Timestamps are the tracefs text's us.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

TRACEFS=/sys/kernel/tracing
HELPER="python3 $BENCH_DIR/trace_iolog.py"
INST=
MOUNTED=0

trace_cleanup() {
	if [ -n "$INST" ] && [ -d "$INST" ]; then
		echo 0 > "$INST/tracing_on" 2>/dev/null
		echo 0 > "$INST/events/enable" 2>/dev/null
		rmdir "$INST" 2>/dev/null || note "could not remove the tracefs instance $INST"
	fi
	[ "$MOUNTED" = 1 ] && umount "$TRACEFS" 2>/dev/null
	bench_cleanup
}

trace_work() {
	bench_work
	trap trace_cleanup EXIT
	trap 'trace_cleanup; exit 130' INT
	trap 'trace_cleanup; exit 143' TERM HUP
}

# bytes S: a size with an optional k, m or g suffix (powers of 1024)
bytes() {
	local s=${1,,} m=1
	case "$s" in
	*k) m=1024; s=${s%k} ;;
	*m) m=$((1024 * 1024)); s=${s%m} ;;
	*g) m=$((1024 * 1024 * 1024)); s=${s%g} ;;
	esac
	[[ "$s" =~ ^[0-9]+$ ]] || die "bad size '$1'"
	echo $((s * m))
}

# kv KEY LINE: KEY's value in a line of key=value pairs
kv() { local w; for w in $2; do [ "${w%%=*}" = "$1" ] && { echo "${w#*=}"; return; }; done; }

ms() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }'; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

# ---- replay ------------------------------------------------------------------

replay() {
	local t pre span n nb size rs think fio_n fio_b fio_ms fio_clat fio_err
	need fio "apt-get install fio"
	need python3 "apt-get install python3"
	trace_work
	for t in "$@"; do
		pre=${t%.iolog}
		{ [ -f "$pre.iolog" ] && [ -f "$pre.reads" ]; } || die "$pre.iolog and $pre.reads are needed"
		read -r span n nb size <<< "$($HELPER span "$pre.iolog" "$pre.reads")" || die "cannot read $pre.reads"
		[ "$size" -gt 0 ] || die "$pre.reads states no file size"
		fill "$WORK/replay.img" $(((size + 1048575) / 1048576)) || die "cannot lay out $WORK/replay.img"
		sync
		bg_wait fio --name=r --read_iolog="$pre.iolog" --replay_redirect="$WORK/replay.img" \
			--ioengine=psync --direct=1 --output-format=json --output="$WORK/replay.json" \
			> "$WORK/replay.err" 2>&1 || die "fio failed on $t: $(tail -3 "$WORK/replay.err") $(tail -3 "$WORK/replay.json")"
		read -r fio_n fio_b fio_ms fio_clat fio_err <<< "$($HELPER fio "$WORK/replay.json")"
		read -r rs think <<< "$(grep -v '^#' "$pre.reads" | awk '{ s += $4; t += $5; n++ } END { printf "%.0f %d", n ? s / n : 0, t }')"
		say "$(basename "$pre"): fio read $fio_n of $n reads, $(mib "$fio_b") of $(mib "$nb") MiB, err=$fio_err," \
			"in $fio_ms ms (schedule $(ms "$span") ms); mean completion latency $fio_clat us" \
			"(recorded service $rs us); waits about $(awk -v r="$fio_ms" -v n="$fio_n" -v c="$fio_clat" 'BEGIN { printf "%.0f", r - n * c / 1000 }') ms" \
			"(think times $(ms "$think") ms); file $(mib "$size") MiB on $(disk_of "$WORK")"
		[ -s "$WORK/replay.err" ] && sed 's/^/  fio: /' "$WORK/replay.err"
		rm -f "$WORK/replay.img"
	done
}

if [ "${1:-}" = --replay ]; then
	shift
	[ $# -gt 0 ] || die "usage: $0 --replay TRACE.iolog..."
	replay "$@"
	exit 0
fi

# ---- record ------------------------------------------------------------------

[ $# -gt 0 ] || die "usage: $0 CMD [ARG...]  (or --replay TRACE.iolog...)"
is_root || die "recording needs root (tracefs, drop_caches)"
need python3 "apt-get install python3"
REPS=${REPS:-3}
SIZE=$(bytes "${SIZE:-1g}")
RUNDIR=${RUNDIR:-$PWD}
BUF_KB=${BUF_KB:-65536}
OUT=${OUT:-$BENCH_DIR/traces/$(basename "$1")}
FILE=startup-$(basename "$OUT").img     # the file the iolog names
EXE=$(command -v "$1") || die "$1: not found"
EXE=$(readlink -f "$EXE")
case "$OUT" in /*) ;; *) OUT=$PWD/$OUT ;; esac
[ -d "$(dirname "$OUT")" ] || die "$(dirname "$OUT"): no such directory"
[ -d "$RUNDIR" ] || die "RUNDIR=$RUNDIR: no such directory"

# the disk: the whole disk under the file system of CMD's executable
if [ -z "${DEV:-}" ]; then
	mm=$(stat -Lc '%Hd:%Ld' "$EXE")
	[ -e "/sys/dev/block/$mm" ] || die "$EXE is on $mm, which is no block device (overlay, btrfs?): give DEV="
	DEV=/dev/$(basename "$(readlink -f "/sys/dev/block/$mm")")
fi
DEV=$(readlink -f "$DEV")
name=$(basename "$DEV")
sys=$(readlink -f "/sys/class/block/$name") || die "$DEV: not a block device"
[ -f "$sys/partition" ] && sys=$(dirname "$sys")
name=$(basename "$sys")
[ -d "$sys/dm" ] || [ -d "$sys/md" ] && die "$DEV is device-mapper or md: no requests to trace; give DEV= the disk below"
IFS=: read -r maj min < "$sys/dev"
KDEV=$(((maj << 20) | min))     # dev_t as the tracepoints hold it
rd=$(stat -Lc '%Hd:%Ld' "$RUNDIR")
[ "$rd" = "$(stat -Lc '%Hd:%Ld' "$EXE")" ] || note "note: $RUNDIR is on another file system than $EXE; only /dev/$name is traced"

# tracefs and the events
if ! [ -d "$TRACEFS/instances" ]; then
	mount -t tracefs nodev "$TRACEFS" 2>/dev/null && MOUNTED=1
	[ -d "$TRACEFS/instances" ] || die "no tracefs at $TRACEFS (a kernel with CONFIG_FTRACE and the block tracepoints is needed)"
fi
for e in block/block_bio_queue block/block_rq_issue block/block_rq_complete sched/sched_process_fork; do
	[ -d "$TRACEFS/events/$e" ] || die "the kernel has no tracepoint $e"
done

trace_work
INST=$TRACEFS/instances/ioqos-startup.$$
mkdir "$INST" || die "cannot make a tracefs instance"
echo "$BUF_KB" > "$INST/buffer_size_kb" || die "cannot size the trace buffer to $BUF_KB KiB a CPU"
echo mono > "$INST/trace_clock"
reads='rwbs ~ "*R*"'
echo "dev == $KDEV && $reads" > "$INST/events/block/block_bio_queue/filter"
echo "dev == $KDEV && $reads" > "$INST/events/block/block_rq_issue/filter"
echo "dev == $KDEV && $reads" > "$INST/events/block/block_rq_complete/filter"
for e in block/block_bio_queue block/block_rq_issue block/block_rq_complete sched/sched_process_fork; do
	echo 1 > "$INST/events/$e/enable" || die "cannot enable $e"
done

# what of the executable and its libraries a drop leaves in the cache
cached_after_drop() {
	local f files=() libs=()
	if ! have fincore; then
		say "cached after a drop: unknown (fincore missing: apt-get install util-linux-extra)"
		return 0
	fi
	for f in "$EXE" ${CHECK:-}; do
		[ -f "$f" ] || continue
		files+=("$(readlink -f "$f")")
		mapfile -t -O "${#libs[@]}" libs < <(ldd "$f" 2>/dev/null |
			sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p')
	done
	for f in "${libs[@]}"; do files+=("$(readlink -f "$f")"); done
	mapfile -t files < <(printf '%s\n' "${files[@]}" | sort -u)
	sync
	echo 3 > /proc/sys/vm/drop_caches
	fincore -nb -o RES,SIZE,FILE "${files[@]}" 2>/dev/null |
		awk '{ r += $1; s += $2; if ($1 > 0) l = l sprintf(" %s %.1f/%.1f MiB,", $3, $1 / 1048576, $2 / 1048576) }
		     END { printf "cached after a drop: %.1f of %.1f MiB of the executable, its libraries and CHECK;%s\n", r / 1048576, s / 1048576, l }' |
		sed 's/,$//'
}

# traced CMD...: the program, in a process whose pid the start marker names
traced() {
	echo "ioqos-trace start $BASHPID" > "$INST/trace_marker"
	cd "$RUNDIR" || exit 127
	exec "$@"
}

say "command: $*"
say "in: $RUNDIR; disk: /dev/$name ($maj:$min, $(sed -n 's/.*\[\(.*\)\].*/\1/p' "$sys/queue/scheduler" 2>/dev/null))"
machine
cached_after_drop
rows=()
declare -A LINE LOAD WHEN
for ((k = 1; k <= REPS; k++)); do
	LOAD[$k]=$(cut -d' ' -f1-3 /proc/loadavg)
	WHEN[$k]=$(date -u '+%Y-%m-%d %H:%M UTC')
	echo > "$INST/trace"
	sync
	echo 3 > /proc/sys/vm/drop_caches
	echo 1 > "$INST/tracing_on"
	bg_wait traced "$@" < /dev/null > /dev/null 2> "$WORK/stderr.$k"
	rc=$?
	echo "ioqos-trace end" > "$INST/trace_marker"
	sleep 0.5
	echo 0 > "$INST/tracing_on"
	cat "$INST/trace" > "$WORK/raw.$k"
	[ -n "${RAWDIR:-}" ] && cp "$WORK/raw.$k" "$RAWDIR/raw.$k"
	lostev=$(cat "$INST"/per_cpu/cpu*/stats | awk '/^(overrun|dropped events):/ { n += $NF } END { print n + 0 }')
	[ "$lostev" = 0 ] || die "the trace buffer lost $lostev events: raise BUF_KB ($BUF_KB)"
	[ "$rc" = 0 ] || note "run $k: $1 exited $rc: $(tail -2 "$WORK/stderr.$k")"
	line=$($HELPER convert "$WORK/raw.$k" "$SIZE" "$FILE" "$WORK/t.$k.iolog" "$WORK/t.$k.reads") ||
		die "run $k: the trace could not be read"
	LINE[$k]=$line
	rows+=("$(kv wall_us "$line") $k")
	say "run $k: load ${LOAD[$k]}; exit $rc; $(kv reads "$line") reads, $(mib "$(kv bytes "$line")") MiB," \
		"wall $(ms "$(kv wall_us "$line")") ms, think $(ms "$(kv think_us "$line")") ms," \
		"service $(ms "$(kv service_us "$line")") ms; others read $(kv other_reads "$line")" \
		"($(mib "$(kv other_bytes "$line")") MiB)"
done

# the run of median wall time
pick=$(printf '%s\n' "${rows[@]}" | sort -n | awk -v m=$(((REPS + 1) / 2)) 'NR == m { print $2 }')
line=${LINE[$pick]}
cp "$WORK/t.$pick.iolog" "$OUT.iolog"
cp "$WORK/t.$pick.reads" "$OUT.reads"
walls=$(printf '%s\n' "${rows[@]}" | sort -n | awk '{ printf "%s%.0f", (NR > 1 ? ", " : ""), $1 / 1000 }')
say ""
say "kept run $pick of $REPS (median wall time; walls $walls ms): $OUT.iolog, $OUT.reads"
say "  date:       ${WHEN[$pick]}; load ${LOAD[$pick]}"
say "  reads:      $(kv reads "$line") from $(kv pids "$line") task(s) ($(kv seq "$line") following the one before on the disk;" \
	"$(kv extents "$line") extents; at most $(kv maxdepth "$line") in flight, $(kv overlapped "$line") issued while another was;" \
	"$(kv requeued "$line") given back by the driver and issued again)"
say "  bytes:      $(kv bytes "$line") ($(mib "$(kv bytes "$line")") MiB)"
say "  wall:       $(ms "$(kv wall_us "$line")") ms (first read after $(ms "$(kv first_us "$line")") ms, last completion $(ms "$(kv tail_us "$line")") ms before the exit)"
say "  think:      $(ms "$(kv think_us "$line")") ms; service $(ms "$(kv service_us "$line")") ms; latency $(ms "$(kv lat_us "$line")") ms"
say "  schedule:   $(ms "$(kv sched_us "$line")") ms one read at a time"
say "  file:       $FILE, $SIZE bytes ($(mib "$(kv span "$line")") MiB used; gaps over $(kv cap "$line") bytes cut to it: $(kv capped "$line") of $(($(kv extents "$line") - 1)))"
say "  others:     $(kv other_reads "$line") reads, $(mib "$(kv other_bytes "$line")") MiB ($(kv others "$line"))"
[ "$(kv lost "$line")" = 0 ] || say "  lost:       $(kv lost "$line") reads issued and not completed before the trace stopped"
