#!/bin/sh
# Stopping a run, as fio stops one (its statuses checked against fio
# 3.33): SIGINT or SIGTERM prints the partial report and exits 128,
# --stop-after ends every job and exits 0; coreutils timeout therefore gets a
# report; a signal while a file is laid out stops the layout and removes
# the file, and a layout that fails removes the file it made (or cuts a
# file it grew back to its old size).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }

# a long run of reads from the page cache, which the signals stop once its
# worker has read a MiB (wait_read), however late a loaded machine starts
# it: its file laid out here, so that the run has no layout to do
head -c 1048576 /dev/zero >"$TMP/long.dat"
cat >"$TMP/long.fio" <<E
[long]
ioengine=psync
direct=0
filename=$TMP/long.dat
size=1m
rw=randread
iodepth=4
runtime=60
time_based
E

# report.json SIGNAL: the JSON of a run stopped by SIGNAL
check_json() {
	python3 - "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
stop, interrupted = sys.argv[2], sys.argv[3] == "1"
assert r["interrupted"] == interrupted, r["interrupted"]
assert r["ioqos"]["stopped_by"] == stop, r["ioqos"].get("stopped_by")
j = r["jobs"][0]
assert j["read"]["total_ios"] > 0, j["read"]
# it stopped at once, long before the job's 60 s
assert j["job_runtime"] < 30000, j["job_runtime"]
assert r["ioqos"]["groups"][0]["read"]["io_bytes"] == j["read"]["io_bytes"]
PY
}

for sig in INT TERM; do
	"$IOQOS" run "$TMP/long.fio" --output-format=json >"$TMP/$sig.json" 2>"$TMP/$sig.err" &
	pid=$!
	wait_read $pid
	kill -$sig $pid
	wait $pid
	rc=$?
	if [ $rc = 128 ] && [ "$(cat "$TMP/$sig.err")" = "ioqos: stopped by SIG$sig: the report above is partial" ] &&
	   check_json "$TMP/$sig.json" SIG$sig 1; then
		ok "SIG$sig: partial report, exit 128"
	else
		bad "SIG$sig: exit $rc: $(cat "$TMP/$sig.err")"
	fi
done

# the text report says it too
"$IOQOS" run "$TMP/long.fio" >"$TMP/term.out" 2>/dev/null &
pid=$!
wait_read $pid
kill -TERM $pid
wait $pid
rc=$?
if [ $rc = 128 ] && grep -q '^ioqos groups (depth max, window [0-9.]*s; stopped by SIGTERM):$' "$TMP/term.out" &&
   grep -q '(interrupted: partial report)$' "$TMP/term.out"; then
	ok "SIGTERM: the text report says so"
else
	bad "SIGTERM text: exit $rc"; cat "$TMP/term.out"
fi

# coreutils timeout sends SIGTERM: the report comes, the status is ours
if command -v timeout >/dev/null; then
	# timeout(1) signals the command and its process group: ioqos sees SIGTERM
	# twice at once, which must count as one.  timeout sends them when its
	# time is up or when it is sent SIGTERM itself: here the latter, once
	# the run reads
	timeout --preserve-status 120 "$IOQOS" run "$TMP/long.fio" --output-format=json \
		>"$TMP/to.json" 2>/dev/null &
	pid=$!
	while [ -z "$(children $pid)" ] && kill -0 $pid 2>/dev/null; do sleep 0.05; done
	wait_read "$(children $pid)"
	kill -TERM $pid
	wait $pid
	rc=$?
	[ $rc = 128 ] && check_json "$TMP/to.json" SIGTERM 1 &&
		ok "timeout(1): a report, exit 128" || bad "timeout(1): exit $rc"
fi

# --stop-after: every job stops, the report is whole, exit 0
"$IOQOS" run "$TMP/long.fio" --stop-after 1 --output-format=json >"$TMP/t.json" 2>"$TMP/t.err"
rc=$?
if [ $rc = 0 ] && [ ! -s "$TMP/t.err" ] && check_json "$TMP/t.json" --stop-after 0 &&
   python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["jobs"][0]["job_runtime"] >= 1000' "$TMP/t.json"; then
	ok "--stop-after 1: exit 0 after a second"
else
	bad "--stop-after: exit $rc: $(cat "$TMP/t.err")"
fi
# on the sim engine too: ten virtual hours would take minutes
printf '[sim]\nioengine=sim\nrw=randread\niodepth=32\nruntime=10h\ntime_based\n' >"$TMP/sim.fio"
"$IOQOS" run "$TMP/sim.fio" --stop-after 500ms >"$TMP/sim.out" 2>"$TMP/sim.err"
rc=$?
[ $rc = 0 ] && grep -q 'stopped by --stop-after):$' "$TMP/sim.out" &&
	ok "--stop-after on sim" || bad "--stop-after on sim: exit $rc: $(cat "$TMP/sim.err")"
expect_fail "--stop-after 0" "--stop-after: expected a time" "$IOQOS" run "$TMP/long.fio" --stop-after 0
expect_fail "--stop-after soon" "--stop-after: expected a time such as 90, 1500ms, 2m, not soon" "$IOQOS" run "$TMP/long.fio" --stop-after soon

# Ctrl-C while a file is laid out: the layout stops, the file goes
mkdir -p "$TMP/d"
printf '[big]\nioengine=psync\nfilename=%s/d/big.dat\nsize=1g\nrw=read\nruntime=5\n' "$TMP" >"$TMP/big.fio"
"$IOQOS" run "$TMP/big.fio" >"$TMP/big.out" 2>"$TMP/big.err" &
pid=$!
while [ ! -e "$TMP/d/big.dat" ] && kill -0 $pid 2>/dev/null; do sleep 0.01; done
kill -INT $pid
wait $pid
rc=$?
if [ $rc = 128 ] && [ ! -e "$TMP/d/big.dat" ] && [ ! -s "$TMP/big.out" ] &&
   grep -q 'big.dat: laying out stopped by SIGINT$' "$TMP/big.err"; then
	ok "Ctrl-C during layout: stopped, file removed, exit 128"
else
	bad "Ctrl-C during layout: exit $rc, $(ls "$TMP/d"): $(cat "$TMP/big.err")"
fi

# a layout that fails (here: past the file size limit) leaves nothing behind
printf '[a]\nioengine=psync\nfilename=%s/d/new.dat\nsize=8m\nrw=read\n' "$TMP" >"$TMP/new.fio"
( trap '' XFSZ; ulimit -f 2048; exec "$IOQOS" run "$TMP/new.fio" ) >/dev/null 2>"$TMP/new.err"
rc=$?
[ $rc = 1 ] && [ ! -e "$TMP/d/new.dat" ] && grep -q 'new.dat: laying out 8388608 bytes: File too large' "$TMP/new.err" &&
	ok "failed layout removes the file it made" || bad "failed layout: exit $rc, $(ls "$TMP/d"): $(cat "$TMP/new.err")"
head -c 4096 /dev/zero >"$TMP/d/old.dat"
printf '[a]\nioengine=psync\nfilename=%s/d/old.dat\nsize=8m\nrw=read\n' "$TMP" >"$TMP/old.fio"
( trap '' XFSZ; ulimit -f 2048; exec "$IOQOS" run "$TMP/old.fio" ) >/dev/null 2>"$TMP/old.err"
rc=$?
[ $rc = 1 ] && [ "$(stat -c %s "$TMP/d/old.dat")" = 4096 ] &&
	ok "failed layout cuts a grown file back" || bad "grown file: exit $rc, size $(stat -c %s "$TMP/d/old.dat"): $(cat "$TMP/old.err")"
finish
