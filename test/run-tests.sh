#!/bin/sh
# Run test programs, each with a timeout; a program exits 0 (pass),
# 77 (skip) or anything else (fail).  Ends with "N passed, N failed, N
# skipped", and, when a test that passed skipped parts of itself (lines
# "skip PART: REASON" in its output: a tool this machine lacks), how many,
# each named under its test: a part that did not run is never counted ok.
TIMEOUT=${TEST_TIMEOUT:-300}
LOGDIR=${TEST_LOGDIR:-build/test-logs}
mkdir -p "$LOGDIR"
pass=0 fail=0 skip=0 parts=0 failed=""
for t in "$@"; do
	name=$(basename "$t")
	start=$(date +%s)
	log="$LOGDIR/$name.log"
	timeout "$TIMEOUT" "$t" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
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
done
[ -n "$failed" ] && echo "failed:$failed"
if [ "$parts" = 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed, $skip skipped; $parts part(s) of passing tests skipped"
fi
[ "$fail" = 0 ]
