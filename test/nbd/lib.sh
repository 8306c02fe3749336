# Shared by the filter tests: a scratch directory, nbdkit servers and clients
# started in the background and stopped by PID on any exit, and small
# assertions.  Source it from a test script.  Only unix sockets inside the
# scratch directory are used.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FILTER=${IOQOS_FILTER:-$ROOT/build/nbdkit-ioqos-filter.so}
PIDS=""
fails=0
# under valgrind everything is slower: NBD_TIME_SCALE multiplies the waits
SCALE=${NBD_TIME_SCALE:-1}

skip() { echo "skip: $*"; exit 77; }
# skip_part NAME: REASON: a part that cannot run here, said (and counted by
# test/run-tests.sh), never ok
skip_part() { echo "skip $*"; }
for tool in nbdkit nbdinfo nbdcopy qemu-img qemu-io fio; do
	command -v "$tool" >/dev/null 2>&1 ||
		skip "$tool is not installed (sh scripts/deps.sh nbdkit)"
done
[ -f "$FILTER" ] || skip "no $FILTER (make nbdkit-filter)"

# the scratch directory in memory where there is one: the filter's stats
# and config files live there, and a disk that stalls for tens of seconds
# (a VM's, under a busy host) would hold up what the tests wait on, not
# what they test
base=${TMPDIR:-}
if [ -z "$base" ]; then
	base=/tmp
	[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
fi
TMP=$(mktemp -d "$base/ioqos-nbd.XXXXXX") || exit 1
cd "$TMP" || exit 1     # anything a client leaves behind goes with it

cleanup() {
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
	for p in $PIDS; do
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap 'cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
check() { # check NAME CMD...: passes when CMD exits 0
	ck_name=$1; shift
	if "$@"; then ok "$ck_name"; else bad "$ck_name"; fi
}

# start NAME ARGS...: nbdkit in the foreground of a background job, on
# $TMP/NAME.sock, log in $TMP/NAME.log; sets $PID to its PID
start() {
	name=$1; shift
	# NBDKIT_WRAP: a command to run nbdkit under (valgrind ...)
	${NBDKIT_WRAP:-} nbdkit -f -U "$TMP/$name.sock" "$@" >"$TMP/$name.log" 2>&1 &
	PID=$!
	PIDS="$PIDS $PID"
	eval "PID_$name=$PID"
	i=0
	while [ ! -S "$TMP/$name.sock" ]; do
		if ! kill -0 "$PID" 2>/dev/null || [ $i -ge 300 ]; then
			echo "nbdkit $name did not start:"; cat "$TMP/$name.log"
			return 1
		fi
		sleep 0.1; i=$((i + 1))
	done
}

# stop NAME [SECONDS]: SIGTERM and wait for the exit (default 10 s); 0 if it
# ended in time with status 0
stop() {
	name=$1; secs=$(( ${2:-10} * SCALE ))
	eval "p=\$PID_$name"
	kill -TERM "$p" 2>/dev/null
	i=0
	while kill -0 "$p" 2>/dev/null; do
		if [ $i -ge $((secs * 10)) ]; then
			echo "nbdkit $name still running after ${secs}s"
			return 1
		fi
		sleep 0.1; i=$((i + 1))
	done
	PIDS=$(echo "$PIDS" | tr ' ' '\n' | grep -vx "$p" | tr '\n' ' ')
	wait "$p"
}

# uri NAME EXPORT: the NBD URI of an export of server NAME
uri() { echo "nbd+unix:///$2?socket=$TMP/$1.sock"; }

# stat_field FILE GROUP KEY: one counter of the stats file ("#" = header)
stat_field() {
	awk -v g="$2" -v k="$3" '
		($1 == g) || (g == "#" && $1 == "#") {
			for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] }
		}' "$1"
}

# wait_for SECONDS CMD...: retry CMD every 0.1 s until it succeeds
wait_for() {
	secs=$(( $1 * SCALE )); shift
	i=0
	until "$@"; do
		[ $i -ge $((secs * 10)) ] && return 1
		sleep 0.1; i=$((i + 1))
	done
}

# slow_client NAME IODEPTH OUT [BS]: start fio (one process, so that
# killing it drops the connection) keeping IODEPTH random reads of BS
# (default 64k) in flight on export NAME of server s, in the background;
# its PID goes to FIO and PIDS
slow_client() {
	cat >"$TMP/$1.fio" <<E
[$1]
ioengine=nbd
uri=$(uri s "$1")
rw=randread
bs=${4:-64k}
iodepth=$2
runtime=60
time_based
thread=1
E
	fio --output="$3" "$TMP/$1.fio" >/dev/null 2>&1 &
	FIO=$!
	PIDS="$PIDS $FIO"
}

# queued_at_least GROUP N: server s's stats show N or more requests queued
queued_at_least() { [ "$(stat_field "$TMP/s.stats" "$1" queued)" -ge "$2" ] 2>/dev/null; }

# stats_idle [NAME]: server NAME (default s) has no connection and nothing
# waiting, queued or out.  A client that has exited may still be closing
# in the server, and the last stats, written as nbdkit stops, then count
# it: wait for this before stopping a server whose last stats are checked
stats_idle() {
	grep -q '^# ioqos connections=0 waiting=0 queued=0 inflight=0' "$TMP/${1:-s}.stats"
}

finish() {
	if [ "$fails" != 0 ]; then
		echo "$fails check(s) failed"
		exit 1
	fi
	exit 0
}
