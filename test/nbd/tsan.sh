#!/bin/sh
# The filter built under ThreadSanitizer (make nbdkit-check-tsan, run by
# make check-long), in an nbdkit that preloads libtsan, through every path
# where its threads meet: four fio clients on three exports (two weighted
# under a root limit and a depth, one made on demand) keeping 16 requests
# each in flight on nbdkit's worker threads, each with its lane into the
# controller; the timer thread letting the limit's requests go; the poll
# thread writing the stats file every 100 ms and reloading the config
# twice mid-run (the second drops a group a client is in); a client killed
# with requests queued (their threads cancel them); and nbdkit stopped
# with requests queued, until the filter unloads.  Any report fails, as
# does a client's error.
. "$(dirname "$0")/lib.sh"
TSAN_SO=${IOQOS_FILTER_TSAN:-$ROOT/build/nbdkit-ioqos-filter-tsan.so}
[ -f "$TSAN_SO" ] || skip "no $TSAN_SO (make $TSAN_SO)"
LIBTSAN=$(${CC:-cc} -print-file-name=libtsan.so)
[ -f "$LIBTSAN" ] || skip "no libtsan.so beside ${CC:-cc}"
# halt_on_error=0: every report, each in the log
NBDKIT_WRAP="env LD_PRELOAD=$LIBTSAN TSAN_OPTIONS=halt_on_error=0:log_path=$TMP/tsan"
SCALE=3

printf '/ rbps=16M depth=8\n/a weight=300\n/b weight=100\n/slow rbps=64k\n' >"$TMP/q.conf"
start s -v --filter="$TSAN_SO" memory 256M ioqos-config="$TMP/q.conf" ioqos-exports=any \
	ioqos-stats="$TMP/s.stats" ioqos-poll=100ms || exit 1
check "the stats file is written" wait_for 20 test -s "$TMP/s.stats"
{
	printf '[global]\nioengine=nbd\nbs=64k\niodepth=16\nruntime=6\ntime_based\nrw=randread\n'
	for j in a1:a a2:a b1:b c1:c; do
		printf '[%s]\nuri=%s\n' "${j%:*}" "$(uri s "${j#*:}")"
	done
	printf 'rw=randwrite\n'
} >"$TMP/t.fio"
fio --output="$TMP/t.out" "$TMP/t.fio" >"$TMP/t.err" 2>&1 &
F=$!
PIDS="$PIDS $F"
slow_client slow 8 "$TMP/slow.out"
check "requests queue behind /slow's limit" wait_for 20 queued_at_least /slow 4
kill -KILL "$FIO"; wait "$FIO" 2>/dev/null
printf '/ rbps=8M depth=4\n/a weight=100\n/b weight=300 riops=50\n' >"$TMP/q.new" &&
	mv "$TMP/q.new" "$TMP/q.conf"
reloaded() { [ "$(stat_field "$TMP/s.stats" '#' reloads)" = "$1" ]; }
check "a reload mid-run" wait_for 10 reloaded 1
printf '/ rbps=12M\n/a weight=300\n/slow rbps=64k\n' >"$TMP/q.new" && mv "$TMP/q.new" "$TMP/q.conf"
check "a reload that drops /b, a client in it" wait_for 10 reloaded 2
wait "$F"
check "fio: four clients, no error" test $? = 0
slow_client slow 8 "$TMP/slow2.out"
check "requests queue again" wait_for 20 queued_at_least /slow 4
# nbdkit under libtsan may hang in its exit after the filter is gone (a
# library's destructor waits on glibc's locale lock): the filter's part
# is over once it has unloaded, and the server is killed after
kill -TERM "$PID_s"
unloaded() { grep -q 'ioqos: unload filter' "$TMP/s.log"; }
check "nbdkit stops with requests queued: the filter unloads" wait_for 30 unloaded
if ls "$TMP"/tsan.* >/dev/null 2>&1; then
	bad "ThreadSanitizer: $(grep -h '^SUMMARY' "$TMP"/tsan.* | sort | uniq -c | head -n 5)"
	cat "$TMP"/tsan.* | head -n 60
else
	ok "ThreadSanitizer: no report"
fi
finish
