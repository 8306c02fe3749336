#!/bin/sh
# What someone plants beside the stats file is never followed or
# clobbered: a symbolic link at s.stats.tmp (the temporary name of old)
# to a file of value, a regular file there, and a link at the stats path
# itself.  The stats are written to a temporary file of their own and
# renamed over the stats path, which replaces the link there, not the
# file it points to; nothing of the filter's is left in the directory.
# Where a write fails (a file system too small for the file, if this
# machine lets the test mount one), the temporary file is removed too.
. "$(dirname "$0")/lib.sh"

mkdir "$TMP/run"
printf 'precious\n' >"$TMP/victim"
printf 'precious too\n' >"$TMP/victim2"
ln -s "$TMP/victim" "$TMP/run/s.stats.tmp"
printf 'mine\n' >"$TMP/run/other.tmp"
ln -s "$TMP/victim2" "$TMP/run/s.stats"
printf '/vm1\n' >"$TMP/q.conf"
start s -v --filter="$FILTER" memory 1M ioqos-config="$TMP/q.conf" \
	ioqos-stats="$TMP/run/s.stats" ioqos-poll=100ms || exit 1
written() { [ -f "$TMP/run/s.stats" ] && [ ! -L "$TMP/run/s.stats" ]; }
check "the stats file is written in place of the link" wait_for 5 written
check "with stats in it" grep -q '^# ioqos connections=' "$TMP/run/s.stats"
sleep 0.5                                  # a few more writes
check "the link's target is untouched" test "$(cat "$TMP/victim2")" = "precious too"
check "the file a link at s.stats.tmp points to is untouched" test "$(cat "$TMP/victim")" = precious
check "that link is still there" test "$(readlink "$TMP/run/s.stats.tmp")" = "$TMP/victim"
check "a file planted beside is untouched" test "$(cat "$TMP/run/other.tmp")" = mine
check "nbdkit stops" stop s
check "the last stats are written" grep -q '^# ioqos connections=0' "$TMP/run/s.stats"
check "nothing else is left in the directory" \
	test "$(ls -A "$TMP/run" | tr '\n' ' ')" = "other.tmp s.stats s.stats.tmp "

mkdir "$TMP/full"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=8k ioqos-test "$TMP/full" 2>/dev/null; then
	trap 'umount "$TMP/full" 2>/dev/null; cleanup' EXIT
	awk 'BEGIN { for (i = 0; i < 2000; i++) printf "/g%d\n", i }' >"$TMP/big.conf"
	start f -v --filter="$FILTER" memory 1M ioqos-config="$TMP/big.conf" \
		ioqos-stats="$TMP/full/f.stats" ioqos-poll=100ms || exit 1
	check "full: the failed write is reported, naming the file" \
		wait_for 5 grep -q "error: ioqos: $TMP/full/f.stats: No space left on device" "$TMP/f.log"
	sleep 0.3
	check "full: nbdkit stops" stop f
	check "full: no temporary file is left" test -z "$(ls -A "$TMP/full")"
	umount "$TMP/full"
else
	echo "skip: cannot mount a small tmpfs here: the failed write is not tried"
fi
finish
