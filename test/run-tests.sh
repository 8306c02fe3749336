#!/bin/sh
# Run test programs, each with a timeout; a program exits 0 (pass),
# 77 (skip) or anything else (fail).  Ends with "N passed, N failed, N
# skipped", and, when a test that passed skipped parts of itself (lines
# "skip PART: REASON" in its output: a tool this machine lacks), how many,
# each named under its test: a part that did not run is never counted ok.
#
#   run-tests.sh [-j N] [-b "TEST..."] TEST...
#
# The tests named with -b (by path or name) may run beside each other:
# they read no clock (the library's tests in virtual time, the simulator's
# runs) or build on their own.  They run first, N at a time, and are
# reported in the order given; the others then run one at a time, alone
# on the machine, as each measures or waits on the real clock.
TIMEOUT=${TEST_TIMEOUT:-300}
LOGDIR=${TEST_LOGDIR:-build/test-logs}

# one test: its output in its log, "STATUS SECONDS" in its .rc
if [ "$1" = --one ]; then
	name=$(basename "$2")
	start=$(date +%s)
	timeout "$TIMEOUT" "$2" >"$LOGDIR/$name.log" 2>&1
	echo "$? $(( $(date +%s) - start ))" >"$LOGDIR/$name.rc"
	exit 0
fi

jobs=1 beside=""
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs=$2; shift 2 ;;
	-b) beside=$2; shift 2 ;;
	*)  break ;;
	esac
done
mkdir -p "$LOGDIR"
export TEST_TIMEOUT="$TIMEOUT" TEST_LOGDIR="$LOGDIR"
pass=0 fail=0 skip=0 parts=0 failed=""

is_beside() {
	for b in $beside; do
		[ "$(basename "$b")" = "$(basename "$1")" ] && return 0
	done
	return 1
}

report() {
	name=$(basename "$1")
	log="$LOGDIR/$name.log"
	rc=1 secs=0
	[ -f "$LOGDIR/$name.rc" ] && read -r rc secs <"$LOGDIR/$name.rc"
	case $rc in
	0)  pass=$((pass + 1))
	    n=$(grep -c '^skip ' "$log")
	    if [ "$n" = 0 ]; then
		    echo "ok   $name (${secs}s)"
	    else
		    parts=$((parts + n))
		    echo "ok   $name (${secs}s), $n part(s) skipped:"
		    grep '^skip ' "$log" | sed 's/^/    /'
	    fi ;;
	77) skip=$((skip + 1)); echo "skip $name: $(tail -n 1 "$log")" ;;
	124) fail=$((fail + 1)); failed="$failed $name"; echo "FAIL $name: timed out after ${TIMEOUT}s" ;;
	*)  fail=$((fail + 1)); failed="$failed $name"
	    echo "FAIL $name (exit $rc):"; tail -n 20 "$log" | sed 's/^/    /' ;;
	esac
}

together="" alone=""
for t in "$@"; do
	rm -f "$LOGDIR/$(basename "$t").rc"
	if is_beside "$t"; then together="$together $t"; else alone="$alone $t"; fi
done
if [ -n "$together" ]; then
	# shellcheck disable=SC2086
	printf '%s\n' $together | xargs -P "$jobs" -n 1 sh "$0" --one
	for t in $together; do
		report "$t"
	done
fi
for t in $alone; do
	sh "$0" --one "$t"
	report "$t"
done
[ -n "$failed" ] && echo "failed:$failed"
if [ "$parts" = 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed, $skip skipped; $parts part(s) of passing tests skipped"
fi
[ "$fail" = 0 ]
