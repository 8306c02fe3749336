# bench/lib.sh: what the benchmark scripts share (bash; source it).
#
# Every script measures ioqos and its peers in the same run, back to back,
# and prints Markdown tables that go into docs/BENCHMARKS.md as they are.
# A part that needs something this machine lacks (root, a cgroup
# controller, loop devices, BFQ, a program) prints "SKIP: why" and the
# script goes on with the rest.  Everything a script makes -- its work
# directory, loop devices, cgroups, servers -- is undone on exit, also on
# Ctrl-C or kill.
#
# Environment:
#   QUICK=1        a few seconds per case (smoke test); numbers are noisy
#   REPS=N         repetitions where a script takes medians
#   IOQOS=path     the ioqos binary (default: build/ioqos of this tree)
#   BENCH_TMPDIR=d where work files go (default /var/tmp: a real disk)

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$BENCH_DIR/.." && pwd)
IOQOS=${IOQOS:-$TOP/build/ioqos}
QUICK=${QUICK:-0}
PY="python3 $BENCH_DIR/benchlib.py"
BLKIO=/sys/fs/cgroup/blkio

_pids=()        # processes to stop
_loops=()       # loop devices to detach
_cgroups=()     # cgroup directories to remove (removed deepest first)
_scheds=()      # "dev:old-scheduler" to restore
WORK=

say()  { printf '%s\n' "$*"; }
note() { printf '%s\n' "$*" >&2; }
skip() { say ""; say "SKIP: $*"; say ""; }
die()  { note "error: $*"; exit 1; }

# quick Q FULL: the duration (or count) for this mode
pick() { if [ "$QUICK" = 1 ]; then echo "$1"; else echo "$2"; fi; }

