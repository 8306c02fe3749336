#!/bin/sh
# latency_target= on the sim engine, in virtual time: the search settles
# on a depth whose last cycle (the one reported: job_runtime is one
# window) meets the target at the percentile, where twice that depth,
# run without a target, does not; latency_run=1 searches for the whole
# runtime; a target no I/O can meet ends the job at depth 1 with fio's
# ETIMEDOUT and message.  The JSON members are in fio's units (target in
# ns, window in us; fio's own run beside).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
cd "$TMP" || exit 1

ljob() {   # ljob FILE OPTION...
	out=$1
	shift
	printf '[l]\nioengine=sim\nrw=randread\nbs=4k\nsize=1g\nruntime=30s\ntime_based\n' >"$out"
	for x in "$@"; do printf '%s\n' "$x" >>"$out"; done
}
fig() {   # fig JSON: "job_runtime latency_depth p99-of-lat-in-us latency_target latency_window"
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
p = j["read"]["lat_ns"]["percentile"]["99.000000"] // 1000
print(j["job_runtime"], j["latency_depth"], p, j["latency_target"], j["latency_window"])' "$1"
}

ljob a.fio iodepth=32 lat_percentiles=1 latency_target=200us latency_window=500ms latency_percentile=99
"$IOQOS" run a.fio --device ssd --output-format=json >a.json 2>err || bad "run: $(cat err)"
set -- $(fig a.json)
if [ "$1" = 500 ] && [ "$2" -ge 2 ] && [ "$2" -lt 32 ] && [ "$3" -le 200 ] &&
   [ "$4" = 200000 ] && [ "$5" = 500000 ]; then
	ok "settled at depth $2: p99 ${3}us within 200us, the last cycle reported"
else
	bad "search: $*"
fi
ljob b.fio iodepth=$(($2 * 2)) lat_percentiles=1
"$IOQOS" run b.fio --device ssd --output-format=json >b.json 2>err || bad "run: $(cat err)"
set -- $(fig b.json)
[ "$3" -gt 200 ] && ok "twice the depth misses the target (p99 ${3}us)" || bad "depth x2: $*"

ljob c.fio iodepth=32 lat_percentiles=1 latency_target=200us latency_window=500ms latency_percentile=99 latency_run=1
"$IOQOS" run c.fio --device ssd --output-format=json >c.json 2>err || bad "run: $(cat err)"
set -- $(fig c.json)
[ "$1" = 30000 ] && ok "latency_run=1: the whole runtime" || bad "latency_run: $*"

ljob d.fio iodepth=8 latency_target=1us latency_window=100ms
"$IOQOS" run d.fio --device ssd --output-format=json >d.json 2>err
rc=$?
if [ $rc = 1 ] && grep -q "latency of [0-9]* nsec exceeds specified max (1000 nsec)" err &&
   [ "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["jobs"][0]["error"])' d.json)" = 110 ]; then
	ok "an impossible target: ETIMEDOUT at depth 1"
else
	bad "impossible target: exit $rc"; cat err
fi

if command -v fio >/dev/null; then
	printf '[l]\nioengine=null\nrw=randread\nbs=4k\nsize=1g\niodepth=4\nruntime=1s\ntime_based\nlatency_target=1ms\nlatency_window=100ms\nlatency_percentile=99\n' >f.fio
	fio f.fio --output-format=json >f.json 2>/dev/null
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
assert (j["latency_target"], j["latency_window"], j["latency_percentile"]) == (1000000, 100000, 99.0), j' f.json &&
		ok "fio's units for the members" || bad "fio's members differ"
fi
expect_fail "a bad percentile" "latency_percentile=0: expected a percentage" \
	sh -c 'printf "[x]\nsize=1m\nlatency_percentile=0\n" >x.fio && "$0" check x.fio' "$IOQOS"
finish
