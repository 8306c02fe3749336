#!/bin/sh
# rate_min= and rate_iops_min=, as fio checks them: on the sim engine, a
# job paced at 1 MiB/s (256 IOPS of 4k) against a higher minimum ends after
# fio's 2 s settle period and one ratecycle, with fio's message and err=5;
# a minimum it meets lets it run its course.  fio itself, on its null
# engine, says the same of the same job.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }

rjob() {   # rjob FILE ENGINE OPTION...
	out=$1 eng=$2
	shift 2
	printf '[r]\nioengine=%s\nrw=randread\nbs=4k\nsize=1g\nruntime=10s\ntime_based\n' \
		"$eng" >"$out"
	for x in "$@"; do printf '%s\n' "$x" >>"$out"; done
}
job_of() {   # "error runtime_ms" of the job
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(j["error"], j["job_runtime"])' "$1" 2>/dev/null
}

# noted at the first completion after 2 s, checked at the first one 1000 ms
# later: 256 I/Os of 4096 bytes in 1000 ms
rjob "$TMP/a.fio" sim rate_iops=256 rate_min=2m
"$IOQOS" run "$TMP/a.fio" --output-format=json >"$TMP/a.json" 2>"$TMP/err"
rc=$?
if [ $rc = 1 ] && grep -qx "r: rate_min=2097152B/s not met, got 1048576B/s" "$TMP/err" &&
   grep -q "err=5 (func=check_min_rate" "$TMP/err" && [ "$(job_of "$TMP/a.json")" = "5 3000" ]; then
	ok "rate_min=2m against 1m: ends at 3 s with err=5"
else
	bad "rate_min=2m (exit $rc, $(job_of "$TMP/a.json"))"; cat "$TMP/err"
fi

rjob "$TMP/b.fio" sim rate=1m rate_iops_min=300 ratecycle=500
"$IOQOS" run "$TMP/b.fio" --output-format=json >"$TMP/b.json" 2>"$TMP/err"
rc=$?
# 500 ms: 128 I/Os, 256 IOPS
if [ $rc = 1 ] && grep -qx "r: rate_iops_min=300 not met, got 256 IOPS" "$TMP/err" &&
   [ "$(job_of "$TMP/b.json")" = "5 2500" ]; then
	ok "rate_iops_min=300 over ratecycle=500: ends at 2.5 s"
else
	bad "rate_iops_min=300 (exit $rc, $(job_of "$TMP/b.json"))"; cat "$TMP/err"
fi

# met: the job runs its 10 s
rjob "$TMP/c.fio" sim rate=1m "rate_min=1m,512k"
rjob "$TMP/c2.fio" sim rate=1m rate_iops_min=256
"$IOQOS" run "$TMP/c2.fio" --output-format=json >"$TMP/c2.json" 2>"$TMP/err" &&
	[ "$(job_of "$TMP/c2.json")" = "0 10000" ] && ok "rate_iops_min met: the whole runtime" ||
	{ bad "rate_iops_min met: $(job_of "$TMP/c2.json")"; cat "$TMP/err"; }
"$IOQOS" run "$TMP/c.fio" --output-format=json >"$TMP/c.json" 2>"$TMP/err" &&
	[ "$(job_of "$TMP/c.json")" = "0 10000" ] && ok "a minimum met: the whole runtime" ||
	{ bad "a minimum met: $(job_of "$TMP/c.json")"; cat "$TMP/err"; }

# fio says the same of the same job on its null engine (3 s of real time:
# what it got is its clock's, about 1 MiB/s, less where the machine is
# loaded, and under the minimum in any case)
if command -v fio >/dev/null; then
	rjob "$TMP/f.fio" null rate_iops=256 rate_min=2m
	fio "$TMP/f.fio" --output-format=json --output="$TMP/f.json" >/dev/null 2>"$TMP/ferr"
	frc=$?
	got=$(sed -n 's/^r: rate_min=2097152B\/s not met, got \([0-9]*\)B\/s.*/\1/p' "$TMP/ferr")
	if [ $frc = 1 ] && [ -n "$got" ] && [ "$got" -lt 2097152 ] &&
	   [ "$(job_of "$TMP/f.json" | cut -d' ' -f1)" = 5 ]; then
		ok "fio's own message and error agree"
	else
		bad "fio on the same job (exit $frc)"; cat "$TMP/ferr"
	fi
fi

# fio's refusals: a minimum above the rate, both kinds of minimum at once
rjob "$TMP/d.fio" sim rate=1m rate_min=2m,0
expect_fail "a minimum above rate=" "minimum read rate exceeds its rate=" "$IOQOS" check "$TMP/d.fio"
rjob "$TMP/e.fio" sim rate_min=1m rate_iops_min=10
expect_fail "rate_min with rate_iops_min" "mutually exclusive" "$IOQOS" check "$TMP/e.fio"
finish
