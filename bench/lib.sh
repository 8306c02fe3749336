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

# bench_init: make the work directory and arm the cleanup
bench_init() {
	local base=${BENCH_TMPDIR:-/var/tmp}
	WORK=$(mktemp -d "$base/ioqos-bench.XXXXXX") || die "cannot make a work directory in $base"
	trap bench_cleanup EXIT
	trap 'bench_cleanup; exit 130' INT
	trap 'bench_cleanup; exit 143' TERM HUP
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
