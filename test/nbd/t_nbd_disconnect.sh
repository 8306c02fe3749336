#!/bin/sh
# A client that goes away with requests queued: fio keeps 16 reads of 64k
# queued behind rbps=64k (16 s of backlog) and is killed.  Its queued
# requests are cancelled, its threads leave, nothing is left queued or in
# flight, and the next client of the same group is served at once rather
# than after the dead one's backlog.  Then the same with nbdkit itself
# told to stop: it exits without serving the backlog.
. "$(dirname "$0")/lib.sh"

printf '/slow rbps=64k\n' >"$TMP/qos.conf"
start s --filter="$FILTER" memory 64M ioqos-config="$TMP/qos.conf" \
	ioqos-stats="$TMP/s.stats" ioqos-poll=100ms || exit 1
threads() { ls "/proc/$PID_s/task" | wc -l; }
sleep 0.3
base=$(threads)

slow_client slow 16 "$TMP/fio1.out"
check "requests queue behind the limit" wait_for 10 queued_at_least /slow 10
kill -KILL "$FIO"
wait "$FIO" 2>/dev/null
check "killed client: nothing queued, in flight or waiting" wait_for 5 stats_idle
cancelled=$(stat_field "$TMP/s.stats" /slow cancelled)
echo "    cancelled: $cancelled"
check "its queued requests were cancelled" test "${cancelled:-0}" -ge 10
base_back() { [ "$(threads)" -le "$base" ]; }
check "its threads are gone ($base before)" wait_for 5 base_back
# one 4k read: served from the bucket at once, not after 16 s of backlog
start_ns=$(date +%s%N)
qemu-io -f raw "$(uri s slow)" -c 'read 0 4k' >"$TMP/qio.out" 2>&1
rc=$?
ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
echo "    next client's read: ${ms} ms"
check "the next client of /slow is served" test $rc = 0
check "and not after the dead client's backlog (< 8 s)" test $ms -lt 8000

# nbdkit told to stop while a client has 16 s of reads queued
slow_client slow 16 "$TMP/fio2.out"
check "requests queue again" wait_for 10 queued_at_least /slow 10
check "nbdkit stops within 8 s with requests queued" stop s 8
wait "$FIO" 2>/dev/null
check "final stats: nothing queued, in flight or waiting" \
	grep -q "^# ioqos connections=[0-9]* waiting=0 queued=0 inflight=0" "$TMP/s.stats"
echo "    cancelled in all: $(stat_field "$TMP/s.stats" /slow cancelled)"
check "exit log: nothing queued" sh -c "! grep -q 'ioqos: exit: queued=[1-9]' '$TMP/s.log'"
finish
