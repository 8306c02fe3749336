#!/bin/sh
# 40 connections at once, each in its own group, under a shared root limit
# and a depth of 8: fio writes a region per connection with checksums and
# reads it back verified; the stats file, sampled while they run, shows
# the 40 connections open together; nothing is left afterwards.
. "$(dirname "$0")/lib.sh"
N=40

{ printf '/ depth=8 rbps=8M wbps=8M\n'; i=0; while [ $i -lt $N ]; do echo "/t$i"; i=$((i + 1)); done; } \
	>"$TMP/qos.conf"
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
most=0
while kill -0 "$FIO" 2>/dev/null; do
	n=$(stat_field "$TMP/s.stats" '#' connections 2>/dev/null)
	[ "${n:-0}" -gt "$most" ] && most=$n
	sleep 0.05
done
wait "$FIO"
check "fio: 40 regions written and verified" test $? = 0
grep -q 'verify: bad' "$TMP/fio.out" && bad "fio reported bad blocks"
echo "    most connections seen open at once: $most"
check "40 connections open at once" test "$most" -ge $N
check "nbdkit stops" stop s
check "nothing left" grep -q '^# ioqos connections=0 waiting=0 queued=0 inflight=0' "$TMP/s.stats"
check "40 groups served" test "$(grep -c '^/t[0-9]* rios=[1-9].* wios=[1-9]' "$TMP/s.stats")" = $N
finish
