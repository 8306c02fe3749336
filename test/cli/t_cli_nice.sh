#!/bin/sh
# nice= (fio: nice(2) as each job's process starts): ioqos runs every job
# in one thread, so it takes nice= when every job gives the same value,
# and the run goes at that niceness (read from /proc while it runs); jobs
# that differ are refused, naming the option and why; fio's range.
. "$(dirname "$0")/lib.sh"

# a run long enough to be seen however late a loaded machine starts it,
# ended as soon as it is
printf '[global]\nioengine=null\nsize=1g\ntime_based\nruntime=60\nnice=7\n[a]\n[b]\nrw=write\n' >"$TMP/n.fio"
before=$(stat_field $$ 19)
"$IOQOS" run "$TMP/n.fio" >"$TMP/out" 2>"$TMP/err" &
pid=$!
ni=
while kill -0 $pid 2>/dev/null; do
	ni=$(stat_field $pid 19)
	[ -n "$ni" ] && [ "$ni" != "$before" ] && break
	sleep 0.05
done
kill -TERM $pid 2>/dev/null
wait $pid
[ "$ni" = $((before + 7)) ] && ok "nice=7: the run at niceness $ni" ||
	bad "nice=7: the run at niceness '$ni', not $((before + 7))"

printf '[a]\nioengine=null\nsize=1m\nnice=3\n[b]\nioengine=null\nsize=1m\n' >"$TMP/d.fio"
expect_fail "nice= differing" "d.fio:5: job 'b': nice=0 where job 'a' has nice=3: ioqos runs every job in one thread" \
	"$IOQOS" check "$TMP/d.fio"
expect_fail "nice=20" "command line: nice=20: expected a niceness from -20 to 19" \
	"$IOQOS" check --name=a --nice=20
"$IOQOS" check --name=a --nice=-20 --name=b --nice=-20 | grep -c "nice -20: the run's niceness" |
	grep -qx 2 && ok "nice=-20: described" || bad "nice=-20 not described"
finish
