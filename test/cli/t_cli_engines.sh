#!/bin/sh
# Each job on its own engine, as fio runs a job file whose jobs name
# different ioengine= (fio's examples/exitwhat.fio mixes sync and libaio):
# psync, io_uring, libaio (ioqos's io_uring) and null jobs in one run, on
# scratch files, each with its own I/O count, the psync job one I/O at a
# time whatever its iodepth (fio's iodepth_level), the report naming each
# job's engine, beside fio on the same file when fio is there; exitall
# across engines; --engine forcing one for all; the sim beside a real
# engine refused by check and run.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skipped: python3 is needed"; exit 77; }
find_fio

# one job per engine, each its own count: 256, 128, 64 and 512 reads
cat >"$TMP/mix.fio" <<E
[global]
rw=randread
bs=4k
direct=0
[ps]
ioengine=psync
iodepth=8
size=1m
filename=$TMP/ps.dat
[ur]
ioengine=io_uring
iodepth=8
size=512k
filename=$TMP/ur.dat
[la]
ioengine=libaio
iodepth=4
size=256k
filename=$TMP/la.dat
[nu]
ioengine=null
size=2m
E

# per job: name, error, read total_ios, ioengine as its options give it,
# and the share of its submissions at depth 1 (fio's iodepth_level "1")
figs() {
	python3 - "$1" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
for j in json.loads(t[t.index("{"):])["jobs"]:
    print(j["jobname"], j["error"], j["read"]["total_ios"],
          j["job options"]["ioengine"], round(j["iodepth_level"]["1"]),
          j.get("ioqos_engine", "-"))
PY
}

if "$IOQOS" check "$TMP/mix.fio" >"$TMP/check" 2>"$TMP/err" &&
	grep -q "^    ioengine psync$" "$TMP/check" &&
	grep -q "^    ioengine io_uring$" "$TMP/check" &&
	grep -q "^    ioengine libaio: runs on ioqos's io_uring engine$" "$TMP/check" &&
	grep -q "^    ioengine null$" "$TMP/check"; then
	ok "check: four jobs, each with the engine it runs on"
else
	bad "check of the mixed file:"; cat "$TMP/check" "$TMP/err"
fi

want="ps 0 256 psync 100 psync
ur 0 128 io_uring - io_uring
la 0 64 libaio - io_uring
nu 0 512 null 100 null"
if "$IOQOS" run --output-format=json "$TMP/mix.fio" >"$TMP/q.json" 2>"$TMP/err"; then
	q=$(figs "$TMP/q.json" | awk '$1 == "ur" || $1 == "la" { $5 = "-" } { print }')
	eng=$(python3 -c 'import json,sys; t=open(sys.argv[1]).read(); print(json.loads(t[t.index("{"):])["engine"])' "$TMP/q.json")
	if [ "$q" = "$want" ] && [ "$eng" = "null, psync, io_uring" ]; then
		ok "a run of psync, io_uring, libaio and null jobs: each job's count and engine"
	else
		bad "the mixed run: engine '$eng', jobs:"; echo "$q"
	fi
else
	bad "the mixed run failed:"; cat "$TMP/err"
fi
[ ! -e "$TMP/nu.0.0" ] && ok "the null job opens no file, as fio's null engine" ||
	bad "the null job made a file"

if [ -n "$FIO" ]; then
	rm -f "$TMP"/*.dat
	(cd "$TMP" && "$FIO" --output-format=json mix.fio) >"$TMP/f.json" 2>"$TMP/ferr"
	f=$(figs "$TMP/f.json" | awk '$1 == "ur" || $1 == "la" { $5 = "-" } { $6 = ($1 == "la" || $1 == "ur") ? "io_uring" : $4 } { print }')
	if [ "$f" = "$want" ]; then
		ok "fio on the same file: the same counts, options and depth of the psync job"
	else
		bad "fio on the same file:"; echo "$f"; cat "$TMP/ferr"
	fi
fi

# the text report names each job's engine where the run has several
if "$IOQOS" run "$TMP/mix.fio" >"$TMP/q.txt" 2>"$TMP/err" &&
	grep -q "^ps: (groupid=0, jobs=1): err= 0: ioqos group /, engine psync$" "$TMP/q.txt" &&
	grep -q "^la: (groupid=0, jobs=1): err= 0: ioqos group /, engine io_uring$" "$TMP/q.txt" &&
	grep -q "^ioqos .*: engine null, psync, io_uring$" "$TMP/q.txt"; then
	ok "the text report: the run's engines and each job's"
else
	bad "the text report:"; head -3 "$TMP/q.txt"; cat "$TMP/err"
fi

# --engine forces one engine for every job
if "$IOQOS" run --engine null --output-format=json "$TMP/mix.fio" >"$TMP/n.json" 2>"$TMP/err" &&
	[ "$(figs "$TMP/n.json" | awk '{ printf "%s:%s:%s ", $1, $3, $6 }')" = \
	  "ps:256:null ur:128:null la:64:null nu:512:null " ]; then
	ok "--engine null runs every job on null"
else
	bad "--engine null:"; figs "$TMP/n.json"; cat "$TMP/err"
fi

# exitall across engines: the psync job's end stops the rate-capped
# io_uring job (256 reads at 100 KiB/s would take ten seconds)
cat >"$TMP/exit.fio" <<E
[global]
bs=4k
direct=0
size=1m
exitall=1
[slow]
ioengine=sync
rw=read
number_ios=20
thinktime=2000
exit_what=all
filename=$TMP/s.dat
[fast]
ioengine=io_uring
rw=randread
iodepth=4
rate=100k
filename=$TMP/f.dat
E
if "$IOQOS" run --output-format=json "$TMP/exit.fio" >"$TMP/x.json" 2>"$TMP/err"; then
	x=$(figs "$TMP/x.json" | awk '{ print $1, $2, $3 }')
	n=$(echo "$x" | awk '$1 == "fast" { print $3 }')
	if [ "$(echo "$x" | head -1)" = "slow 0 20" ] && [ "$n" -gt 0 ] && [ "$n" -lt 256 ]; then
		ok "exitall: the sync job's end stops the io_uring job ($n of 256 reads)"
	else
		bad "exitall across engines:"; echo "$x"
	fi
else
	bad "exitall across engines failed:"; cat "$TMP/err"
fi

# the sim is a device of its own: never beside a real engine
printf '[a]\nioengine=sim\nrw=read\nsize=1m\n[b]\nioengine=psync\nrw=read\nsize=1m\nfilename=%s/b\n' \
	"$TMP" >"$TMP/sim.fio"
expect_fail "run: sim beside psync" \
	"sim.fio:1: job 'a': the sim engine is a simulated device of its own, and job 'b' runs on the psync engine" \
	"$IOQOS" run "$TMP/sim.fio"
expect_fail "check: sim beside psync" "job 'a': the sim engine is a simulated device" \
	"$IOQOS" check "$TMP/sim.fio"
if "$IOQOS" run --engine sim --output-format=json "$TMP/sim.fio" >"$TMP/s.json" 2>"$TMP/err"; then
	ok "--engine sim runs both on the sim"
else
	bad "--engine sim:"; cat "$TMP/err"
fi
finish