bench_cleanup() {
	local i
	trap - EXIT INT TERM HUP
	for ((i = ${#_pids[@]} - 1; i >= 0; i--)); do
		kill "${_pids[i]}" 2>/dev/null
		wait "${_pids[i]}" 2>/dev/null
	done
	for ((i = ${#_cgroups[@]} - 1; i >= 0; i--)); do
		local cg=${_cgroups[i]}
		[ -d "$cg" ] || continue
		# anything left inside goes back to the root group first
		if [ -f "$cg/cgroup.procs" ]; then
			while read -r p; do echo "$p" > "$BLKIO/cgroup.procs" 2>/dev/null; done < "$cg/cgroup.procs"
		fi
		rmdir "$cg" 2>/dev/null
	done
	for s in "${_scheds[@]}"; do
		echo "${s#*:}" > "/sys/block/${s%%:*}/queue/scheduler" 2>/dev/null
	done
	for l in "${_loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	[ -n "$WORK" ] && [ -d "$WORK" ] && rm -rf "$WORK"
}

# bench_work: make the work directory and arm the cleanup (a script that
# runs fio alone, without ioqos)
bench_work() {
	local base=${BENCH_TMPDIR:-/var/tmp}
	WORK=$(mktemp -d "$base/ioqos-bench.XXXXXX") || die "cannot make a work directory in $base"
	trap bench_cleanup EXIT
	trap 'bench_cleanup; exit 130' INT
	trap 'bench_cleanup; exit 143' TERM HUP
}

# bench_init: the same, and the ioqos binary must be there
bench_init() {
	bench_work
	[ -x "$IOQOS" ] || die "$IOQOS missing: run 'make cli' first"
}

track_pid()    { _pids+=("$1"); }
untrack_pid()  { local k; for k in "${!_pids[@]}"; do [ "${_pids[k]}" = "$1" ] && unset '_pids[k]'; done; _pids=("${_pids[@]}"); }

have()      { command -v "$1" >/dev/null 2>&1; }
is_root()   { [ "$(id -u)" = 0 ]; }
have_blkio() { [ -f "$BLKIO/blkio.throttle.read_bps_device" ] && [ -w "$BLKIO" ]; }
have_loop() { is_root && [ -e /dev/loop-control ] && have losetup; }

# machine: the line that goes above every table
machine() {
	local cpu kern
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
	kern=$(uname -r)
	say "machine: ${cpu:-unknown CPU}, $(nproc) CPUs, Linux $kern; $(date -u '+%Y-%m-%d %H:%M UTC')"
}

# disk_of PATH: the block device a path lives on, and its scheduler
disk_of() {
	local dev
	dev=$(df --output=source "$1" | tail -1)
	say "$dev"
}

# fill FILE MIB: a file of real data (sparse files read as holes, which
# NBD servers answer without reading and so without throttling)
fill() {
	dd if=/dev/urandom of="$1" bs=1M count="$2" oflag=direct status=none 2>/dev/null ||
		dd if=/dev/urandom of="$1" bs=1M count="$2" status=none
}

# randread_job FILE MIB SECONDS ENGINE EXTRA-GLOBAL-LINES SECTIONS: a fio job
# of 4 KiB random reads, O_DIRECT, time-based, on FILE's first MIB MiB
randread_job() {
	cat <<JOB
[global]
ioengine=$4
direct=1
rw=randread
bs=4k
filename=$1
size=${2}m
runtime=$3
time_based
$5
$6
JOB
}

# make_loop FILE: attach FILE with direct I/O; sets LOOP to the device
# (not to be called in $(...): the cleanup list lives in this shell)
make_loop() {
	LOOP=$(losetup --find --show --direct-io=on "$1") || return 1
	_loops+=("$LOOP")
}

# set_sched DEV SCHED: switch a device's scheduler, restored on exit
# loop_setup MB: fio and a loop device are needed; lay out a file of MB MiB
# of random data on a real disk and attach it (DEV, MM = its major:minor,
# BACK = the disk under the file); exits with a SKIP when it cannot
loop_setup() {
	have fio || { skip "everything: fio is not installed (apt-get install fio)"; exit 0; }
	if ! have_loop; then
		skip "everything: needs root and loop devices (/dev/loop-control, losetup)"
		exit 0
	fi
	fill "$WORK/disk.img" "$1" || die "cannot lay out the loop file"
	make_loop "$WORK/disk.img" || die "cannot attach a loop device"
	DEV=$LOOP
	MM=$(majmin "$DEV")
	BACK=$(disk_of "$WORK/disk.img")
}

set_sched() {
	local d=${1#/dev/} old
	old=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$d/queue/scheduler")
	case " ${_scheds[*]} " in *" $d:"*) ;; *) _scheds+=("$d:$old") ;; esac
	echo "$2" > "/sys/block/$d/queue/scheduler"
}

# majmin DEV
majmin() { lsblk -dno MAJ:MIN "$1" | tr -d ' '; }

# cg_make REL: a cgroup v1 blkio group (parents first), removed on exit;
# sets CG to its directory (not to be called in $(...), as make_loop)
cg_make() {
	local rel=$1 acc="" p parts
	IFS=/ read -ra parts <<< "$rel"
	for p in "${parts[@]}"; do
		[ -n "$p" ] || continue
		acc="$acc/$p"
		if [ ! -d "$BLKIO$acc" ]; then
			mkdir "$BLKIO$acc" || return 1
			_cgroups+=("$BLKIO$acc")
		fi
	done
	CG=$BLKIO$acc
}

# in_cg CGDIR CMD...: run CMD inside a cgroup v1 blkio group
in_cg() {
	local cg=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" "$@"
}

# ioqos_run ARGS...: the CLI, with its exit status checked
ioqos_run() { "$IOQOS" run "$@"; }

# ints X...: numbers rounded, space-separated
ints() { local x out=""; for x in "$@"; do out="$out $(printf '%.0f' "$x")"; done; echo "${out# }"; }
# pct A B: 100*A/B with no decimals
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "-"; else printf "%.0f%%\n", 100 * a / b }'; }
# err A L: (A-L)/L as a signed percentage with two decimals
err() { awk -v a="$1" -v l="$2" 'BEGIN { if (l == 0) print "-"; else printf "%+.2f%%\n", 100 * (a - l) / l }'; }

# need TOOL WHAT: stop, naming the tool, where TOOL is not installed
need() { have "$1" || die "$1 is not installed ($2)"; }

# now_ms: the wall clock in ms since the epoch
now_ms() { date +%s%3N; }

# bg_wait CMD...: CMD's exit status; CMD runs in the background and is
# tracked, so that the cleanup stops it when the script is interrupted
# (bash runs a trap only once a command in the foreground has ended)
bg_wait() {
	local p rc
	"$@" &
	p=$!
	track_pid "$p"
	wait "$p"
	rc=$?
	untrack_pid "$p"
	return $rc
}

# ---- a neighbour: an uncontrolled fio in bursts beside a run ---------------
#
# NB_FIO (an array: fio and its options, time_based, without --runtime)
# runs NB_ON_MS out of every NB_ON_MS + NB_OFF_MS from NB_AT_MS after a
# start time to the end of a run: 1-3 s, 4-6 s, 7-9 s... by default.  Each
# burst is a fio of its own, launched NB_LEAD_MS early, whose job waits in
# exec_prerun= (run after the job's setup, before its clock starts) until
# the burst is due: fio takes some 0.3 s from its launch to its first I/O,
# more on a busy machine and never twice alike, while the wait ends within
# a few ms of the time.  So the bursts keep to the schedule, and runs that
# start the schedule alike get the same bursts.  fio's own thinktime= and
# thinktime_iotime= would do it in one process, but fio before 3.34 makes
# the first burst thinktime longer than the others, and its start-up would
# still shift them all.  Each burst logs every I/O's completion (unix ms),
# from which nb_spans reads when it really ran.
NB_AT_MS=${NB_AT_MS:-1000}
NB_ON_MS=${NB_ON_MS:-2000}
NB_OFF_MS=${NB_OFF_MS:-1000}
NB_LEAD_MS=${NB_LEAD_MS:-}
NB_PID=

# nb_lead: set NB_LEAD_MS from two short runs of NB_FIO (the first loads
# fio and the file's metadata): twice the time from the launch to the
# first completion, at least 1 s; and write the wait for exec_prerun=
nb_lead() {
	local t0 first k
	cat > "$WORK/nbgate" <<'GATE'
#!/bin/sh
# nbgate MS: sleep until the clock reads MS (unix ms)
d=$(($1 - $(date +%s%3N)))
[ "$d" -gt 0 ] && exec sleep "$((d / 1000)).$(printf %03d $((d % 1000)))"
exit 0
GATE
	[ -n "$NB_LEAD_MS" ] && return 0
	for k in 1 2; do
		rm -f "$WORK"/nblead_bw.*.log
		t0=$(now_ms)
		bg_wait "${NB_FIO[@]}" --runtime=300ms --write_bw_log="$WORK/nblead" --log_unix_epoch=1 \
			--output-format=terse --output="$WORK/nblead.out" || die "the neighbour's fio failed: $(tail -3 "$WORK/nblead.out")"
		first=$(head -1 "$WORK/nblead_bw.1.log" | cut -d, -f1)
	done
	rm -f "$WORK"/nblead_bw.*.log "$WORK/nblead.out"
	NB_LEAD_MS=$((2 * (first - t0)))
	[ "$NB_LEAD_MS" -ge 1000 ] || NB_LEAD_MS=1000
}

# nb_start T0_MS SECONDS PREFIX: the bursts of a run that began (or
# begins) at T0_MS and lasts SECONDS, in the background (NB_PID); burst K
# leaves PREFIX.K.json (fio's report) and PREFIX.K_bw.1.log (its I/Os)
# (not to be called in $(...): the cleanup list lives in this shell)
nb_start() {
	nb_bursts "$@" &
	NB_PID=$!
	track_pid "$NB_PID"
}

# nb_wait: until the last burst has ended
nb_wait() {
	wait "$NB_PID"
	untrack_pid "$NB_PID"
	NB_PID=
}

# nb_bursts T0_MS SECONDS PREFIX: the schedule itself, in a subshell whose
# directory is the work directory (exec_prerun= leaves its output there);
# on TERM it stops what it waits for
nb_bursts() {
	local t0=$1 end=$(($2 * 1000)) pre=$3 k at on p ps=()
	trap 'kill "${ps[@]}" 2>/dev/null; wait; exit 143' TERM
	cd "$WORK" || exit 1
	for ((k = 0; ; k++)); do
		at=$((NB_AT_MS + k * (NB_ON_MS + NB_OFF_MS)))
		on=$((end - at < NB_ON_MS ? end - at : NB_ON_MS))
		[ "$on" -ge 100 ] || break
		sleep "$(awk -v d=$((t0 + at - NB_LEAD_MS - $(now_ms))) 'BEGIN { printf "%.3f", (d > 0 ? d / 1000 : 0) }')" &
		p=$!
		ps+=("$p")
		wait "$p"
		"${NB_FIO[@]}" --runtime="${on}ms" --exec_prerun="sh $WORK/nbgate $((t0 + at))" \
			--write_bw_log="$pre.$k" --log_unix_epoch=1 --output-format=json --output="$pre.$k.json" &
		ps+=("$!")
	done
	wait
}

# nb_spans ORIGIN_MS PREFIX: when the bursts of PREFIX ran, in s from
# ORIGIN_MS ("1.01-3.01,4.01-6.00"); their per-I/O logs are removed
nb_spans() {
	local logs=("$2".*_bw.1.log)
	[ -f "${logs[0]}" ] || { echo -; return 0; }
	$PY spans "$1" "${logs[@]}" || return 1
	rm -f "${logs[@]}"
}
