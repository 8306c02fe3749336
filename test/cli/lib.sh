# Shared by the CLI tests: a scratch directory removed on exit, the binary
# under test, and small assertions.  Source it from a test script.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
IOQOS=${IOQOS:-$ROOT/build/ioqos-san}
JOBS=$ROOT/test/cli/jobs
GOLDEN=$ROOT/test/cli/golden
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ioqos-cli.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
# ASan's leak checker needs ptrace, which some containers forbid
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
fails=0
passes=0
skips=0

[ -x "$IOQOS" ] || { echo "no $IOQOS: build it first"; exit 1; }

ok() { echo "ok   $*"; passes=$((passes + 1)); }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
# skip_part NAME: REASON: a part that cannot run here, said and counted
# (test/run-tests.sh counts the skip lines of a test that passed), never ok
skip_part() { echo "skip $*"; skips=$((skips + 1)); }
# stat_field PID N: field N of /proc/PID/stat as proc(5) numbers them
# (N >= 3: the fields after the command's name, which may hold spaces),
# empty once PID is gone; read from /proc, so procps need not be there
stat_field() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f$(($2 - 2))
}
# children PID: the processes whose parent is PID (pgrep -P PID)
children() {
	for _st in /proc/[0-9]*/stat; do
		_p=${_st#/proc/} _p=${_p%/stat}
		[ "$(stat_field "$_p" 4)" = "$1" ] && echo "$_p"
	done
	return 0
}
# read_by PID: what PID's threads but its first (the psync engine's
# workers, which do its I/O) have read, in bytes; the first reads the job
# files, and the sanitizers' maps
read_by() {
	_n=0
	for _t in /proc/"$1"/task/*; do
		[ "${_t##*/}" = "$1" ] && continue
		_r=$(sed -n 's/^rchar: //p' "$_t/io" 2>/dev/null)
		_n=$((_n + ${_r:-0}))
	done
	echo "$_n"
}
# wait_read PID [BYTES]: until PID's workers have read BYTES (default
# 1 MiB), or PID is gone (then 1): a run so seen is under way, however
# late a loaded machine started it
wait_read() {
	until [ "$(read_by "$1")" -ge "${2:-1048576}" ]; do
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.05
	done
}
# find_fio: $FIO, the fio to compare with; without one, the comparisons
# with it are a part skipped, said once
find_fio() {
	FIO=$(command -v fio || true)
	[ -n "$FIO" ] || skip_part "the comparisons with fio: no fio here (apt-get install fio)"
}

# expect_fail NAME PATTERN CMD...: CMD exits non-zero with one line on
# stderr that matches PATTERN (grep -E), and nothing on stdout
expect_fail() {
	name=$1 pat=$2
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" = 0 ]; then
		bad "$name: exit 0"
	elif [ "$(wc -l <"$TMP/err")" != 1 ]; then
		bad "$name: stderr is not one line:"; cat "$TMP/err"
	elif ! grep -Eq -- "$pat" "$TMP/err"; then
		bad "$name: stderr does not match '$pat':"; cat "$TMP/err"
	elif [ -s "$TMP/out" ]; then
		bad "$name: wrote to stdout"
	else
		ok "$name"
	fi
}

