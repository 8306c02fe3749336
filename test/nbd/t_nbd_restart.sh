#!/bin/sh
# nbdkit restarted under load, as systemd/nbdkit-ioqos.{socket,service} run
# it: the listening socket is held by a supervisor (supervise.py, doing what
# systemd does: socket activation, Restart=always) and survives nbdkit.
# qemu-io, with the nbd driver's reconnect-delay, writes a pattern and
# reads it back while its 8 MiB read waits behind rbps=4M; the test kills
# nbdkit with SIGKILL then.  The supervisor starts it again, qemu reconnects
# and retries, and the read completes with the pattern.  Then a client is
# killed with 256 KiB reads in flight: nbdkit 1.32.4 to 1.33.9 abort on
# that (fixed in 1.33.10), and the export must serve again all the same,
# by a restart where nbdkit died.  The unit files must pass
# systemd-analyze verify.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"

if command -v systemd-analyze >/dev/null 2>&1; then
	check "the unit files verify" systemd-analyze verify \
		"$ROOT/systemd/nbdkit-ioqos.socket" "$ROOT/systemd/nbdkit-ioqos.service"
fi

truncate -s 64M "$TMP/disk.img"
printf '/vm1 rbps=4M\n/vm2\n' >"$TMP/qos.conf"
python3 "$ROOT/test/nbd/supervise.py" "$TMP/s.sock" "$TMP/nbdkit.pid" 5 $((60 * SCALE)) -- \
	nbdkit -v --filter="$FILTER" file "$TMP/disk.img" ioqos-config="$TMP/qos.conf" \
	ioqos-stats="$TMP/s.stats" ioqos-poll=100ms >"$TMP/sup.out" 2>"$TMP/s.log" &
SUP=$!
PIDS="$PIDS $SUP"
check "the supervisor listens" wait_for 10 test -S "$TMP/s.sock"
starts() { grep -c '^start' "$TMP/sup.out"; }
check "the log says whether this nbdkit aborts on hang-ups" \
	wait_for 5 grep -Eq "ioqos: (warning: )?nbdkit [0-9.]+ (aborts when|survives)" "$TMP/s.log"

opts="driver=nbd,server.type=unix,server.path=$TMP/s.sock,export=vm1,reconnect-delay=20"
qemu-io --image-opts "$opts" -c 'write -P 0x5a 0 8M' -c 'read -P 0x5a 0 8M' \
	>"$TMP/qio.out" 2>&1 &
QIO=$!
PIDS="$PIDS $QIO"
check "the read waits behind the limit" wait_for 10 queued_at_least /vm1 1
kill -KILL "$(cat "$TMP/nbdkit.pid")"
restarted() { [ "$(starts)" -ge 2 ]; }
check "nbdkit is started again" wait_for 5 restarted
wait_qio() { ! kill -0 "$QIO" 2>/dev/null; }
check "qemu-io finishes" wait_for 30 wait_qio
wait "$QIO"
rc=$?
cat "$TMP/qio.out" | sed 's/^/    qemu-io: /'
check "qemu-io succeeds" test "$rc" = 0
check "the read came back whole" grep -q '^read 8388608/8388608 bytes' "$TMP/qio.out"
check "with the pattern" sh -c "! grep -q 'Pattern verification failed' '$TMP/qio.out'"

# a client killed with replies in flight: restart or survival, it serves
n=$(starts)
slow_client vm2 16 "$TMP/big.out" 256k
reading() { [ "$(stat_field "$TMP/s.stats" /vm2 rios 2>/dev/null)" -ge 64 ] 2>/dev/null; }
check "the second client reads" wait_for 10 reading
kill -KILL "$FIO"
wait "$FIO" 2>/dev/null
sleep 0.5
if [ "$(starts)" -gt "$n" ]; then
	echo "    nbdkit died and was started again: $(grep -m 1 -o 'raw_send_socket: Assertion.*' "$TMP/s.log")"
else
	echo "    nbdkit survived the killed client"
fi
serves() { nbdinfo --size "$(uri s vm1)" >/dev/null 2>&1; }
check "the export serves again" wait_for 5 serves

kill -TERM "$SUP"
stopped() { ! kill -0 "$SUP" 2>/dev/null; }
check "the supervisor stops nbdkit and ends" wait_for 10 stopped
finish
