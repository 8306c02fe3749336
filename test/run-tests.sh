#!/bin/sh
# Run test programs, each with a timeout; a program exits 0 (pass),
# 77 (skip) or anything else (fail).  Ends with the slowest ten tests and
# the line "N passed, N failed, N skipped", and, when a test that passed
# skipped parts of itself (lines "skip PART: REASON" in its output: a tool
# this machine lacks), how many, each named under its test: a part that
# did not run is never counted ok.
#
#   run-tests.sh [-j N] [-f "TEST..."] [-a "TEST..."] TEST...
#
# The tests run N at a time, reported in the order given as each is done:
# a test shares the machine with others and the load they make, so what it
# measures against the real clock must not depend on getting the CPU on
# time.  Those named with -f (by path or name), the longest, start first,
# so that the last to end is not one of them.  Those named with -a measure
# what the load of others would change; they run afterwards, one at a
# time, each alone.
TIMEOUT=${TEST_TIMEOUT:-300}
LOGDIR=${TEST_LOGDIR:-build/test-logs}

# the clock in tenths of a second
tenths() { echo $(( $(date +%s%N) / 100000000 )); }

# one test: its output in its log, "STATUS TENTHS" in its .rc
if [ "$1" = --one ]; then
	name=$(basename "$2")
	start=$(tenths)
	timeout "$TIMEOUT" "$2" >"$LOGDIR/$name.log" 2>&1
	echo "$? $(( $(tenths) - start ))" >"$LOGDIR/$name.rc.tmp"
	mv "$LOGDIR/$name.rc.tmp" "$LOGDIR/$name.rc"
	exit 0
fi

jobs=1 alone="" first=""
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs=$2; shift 2 ;;
	-f) first=$2; shift 2 ;;
	-a) alone=$2; shift 2 ;;
	*)  break ;;
	esac
done
mkdir -p "$LOGDIR"
export TEST_TIMEOUT="$TIMEOUT" TEST_LOGDIR="$LOGDIR"

# named LIST TEST: TEST is one of LIST, by path or name
named() {
	for a in $1; do
		[ "$(basename "$a")" = "$(basename "$2")" ] && return 0
	done
	return 1
}

# report TEST: its line (and its skipped parts or the end of its log), and
# "STATUS PARTS TENTHS NAME" in the results
report() {
	name=$(basename "$1")
	log="$LOGDIR/$name.log"
	rc=1 t=0 n=0
	[ -f "$LOGDIR/$name.rc" ] && read -r rc t <"$LOGDIR/$name.rc"
	secs=$((t / 10)).$((t % 10))
	case $rc in
	0)  n=$(grep -c '^skip ' "$log")
	    if [ "$n" = 0 ]; then
		    echo "ok   $name (${secs}s)"
	    else
		    echo "ok   $name (${secs}s), $n part(s) skipped:"
		    grep '^skip ' "$log" | sed 's/^/    /'
	    fi
	    st=pass ;;
	77) echo "skip $name: $(tail -n 1 "$log")"; st=skip ;;
	124) echo "FAIL $name: timed out after ${TIMEOUT}s"; st=fail ;;
	*)  echo "FAIL $name (exit $rc):"; tail -n 20 "$log" | sed 's/^/    /'; st=fail ;;
	esac
	echo "$st $n $t $name" >>"$LOGDIR/results"
}

shared="" single="" early="" late=""
for t in "$@"; do
	rm -f "$LOGDIR/$(basename "$t").rc"
	if named "$alone" "$t"; then single="$single $t"; else shared="$shared $t"; fi
done
# the pool's order: those of -f in its order, then the rest
for f in $first; do
	for t in $shared; do
		[ "$(basename "$f")" = "$(basename "$t")" ] && early="$early $t"
	done
done
for t in $shared; do
	named "$early" "$t" || late="$late $t"
done
: >"$LOGDIR/results"
rm -f "$LOGDIR/pool.done"
if [ -n "$shared" ]; then
	# each reported in turn once it is done (or the pool ended without
	# it), while the pool runs in the foreground, where ^C stops it from
	# starting more (each test is in timeout(1)'s process group of its own)
	(
		for t in $shared; do
			while [ ! -f "$LOGDIR/$(basename "$t").rc" ] &&
			      [ ! -f "$LOGDIR/pool.done" ] && kill -0 $$ 2>/dev/null; do
				sleep 0.2
			done
			report "$t"
		done
	) &
	reporter=$!
	# shellcheck disable=SC2086
	printf '%s\n' $early $late | xargs -P "$jobs" -n 1 sh "$0" --one
	: >"$LOGDIR/pool.done"
	wait "$reporter"
fi
for t in $single; do
	sh "$0" --one "$t"
	report "$t"
done
echo "slowest:"
sort -k3,3rn "$LOGDIR/results" | head -n 10 | while read -r st n t name; do
	printf '  %5s s  %s\n' "$((t / 10)).$((t % 10))" "$name"
done
pass=$(grep -c '^pass ' "$LOGDIR/results")
fail=$(grep -c '^fail ' "$LOGDIR/results")
skip=$(grep -c '^skip ' "$LOGDIR/results")
parts=$(awk '{ n += $2 } END { print n + 0 }' "$LOGDIR/results")
[ "$fail" = 0 ] || echo "failed:$(awk '$1 == "fail" { printf " %s", $4 }' "$LOGDIR/results")"
if [ "$parts" = 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed, $skip skipped; $parts part(s) of passing tests skipped"
fi
[ "$fail" = 0 ]
