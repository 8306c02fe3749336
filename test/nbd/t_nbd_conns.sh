#!/bin/sh
# 40 connections at once, each in its own group, under a shared root limit
# and a depth of 8: fio writes a region per connection with checksums and
# reads it back verified; the stats file shows the 40 connections open
# together; nothing is left afterwards.
#
# The root first lets one write a second through (wiops=1), so that no
# connection can finish before the last one opens, however late a loaded
# machine starts fio's 40 processes; once the stats file counts 40, the
# config without it is put in place and the filter's reload lets the
# queued writes go at 16M.  (Sampled while they ran at 8M, the first
# connections finished before the last opened now and then: 39 of 40.)
. "$(dirname "$0")/lib.sh"
N=40

# conf ROOT: the root's settings, then the 40 groups
conf() {
	{ printf '/ %s\n' "$1"; i=0; while [ $i -lt $N ]; do echo "/t$i"; i=$((i + 1)); done; } \
		>"$TMP/qos.new" && mv "$TMP/qos.new" "$TMP/qos.conf"
}
conf "depth=8 rbps=16M wbps=16M wiops=1"
start s --filter="$FILTER" memory 64M ioqos-config="$TMP/qos.conf" \
	ioqos-stats="$TMP/s.stats" ioqos-poll=100ms || exit 1
{
	printf '[global]\nioengine=nbd\nrw=randwrite\nbsrange=4k-64k\niodepth=4\n'
	printf 'size=512k\nverify=crc32c\nverify_fatal=1\nverify_state_save=0\n'
	i=0
	while [ $i -lt $N ]; do
		printf '[t%s]\nuri=%s\noffset=%s\n' $i "$(uri s "t$i")" $((i * 524288))
		i=$((i + 1))
	done
} >"$TMP/conns.fio"
fio --output="$TMP/fio.out" "$TMP/conns.fio" >"$TMP/fio.err" 2>&1 &
FIO=$!
PIDS="$PIDS $FIO"
open_all() { [ "$(stat_field "$TMP/s.stats" '#' connections 2>/dev/null)" = $N ]; }
check "40 connections open at once" wait_for 120 open_all
conf "depth=8 rbps=16M wbps=16M"
reloaded() { [ "$(stat_field "$TMP/s.stats" '#' reloads 2>/dev/null)" = 1 ]; }
check "the reload lets them go" wait_for 30 reloaded
wait "$FIO"
check "fio: 40 regions written and verified" test $? = 0
grep -q 'verify: bad' "$TMP/fio.out" && bad "fio reported bad blocks"
check "every connection closed, nothing left" wait_for 30 stats_idle
check "nbdkit stops" stop s
check "nothing left in the last stats" stats_idle
check "40 groups served" test "$(grep -c '^/t[0-9]* rios=[1-9].* wios=[1-9]' "$TMP/s.stats")" = $N
finish
