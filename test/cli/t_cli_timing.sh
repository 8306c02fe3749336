#!/bin/sh
# When jobs run, as fio's thinktime=, exitall/exit_what= and wait_for=
# say, on the sim engine in virtual time: the stalls add up to what fio's
# rule gives, a job's end stops the jobs exit_what names, and a job waits
# for the end of the one it names.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }

# "name groupid ios runtime_ms" per job; for thinktime also the sum of the
# latencies in ms
jobs_of() {
	python3 -c 'import json, sys
for j in json.load(open(sys.argv[1]))["jobs"]:
    r = j["read"]
    print(j["jobname"], j["groupid"], r["total_ios"], j["job_runtime"],
          int(r["lat_ns"]["mean"] * r["total_ios"] / 1e6 * 1000))' "$1"
}

# thinktime=10ms after every I/O at iodepth=1: fio counts completed I/Os
# when it issues, so the second I/O is the first followed by a stall; of
# 101 I/Os, 99 stalls fall between the first and the last completion (the
# 100th follows the last I/O).  thinktime_blocks=10: a stall each 10
# completed, 9 of them inside.
think() {   # think BLOCKS STALLS_INSIDE
	printf '[t]\nioengine=sim\nrw=randread\nbs=4k\nsize=1g\nnumber_ios=101\nthinktime=10ms\nthinktime_blocks=%s\n' \
		"$1" >"$TMP/t.fio"
	"$IOQOS" run "$TMP/t.fio" --output-format=json >"$TMP/t.json" 2>"$TMP/err" || cat "$TMP/err"
	set -- $(jobs_of "$TMP/t.json") "$2"
	# runtime = the latencies + the stalls inside, in whole ms
	want=$((($5 + $6 * 10000) / 1000))
	if [ "$3" = 101 ] && [ "$4" = "$want" ]; then
		ok "thinktime=10ms, thinktime_blocks=$blocks: $4 ms, $6 stalls inside"
	else
		bad "thinktime, blocks $blocks: $3 I/Os in $4 ms, want $want"
	fi
}
blocks=1 think 1 99
blocks=10 think 10 9

# exitall: when a ends (1000 I/Os), the others stop by a's exit_what
cat >"$TMP/e.fio" <<'E'
[global]
ioengine=sim
rw=randread
bs=4k
size=1g
exitall
EXIT_WHAT
[a]
number_ios=1000
[b]
time_based
runtime=10s
[c]
new_group
time_based
runtime=2s
[d]
stonewall
time_based
runtime=1s
E
ex() {   # ex EXIT_WHAT: prints "b_runtime c_runtime d_ios d_runtime" and a's runtime
	sed "s/^EXIT_WHAT\$/${1:+exit_what=$1}/" "$TMP/e.fio" >"$TMP/e1.fio"
	"$IOQOS" run "$TMP/e1.fio" --output-format=json >"$TMP/e.json" 2>"$TMP/err" || cat "$TMP/err"
	jobs_of "$TMP/e.json" | awk '{ t[$1] = $4; n[$1] = $3 } END { print t["a"], t["b"], t["c"], n["d"], t["d"] }'
}
# group (the default): b, in a's group, stops with a; c, in its own, runs
# its 2 s; the stonewalled d then runs its 1 s
set -- $(ex "")
[ "$1" = "$2" ] && [ "$1" -lt 1000 ] && [ "$3" = 2000 ] && [ "$5" = 1000 ] &&
	ok "exitall: a's group stops with a ($1 ms), the others run" ||
	bad "exitall, group: a=$1 b=$2 c=$3 d=$4 I/Os in $5"
# stonewall: every running job stops; the next phase runs
set -- $(ex stonewall)
[ "$1" = "$2" ] && [ "$1" = "$3" ] && [ "$5" = 1000 ] &&
	ok "exit_what=stonewall: b and c stop with a, d runs" ||
	bad "exit_what=stonewall: a=$1 b=$2 c=$3 d=$4 I/Os in $5"
# all: d never starts
set -- $(ex all)
[ "$1" = "$2" ] && [ "$1" = "$3" ] && [ "$4" = 0 ] &&
	ok "exit_what=all: d never runs" ||
	bad "exit_what=all: a=$1 b=$2 c=$3 d=$4 I/Os in $5"

# wait_for: the readers start when both writers are done (the per-interval
# log shows the readers' first bytes in the interval of the writers' last);
# without it they start at once
cat >"$TMP/w.fio" <<'E'
[global]
ioengine=sim
size=16m
[writers]
cgroup=w
rw=write
bs=128k
numjobs=2
[readers]
cgroup=r
new_group
wait_for=writers
rw=randread
bs=4k
numjobs=2
runtime=1
time_based
E
first_last() {   # the end of the writers' last interval, of the readers' first
	"$IOQOS" run "$1" --log-interval 10 --log "$TMP/w.csv" --output-format=terse >/dev/null 2>"$TMP/err" ||
		cat "$TMP/err"
	awk -F, '$2 == "/w" && $3 + $4 > 0 { w = $1 } $2 == "/r" && $3 + $4 > 0 && r == "" { r = $1 }
		 END { print w, r }' "$TMP/w.csv"
}
set -- $(first_last "$TMP/w.fio")
[ "$1" = "$2" ] && [ "$1" != 10.000 ] && ok "wait_for: the readers start as the writers end ($1 ms)" ||
	bad "wait_for: writers until $1 ms, readers from $2"
sed '/^wait_for=/d' "$TMP/w.fio" >"$TMP/w2.fio"
set -- $(first_last "$TMP/w2.fio")
[ "$2" = 10.000 ] && ok "without wait_for they start at once" || bad "without wait_for: readers from $2"
printf '[a]\nwait_for=b\n[b]\n' >"$TMP/bad.fio"
expect_fail "wait_for a job defined after" "wait_for=b names no job defined before it" \
	"$IOQOS" check "$TMP/bad.fio"

printf '[a]\nexit_what=some\n' >"$TMP/bad.fio"
expect_fail "exit_what=some" "exit_what=some: expected group, stonewall or all" "$IOQOS" check "$TMP/bad.fio"
finish
