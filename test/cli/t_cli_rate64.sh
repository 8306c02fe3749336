#!/bin/sh
# rate=, rate_min= and rate_iops= are unsigned 64-bit, as fio's: values
# above 2 GiB/s are taken (fio 3.33 takes rate=3g, and 9223372036854775807
# or 8191p, its largest), and the
# pacing holds them: in virtual time on a device that does 3.7 GB/s,
# rate=3g moves its bytes at 3 GiB/s to within 0.01% (the 2^-32 ns
# fraction of each 1271.57 ns gap is carried: whole nanoseconds would
# be 0.045% fast), and a rate above what the device or the null engine
# does paces nothing and neither stalls nor hangs (--stop-after guards).
# blockalign= stays bounded by the largest block it can align, and says
# so; a rate past 2^64 - 1 is refused, and so is "15e" (fio has no e
# suffix and takes it as 15 B/s).  On a mixed job the rates, not the mix,
# set each direction's share, as fio's rate_ddir(): rate_iops=15,5 for 2 s
# gives 30 reads and 10 writes at rwmixread=10, 50 or 90 (fio 3.33 on its
# null engine gives the same), and a direction without a rate takes what
# the other leaves.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
cd "$TMP" || exit 1

# the JSON's read: total_ios bw_bytes
figs() {
	python3 - "$1" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
try:
    r = json.loads(t[t.index("{"):])["jobs"][0]["read"]
except ValueError:
    print("no-json"); sys.exit()
print(r["total_ios"], r["bw_bytes"])
PY
}

for o in rate=3g rate=8191p rate=9223372036854775807 rate=18446744073709551615 \
	"rate=3g,8191p" rate_min=3g \
	rate_iops=4294967296 rate_iops=18446744073709551615 rate_iops_min=4294967296; do
	printf '[x]\nioengine=null\nrw=read\nbs=4k\nsize=1m\n%s\n' "$o" >j.fio
	if "$IOQOS" check j.fio >out 2>err; then
		ok "$o is taken"
	else
		bad "$o: $(cat err)"
	fi
done
printf '[x]\nioengine=null\nrw=read\nbs=4k\nsize=1m\nblockalign=3g\n' >j.fio
expect_fail "blockalign=3g: bounded by the largest block, and says so" \
	'^ioqos: j.fio:6: blockalign=3g: larger than 2147479552 bytes: it aligns blocks, and a block is at most that' \
	"$IOQOS" check j.fio
for o in 16384p 18446744073709551616 15e; do
	printf '[x]\nioengine=null\nrw=read\nbs=4k\nsize=1m\nrate=%s\n' $o >j.fio
	expect_fail "rate=$o is refused" "^ioqos: j.fio:6: rate=$o: " "$IOQOS" check j.fio
done

# a device of 3.7 GB/s in virtual time
printf 'channels=64\nlat=10000ns\nchan_bw=40000000000\nlink_lat=1000ns\nlink_bw=40000000000\nseek=0\njitter=0\ncapacity=256g\n' >fast.dev
printf "[x]\nrw=read\nbs=4k\nsize=1g\niodepth=32\nrate=3g\n" >j.fio
"$IOQOS" run --engine sim --device fast.dev --output-format=json j.fio >q.json 2>err
set -- $(figs q.json)
if [ "${1:-}" = 262144 ] && python3 -c "import sys; sys.exit(abs($2 / 3221225472 - 1) > 1e-4)"; then
	ok "rate=3g in virtual time: $2 B/s, 3 GiB/s to within 0.01%"
else
	bad "rate=3g in virtual time: $* (want 262144 I/Os at 3221225472 B/s)"; cat err
fi
for e in "sim --device fast.dev" null; do
	for o in rate=8191p rate_iops=18446744073709551615; do
		printf '[x]\nrw=read\nbs=4k\nsize=64m\niodepth=8\n%s\n' "$o" >j.fio
		# shellcheck disable=SC2086
		"$IOQOS" run --engine $e --stop-after 30 --output-format=json j.fio >q.json 2>err
		rc=$?
		set -- $(figs q.json)
		if [ "$rc" = 0 ] && [ "${1:-}" = 16384 ]; then
			ok "$o on ${e%% *}: all 16384 I/Os, unpaced"
		else
			bad "$o on ${e%% *}: exit $rc, $*"; cat err
		fi
	done
done
# rw=randrw: the rates set the shares, the mix gives way (virtual time)
rwfigs() {
	python3 - "$1" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
try:
    j = json.loads(t[t.index("{"):])["jobs"][0]
except ValueError:
    print("no-json"); sys.exit()
print(j["read"]["total_ios"], j["write"]["total_ios"])
PY
}
for mix in 10 50 90; do
	printf '[x]\nrw=randrw\nrwmixread=%s\nbs=4k\nsize=64m\nruntime=2\ntime_based\nrate_iops=15,5\n' $mix >j.fio
	"$IOQOS" run --engine sim --device fast.dev --output-format=json j.fio >q.json 2>err
	got=$(rwfigs q.json)
	if [ "$got" = "30 10" ]; then
		ok "randrw rwmixread=$mix rate_iops=15,5 for 2 s: 30 reads, 10 writes"
	else
		bad "randrw rwmixread=$mix rate_iops=15,5 for 2 s: $got (want 30 10)"; cat err
	fi
done
printf '[x]\nrw=randrw\nbs=4k\nsize=64m\nruntime=2\ntime_based\nrate_iops=,5\n' >j.fio
"$IOQOS" run --engine sim --device fast.dev --output-format=json j.fio >q.json 2>err
set -- $(rwfigs q.json)
if [ "${2:-}" = 10 ] && [ "${1:-0}" -gt 10000 ]; then
	ok "randrw rate_iops=,5: 10 writes, the reads unpaced ($1)"
else
	bad "randrw rate_iops=,5: $* (want many reads, 10 writes)"; cat err
fi
finish
