#!/bin/sh
# A config or stats path that is not a regular file.  At start nbdkit
# refuses it with a message that says what is there; a FIFO as the config
# is not waited on.  While nbdkit runs: the config replaced by a FIFO
# (rm q.conf; mkfifo q.conf), then by a directory, is reported once each,
# naming it; the old config stays in force, the stats file goes on being
# written, a regular file in its place is loaded again, and nbdkit still
# ends on SIGTERM.  A FIFO in place of the stats file is reported once and
# left alone; once it is gone the stats file is written again.
. "$(dirname "$0")/lib.sh"

# refused NAME PATTERN ARGS...: nbdkit with the filter and ARGS does not
# start, within 20 s, and says PATTERN
refused() {
	ck=$1 pat=$2; shift 2
	timeout $((20 * SCALE)) nbdkit -U "$TMP/x.sock" --filter="$FILTER" memory 1M "$@" \
		--run true >"$TMP/x.log" 2>&1
	rc=$?
	if [ $rc = 0 ] || [ $rc = 124 ]; then
		bad "$ck: nbdkit $([ $rc = 0 ] && echo started || echo 'hung for 20 s')"
	elif grep -q -- "$pat" "$TMP/x.log"; then
		ok "$ck"
	else
		bad "$ck: no '$pat' in:"; cat "$TMP/x.log"
	fi
}
mkdir "$TMP/d.conf" "$TMP/d.stats"
mkfifo "$TMP/f.conf"
printf '/vm1\n' >"$TMP/ok.conf"
refused "start: a directory as the config" \
	"$TMP/d.conf: not a regular file (a directory)" ioqos-config="$TMP/d.conf"
refused "start: a FIFO as the config, not waited on" \
	"$TMP/f.conf: not a regular file (a FIFO)" ioqos-config="$TMP/f.conf"
refused "start: a directory as the stats file" \
	"ioqos-stats: $TMP/d.stats: not a regular file (a directory)" \
	ioqos-config="$TMP/ok.conf" ioqos-stats="$TMP/d.stats"

printf '/vm1\n/vm2\n' >"$TMP/q.conf"
start s -v --filter="$FILTER" memory 1M ioqos-config="$TMP/q.conf" \
	ioqos-stats="$TMP/s.stats" ioqos-poll=100ms || exit 1
served() { nbdinfo --size "$(uri s "$1")" >/dev/null 2>&1; }
stats_time() { stat_field "$TMP/s.stats" '#' time; }
# stats_move: the stats header's time moves on past what it was when called
stats_move() {
	t=$(stats_time)
	moved() { [ "$(stats_time)" != "$t" ]; }
	wait_for 5 moved
}
check "the stats file is written" wait_for 5 test -s "$TMP/s.stats"

rm "$TMP/q.conf" && mkfifo "$TMP/q.conf"
check "a FIFO as the config is reported, naming it" \
	wait_for 5 grep -q "ioqos: $TMP/q.conf: not a regular file (a FIFO)" "$TMP/s.log"
check "the stats file goes on being written" stats_move
check "the old config stays: /vm2 is served" served vm2
check "and reported once" test "$(grep -c 'q.conf: not a regular file (a FIFO)' "$TMP/s.log")" = 1

rm "$TMP/q.conf" && mkdir "$TMP/q.conf"
check "a directory as the config is reported, naming it" \
	wait_for 5 grep -q "ioqos: $TMP/q.conf: not a regular file (a directory)" "$TMP/s.log"
check "the stats file goes on being written" stats_move

rmdir "$TMP/q.conf" && printf '/vm1\n/vm3\n' >"$TMP/q.new" && mv "$TMP/q.new" "$TMP/q.conf"
vm3() { served vm3; }
check "a regular file in its place is loaded" wait_for 5 vm3
check "the reload is counted" test "$(stat_field "$TMP/s.stats" '#' reloads)" = 1

rm "$TMP/s.stats" && mkfifo "$TMP/s.stats"
check "a FIFO as the stats file is reported, naming it" \
	wait_for 5 grep -q "error: ioqos: $TMP/s.stats: not a regular file (a FIFO)" "$TMP/s.log"
sleep 0.5
check "once" test "$(grep -c "error: ioqos: $TMP/s.stats: not a regular" "$TMP/s.log")" = 1
check "and left as it is" test -p "$TMP/s.stats"
check "nothing else is left beside it" test "$(ls "$TMP" | grep -c '^s\.stats')" = 1
rm "$TMP/s.stats"
check "once it is gone, the stats file is written again" wait_for 5 test -f "$TMP/s.stats"
check "nbdkit ends on SIGTERM" stop s
finish
