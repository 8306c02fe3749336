#!/bin/sh
# ioqos run --redis: three runs (processes) of one job on the null engine
# share "/t rbps=30M global=tenant" through a real redis-server on a unix
# socket (stopped by its PID on exit).  The three jobs' bandwidths add up
# to 30 MiB/s within 2% over their 4 s (after a 1 s ramp: a bucket starts
# empty, so the first leases grant little), and each takes its max-min
# third within 2 points of the total; the usage errors are one line each.
. "$(dirname "$0")/lib.sh"
command -v redis-server >/dev/null 2>&1 || { echo "skip: redis-server is not installed"; exit 77; }

REDIS=""
trap '[ -n "$REDIS" ] && kill -KILL "$REDIS" 2>/dev/null; rm -rf "$TMP"' EXIT INT TERM
redis-server --port 0 --unixsocket "$TMP/redis.sock" --unixsocketperm 700 --save '' \
	--appendonly no --dir "$TMP" --daemonize no >"$TMP/redis.log" 2>&1 &
REDIS=$!
i=0
while [ ! -S "$TMP/redis.sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done

cat >"$TMP/t.fio" <<E
[t]
ioengine=null
rw=read
bs=64k
size=1g
iodepth=8
cgroup=t
time_based=1
ramp_time=1s
runtime=4s
E
# burst=100ms: a run scheduled late on a shared machine keeps what accrued
echo "/t rbps=30M global=tenant burst=100ms" >"$TMP/t.qos"
addr="unix:$TMP/redis.sock"

expect_fail "--redis without --qos" "needs --qos" "$IOQOS" run "$TMP/t.fio" --redis "$addr"
expect_fail "--redis with the sim engine" "real engines" \
	"$IOQOS" run "$TMP/t.fio" --qos "$TMP/t.qos" --engine sim --redis "$addr"
sed 's/^ioengine=null/ioengine=sim/' "$TMP/t.fio" >"$TMP/sim.fio"
expect_fail "--redis with jobs on the sim engine" "real engines" \
	"$IOQOS" run "$TMP/sim.fio" --qos "$TMP/t.qos" --redis "$addr"
expect_fail "--redis with a bad address" "expected unix:PATH or HOST:PORT" \
	"$IOQOS" run "$TMP/t.fio" --qos "$TMP/t.qos" --redis nowhere
printf '/t rbps=30M global=a/b\n' >"$TMP/bad.qos"
expect_fail "a bad bucket name" "bad.qos:1: key 'global': bad value 'a/b'" \
	"$IOQOS" run "$TMP/t.fio" --qos "$TMP/bad.qos" --redis "$addr"

pids=""
for n in 1 2 3; do
	"$IOQOS" run "$TMP/t.fio" --qos "$TMP/t.qos" --redis "$addr" --output-format json \
		>"$TMP/r$n.json" 2>"$TMP/r$n.err" &
	pids="$pids $!"
done
rc=0
for p in $pids; do wait "$p" || rc=1; done
if [ "$rc" != 0 ]; then
	bad "three runs: an error:"; cat "$TMP"/r*.err
else
	ok "three runs"
fi
python3 - "$TMP"/r1.json "$TMP"/r2.json "$TMP"/r3.json <<'E' || fails=$((fails + 1))
import json, sys
R = 30 * 1024 * 1024
bw = [json.load(open(f))["jobs"][0]["read"]["bw_bytes"] for f in sys.argv[1:]]
tot = sum(bw)
err = (tot - R) * 100 / R
print("     %s MiB/s, total %.3f MiB/s (%+.2f%%)" %
      (" ".join("%.3f" % (b / 2**20) for b in bw), tot / 2**20, err))
ok = abs(err) <= 2
print(("ok  " if ok else "FAIL") + " the three runs add up to 30 MiB/s within 2%")
parts = [b * 100 / tot for b in bw]
ok2 = all(abs(p - 100 / 3) <= 2 for p in parts)
print(("ok  " if ok2 else "FAIL") + " each run's part is a third within 2 points: " +
      " ".join("%.2f%%" % p for p in parts))
sys.exit(0 if ok and ok2 else 1)
E
finish