# tree PID: PID and every process below it
tree() {
	echo "$1"
	for _c in $(children "$1"); do tree "$_c"; done
}
# fio_watched DIR ARGS...: $FIO --output-format=json ARGS in DIR (out.json,
# err); its exit status, or 254 when it had not ended in $FIO_WAIT s
# (default 90; the runs here take seconds): then the state of each of its
# processes and threads, their kernel stacks where readable, and gdb's
# backtraces (where gdb is installed) of its main process and of those
# running are printed, and the tree is killed
fio_watched() {
	(cd "$1" && shift && exec "$FIO" --output-format=json "$@" >out.json 2>err) &
	_fp=$!
	_t=0
	while kill -0 "$_fp" 2>/dev/null && [ "$_t" -lt $((${FIO_WAIT:-90} * 5)) ]; do
		sleep 0.2
		_t=$((_t + 1))
	done
	if ! kill -0 "$_fp" 2>/dev/null; then
		wait "$_fp"
		return
	fi
	_all=$(tree "$_fp")
	echo "fio (pid $_fp) has not ended in ${FIO_WAIT:-90} s; its processes:"
	for _p in $_all; do
		for _k in /proc/"$_p"/task/*; do
			echo "  $_p/${_k##*/} $(cat "$_k/comm" 2>/dev/null)" \
			     "state=$(stat_field "${_k##*/}" 3)" \
			     "wchan=$(cat "$_k/wchan" 2>/dev/null)" \
			     "utime=$(stat_field "${_k##*/}" 14) stime=$(stat_field "${_k##*/}" 15)"
			sed 's/^/      /' "$_k/stack" 2>/dev/null | head -12
		done
		# gdb for the first process (fio's main) and those running
		if command -v gdb >/dev/null &&
		   { [ "$_p" = "$_fp" ] || [ "$(stat_field "$_p" 3)" = R ]; }; then
			timeout 30 gdb -p "$_p" -batch -ex 'thread apply all bt 12' \
				</dev/null 2>&1 | grep -E '^(#|Thread)' | head -60
		fi
	done
	echo "  its directory: $(ls "$1" | tr '\n' ' ')"
	df -h "$1" | tail -1 | sed 's/^/  /'
	tail -5 "$1/err" | sed 's/^/  err: /'
	# shellcheck disable=SC2086
	kill -9 $_all 2>/dev/null
	wait "$_fp"
	return 254
}

# run_pair NAME ARGS...: `ioqos run` and fio ($FIO; none: ioqos alone)
# with the same ARGS and --output-format=json, each in a directory of its
# own ($TMP/q.NAME and $TMP/f.NAME, made if missing), and the caller's
# figs() of each output in its directory's figs.  0: both ran; 1: either
# failed (reported); 2: no fio, ioqos's run reported as accepted
run_pair() {
	rp_name=$1
	shift
	mkdir -p "$TMP/q.$rp_name" "$TMP/f.$rp_name"
	(cd "$TMP/q.$rp_name" && "$IOQOS" run --output-format=json "$@" >out.json 2>err)
	rp_rc=$?
	if [ "$rp_rc" != 0 ]; then
		bad "$rp_name: ioqos exit $rp_rc"; cat "$TMP/q.$rp_name/err"; return 1
	fi
	figs "$TMP/q.$rp_name/out.json" >"$TMP/q.$rp_name/figs"
	if [ -z "$FIO" ]; then
		ok "$rp_name: ioqos accepted it"
		skip_part "$rp_name: the comparison with fio: no fio here"
		return 2
	fi
	# fio is the peer compared with, not what is tested: one that hangs
	# (fio 3.33 has, on a loaded machine, where a thinktime_spin took
	# longer than its thinktime: see test/cli/sweep/12-think.fio) has
	# where it hung written to the log, and is run once more on fresh
	# files; a second hang fails the test
	fio_watched "$TMP/f.$rp_name" "$@"
	rp_rc=$?
	if [ "$rp_rc" = 254 ]; then
		echo "note $rp_name: fio hung (above); run again"
		rm -rf "$TMP/f.$rp_name" && mkdir -p "$TMP/f.$rp_name"
		fio_watched "$TMP/f.$rp_name" "$@"
		rp_rc=$?
	fi
	if [ "$rp_rc" != 0 ]; then
		bad "$rp_name: fio exit $rp_rc"; cat "$TMP/f.$rp_name/err"
		return 1
	fi
	figs "$TMP/f.$rp_name/out.json" >"$TMP/f.$rp_name/figs"
	return 0
}

finish() {
	echo "$passes passed, $fails failed, $skips skipped"
	if [ "$fails" != 0 ]; then
		echo "$fails check(s) failed"
		exit 1
	fi
	exit 0
}
