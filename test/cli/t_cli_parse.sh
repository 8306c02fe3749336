#!/bin/sh
# ioqos --help/--version, `ioqos check`, and bad input: every error is one
# line naming what is wrong (option, file:line), with a non-zero exit.
. "$(dirname "$0")/lib.sh"

"$IOQOS" --version | grep -Eq '^ioqos [0-9]+\.[0-9]+\.[0-9]+$' && ok version || bad version
"$IOQOS" --help | grep -q 'ioqos run \[JOBFILE' && ok help || bad help
expect_fail "no command" "no command" "$IOQOS"
expect_fail "unknown command" "unknown command frob" "$IOQOS" frob
expect_fail "unknown run option" "unknown option -f" "$IOQOS" run -f x.fio
expect_fail "unknown fio option" "^ioqos: command line: unknown or unsupported option 'frob'$" \
	"$IOQOS" run --frob --name=x
expect_fail "refused fio option" "^ioqos: command line: lockfile=exclusive: ioqos takes no file locks" \
	"$IOQOS" run --name=x --lockfile=exclusive
expect_fail "bad engine" "--engine" "$IOQOS" run --engine=aio x.fio
expect_fail "bad seed" "--seed" "$IOQOS" run --seed=12x x.fio
expect_fail "bad format" "--output-format" "$IOQOS" run --output-format=xml x.fio
expect_fail "bad runtime" "^ioqos: command line: runtime=soon: " "$IOQOS" run --runtime=soon x.fio
expect_fail "bad runtime-all" "--runtime-all" "$IOQOS" run --runtime-all=soon x.fio
printf '[a]\nioengine=sim\nsize=1g\nruntime=60\ntime_based\n[b]\nioengine=sim\nsize=1m\n' >"$TMP/rt.fio"
"$IOQOS" run --runtime-all 250ms --output-format=json "$TMP/rt.fio" >"$TMP/rt.json" 2>&1 &&
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"]; assert j[0]["job_runtime"] == 250 and j[1]["read"]["io_bytes"] == 1 << 20, j' "$TMP/rt.json" &&
	ok "--runtime-all caps every job" || bad "--runtime-all: $(cat "$TMP/rt.json")"
# fio's --runtime is a global option: the job's own runtime= wins (fio 3.33)
printf '[a]\nioengine=sim\nsize=1g\nruntime=300ms\ntime_based\n[b]\nioengine=sim\nsize=1g\ntime_based\n' >"$TMP/rt2.fio"
"$IOQOS" run --runtime 200ms --output-format=json "$TMP/rt2.fio" >"$TMP/rt2.json" 2>&1 &&
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"]; assert [x["job_runtime"] for x in j] == [300, 200], j' "$TMP/rt2.json" &&
	ok "--runtime: a default, as fio's" || bad "--runtime: $(cat "$TMP/rt2.json")"

# a job file with every supported option parses, and check describes it
cat >"$TMP/all.fio" <<'E'
; every option ioqos accepts
[global]
ioengine=sim
direct=1
thread
group_reporting
rw=randrw
rwmixread=70
bs=4k,64k
size=64m
filesize=32m
offset=1m
iodepth=4
numjobs=2
runtime=10s
time_based
ramp_time=500ms
startdelay=0
randrepeat=1
randseed=42
norandommap
overwrite=1
file_service_type=random:36   # trailing comment
description=all options

[a]
name=alpha
filename=f1:f2
directory=/tmp
cgroup=x/y
cgroup_weight=300
rate=10m,2m
rate_iops=1000

[b]
new_group
rwmixwrite=10
prio=2
prioclass=2
readwrite=readwrite

[c]
stonewall
rw=write
blocksize=128k
E
if "$IOQOS" check "$TMP/all.fio" >"$TMP/out" 2>&1; then
	if grep -q 'job file, 3 jobs' "$TMP/out" &&
	   grep -q 'ioqos group /x/y, weight 300' "$TMP/out" &&
	   grep -q 'ioqos group /b, weight 150 (prio 2)' "$TMP/out" &&
	   grep -q 'randrw (70% reads), bs 4k read / 64k write, iodepth 4 x 2 clones' "$TMP/out" &&
	   grep -q 'rw (90% reads)' "$TMP/out" &&
	   grep -q 'reporting group 2 (group_reporting), waits for the jobs before it' "$TMP/out"; then
		ok "check job file"
	else
		bad "check job file:"; cat "$TMP/out"
	fi
else
	bad "check job file failed:"; cat "$TMP/out"
fi

# a qos config
printf '# limits\n/a rbps=50M weight=200\n/ depth=8\n' >"$TMP/good.qos"
if "$IOQOS" check "$TMP/good.qos" >"$TMP/out" 2>&1 &&
   grep -q 'ioqos config' "$TMP/out" && grep -q '^  /a: .*weight=200' "$TMP/out"; then
	ok "check qos config"
else
	bad "check qos config:"; cat "$TMP/out"
fi
printf '/a rbps=fast\n' >"$TMP/bad.qos"
expect_fail "check bad qos" "bad.qos:1" "$IOQOS" check "$TMP/bad.qos"

# job-file errors: the option and file:line are named
jf() { printf "$1" >"$TMP/j.fio"; }
jf '[a]\nrw=randread\nbsize=4k\n'
expect_fail "misspelt option" "j.fio:3: unknown or unsupported option 'bsize'" "$IOQOS" check "$TMP/j.fio"
jf '[a]\nzonemode=zbd\n'
expect_fail "unsupported fio option" "j.fio:2: zonemode=zbd: supported: none, strided" "$IOQOS" run --engine sim "$TMP/j.fio"
jf '[a]\nlockfile=exclusive\n'
expect_fail "fio option ioqos does not run" "j.fio:2: lockfile=exclusive: ioqos takes no file locks" "$IOQOS" check "$TMP/j.fio"
jf '[a]\nioengine=rdma\n'
expect_fail "engine ioqos cannot serve" "j.fio:2: ioengine=rdma: .*not the 'rdma' engine" "$IOQOS" check "$TMP/j.fio"
# the sim is a run's only engine: check says so, as run does
jf '[a]\nioengine=sync\nsize=1m\n[b]\nioengine=sim\nsize=1m\n'
expect_fail "the sim beside a real engine (check)" "j.fio:4: job 'b': the sim engine is a simulated device of its own, and job 'a' runs on the psync engine" "$IOQOS" check "$TMP/j.fio"
jf '[a]\nrw=randtrims\n'
expect_fail "an rw= fio has not" "j.fio:2: rw=randtrims: expected read, .*randtrimwrite" "$IOQOS" check "$TMP/j.fio"
jf '[a]\nsize=10q\n'
expect_fail "bad size" "j.fio:2: size=10q" "$IOQOS" check "$TMP/j.fio"
jf '[a]\niodepth=0\n'
expect_fail "iodepth 0" "j.fio:2: iodepth=0" "$IOQOS" check "$TMP/j.fio"
jf '[a]\nnumjobs=-1\n'
expect_fail "negative numjobs" "j.fio:2: numjobs=-1" "$IOQOS" check "$TMP/j.fio"
jf '[a]\nsize=0\n'
expect_fail "size 0" "size=0" "$IOQOS" check "$TMP/j.fio"
jf '[a]\nsize=4k\nbs=8k\n'
expect_fail "bs > size" "bs=8192 is larger than size=4096" "$IOQOS" check "$TMP/j.fio"
jf '[a]\nrw=randread:0\n'
expect_fail "rw modifier 0" "j.fio:2: rw=randread:0: ':N' is the number of I/Os" "$IOQOS" check "$TMP/j.fio"
jf '[a]\nrw=read:4q\n'
expect_fail "bad rw skip" "j.fio:2: rw=read:4q: ':N' is a size" "$IOQOS" check "$TMP/j.fio"
jf '[a]\nruntime=ten\n'
expect_fail "bad time" "j.fio:2: runtime=ten" "$IOQOS" check "$TMP/j.fio"
jf 'rw=read\n[a]\n'
expect_fail "option outside section" "j.fio:1: option 'rw=read' outside any section" "$IOQOS" run --engine sim "$TMP/j.fio"
jf '[a]\ntime_based\n'
expect_fail "time_based without runtime" "time_based needs runtime" "$IOQOS" check "$TMP/j.fio"
jf '[a]\nprioclass=4\n'
expect_fail "no class 4" "prioclass=4" "$IOQOS" check "$TMP/j.fio"
jf '[a]\nfilename=${IOQOS_TEST_UNSET}/x\n'
expect_fail "env var not set" "j.fio:2: filename=.*environment variable IOQOS_TEST_UNSET is not set" "$IOQOS" check "$TMP/j.fio"
jf '[a]\nfilename=${IOQOS_TEST_DIR}/x\nbs=${IOQOS_TEST_BS}\n'
IOQOS_TEST_DIR=/srv/d IOQOS_TEST_BS=16k "$IOQOS" check "$TMP/j.fio" >"$TMP/out" 2>&1 &&
	grep -q 'files: /srv/d/x' "$TMP/out" && grep -q 'bs 16k' "$TMP/out" &&
	ok "env vars expanded" || { bad "env vars expanded:"; cat "$TMP/out"; }

# every problem of a file at once, each naming its line; nothing on stdout
jf '[a]\nbsize=4k\nsize=10q\nzonemode=zbd\n[b]\niodepth=0\n[c]\ntime_based\n'
"$IOQOS" check "$TMP/j.fio" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc = 1 ] && [ ! -s "$TMP/out" ] && [ "$(wc -l <"$TMP/err")" = 4 ] &&
   grep -q "j.fio:2: unknown or unsupported option 'bsize'" "$TMP/err" &&
   grep -q "j.fio:3: size=10q" "$TMP/err" && grep -q "j.fio:4: zonemode=zbd" "$TMP/err" &&
   grep -q "j.fio:6: iodepth=0" "$TMP/err"; then
	ok "all parse errors at once"
else
	bad "all parse errors at once (exit $rc):"; cat "$TMP/err"
fi
jf '[a]\ntime_based\n[b]\nsize=4k\nbs=8k\n'
"$IOQOS" check "$TMP/j.fio" >"$TMP/out" 2>"$TMP/err"
[ "$(wc -l <"$TMP/err")" = 2 ] && grep -q "job 'a': time_based needs runtime" "$TMP/err" &&
	grep -q "job 'b': bs=8192 is larger than size=4096" "$TMP/err" &&
	ok "all job errors at once" || { bad "all job errors at once:"; cat "$TMP/err"; }

# fio's engines and what runs them
for e in libaio:io_uring posixaio:io_uring sync:psync vsync:psync pvsync:psync pvsync2:psync mmap:psync; do
	jf "[a]\nioengine=${e%%:*}\n"
	"$IOQOS" check "$TMP/j.fio" 2>&1 | grep -q "ioengine ${e%%:*}: runs on ioqos's ${e#*:} engine" &&
		ok "engine ${e%%:*} runs on ${e#*:}" || bad "engine ${e%%:*}"
done
jf '[a\nrw=read\n'
expect_fail "bad section" "j.fio:1: bad section header" "$IOQOS" check "$TMP/j.fio"
jf '[a]\nsize=1m\n[b]\nsize=1m\ncgroup=b\ncgroup_weight=100\n[c]\nsize=1m\ncgroup=b\ncgroup_weight=200\n'
expect_fail "conflicting weights" "group /b is given weight 100 and weight 200" "$IOQOS" run --engine sim "$TMP/j.fio"
expect_fail "missing job file" "nope.fio: No such file or directory" "$IOQOS" run --engine sim "$TMP/nope.fio"
jf '[a]\nsize=1m\ncgroup=a\n'
printf '/a rbps=1m\n/b rbps=1m\n' >"$TMP/unused.qos"
expect_fail "qos path no job uses" "unused.qos: group /b is used by no job" "$IOQOS" run --engine sim --qos "$TMP/unused.qos" "$TMP/j.fio"
expect_fail "missing qos file" "nope.qos" "$IOQOS" run --engine sim --qos "$TMP/nope.qos" "$TMP/j.fio"
expect_fail "bad device" "--device frob" "$IOQOS" run --engine sim --device frob "$TMP/j.fio"
printf 'channels=0\n' >"$TMP/bad.dev"
expect_fail "bad device file" "bad.dev:1: bad value channels=0" "$IOQOS" run --engine sim --device "$TMP/bad.dev" "$TMP/j.fio"
for v in 0 0.0 -1 1.2345 1e3 2x .5 1. 1001 fast ''; do
	printf 'lat=100us\nslowdown=%s\n' "$v" >"$TMP/bad.dev"
	expect_fail "slowdown=$v" "bad.dev:2: bad value slowdown=$v\$" "$IOQOS" run --engine sim --device "$TMP/bad.dev" "$TMP/j.fio"
done
printf 'slowdown_at=soon\nslowdown=2\n' >"$TMP/bad.dev"
expect_fail "slowdown_at=soon" "bad.dev:1: bad value slowdown_at=soon" "$IOQOS" run --engine sim --device "$TMP/bad.dev" "$TMP/j.fio"
printf '# when\nslowdown_at=5s\n' >"$TMP/bad.dev"
expect_fail "slowdown_at alone" "bad.dev:2: slowdown_at= needs slowdown=" "$IOQOS" run --engine sim --device "$TMP/bad.dev" "$TMP/j.fio"
# the speed over time: each bad value, and each key without the one it needs
while IFS='|' read -r body pat; do
	printf "$body" >"$TMP/bad.dev"
	expect_fail "device file: $(printf "$body" | tr '\n' ' ')" "$pat" \
		"$IOQOS" run --engine sim --device "$TMP/bad.dev" "$TMP/j.fio"
done <<'EOF'
drift=101\n|bad.dev:1: bad value drift=101$
drift=-1\n|bad.dev:1: bad value drift=-1$
drift=5%%\n|bad.dev:1: bad value drift=5%$
drift=5\ndrift_tau=0\n|bad.dev:2: bad value drift_tau=0$
drift=5\ndrift_tau=2h\n|bad.dev:2: bad value drift_tau=2h$
drift_tau=5ms\n|bad.dev:1: drift_tau= needs drift=PCT$
steps=3-2\n|bad.dev:1: bad value steps=3-2$
steps=0.5-2\n|bad.dev:1: bad value steps=0.5-2$
steps=2-\n|bad.dev:1: bad value steps=2-$
steps=2-3\nstep_every=0\n|bad.dev:2: bad value step_every=0$
steps=2-3\nstep_len=1ns\n|bad.dev:2: bad value step_len=1ns$
step_every=1s\n|bad.dev:1: step_every= needs steps=LO-HI$
speed_log=\n|bad.dev:1: bad value speed_log= \(expected
speed_log=nope.log\n|bad.dev:1: bad value speed_log=nope.log: .*/nope.log: No such file or directory$
curve=\n|bad.dev:1: bad value curve=: point 1 '': expected DEPTH:IOPS$
curve=8:57k,4:40k\n|bad.dev:1: bad value curve=8:57k,4:40k: point 2: depth '4' \(whole, 1 to 1048576, each above the one before\)$
curve=1:15k,1:20k\n|bad.dev:1: bad value curve=1:15k,1:20k: point 2: depth '1'
curve=0:15k\n|bad.dev:1: bad value curve=0:15k: point 1: depth '0'
curve=1.5:15k\n|bad.dev:1: bad value curve=1.5:15k: point 1: depth '1.5'
curve=1:0\n|bad.dev:1: bad value curve=1:0: point 1: IOPS '0' \(a number above 0
curve=1:-5\n|bad.dev:1: bad value curve=1:-5: point 1: IOPS '-5'
curve=1:15kk\n|bad.dev:1: bad value curve=1:15kk: point 1: IOPS '15kk'
curve=1:2000m\n|bad.dev:1: bad value curve=1:2000m: point 1: IOPS '2000m'
curve=1:15k,\n|bad.dev:1: bad value curve=1:15k,: point 2 '': expected DEPTH:IOPS$
curve=1:15k 8:57k\n|bad.dev:1: bad value curve=1:15k 8:57k: point 1: IOPS '15k 8:57k'
curve=1:1,2:1,3:1,4:1,5:1,6:1,7:1,8:1,9:1,10:1,11:1,12:1,13:1,14:1,15:1,16:1,17:1,18:1,19:1,20:1,21:1,22:1,23:1,24:1,25:1,26:1,27:1,28:1,29:1,30:1,31:1,32:1,33:1,34:1,35:1,36:1,37:1,38:1,39:1,40:1,41:1,42:1,43:1,44:1,45:1,46:1,47:1,48:1,49:1,50:1,51:1,52:1,53:1,54:1,55:1,56:1,57:1,58:1,59:1,60:1,61:1,62:1,63:1,64:1,65:1\n|bad.dev:1: bad value curve=.*: more than 64 points$
curve=1:15k\nsize_cost=0\n|bad.dev:2: bad value size_cost=0$
curve=1:15k\nwrite_cost=0\n|bad.dev:2: bad value write_cost=0$
curve=1:15k\nwrite_cost=1001\n|bad.dev:2: bad value write_cost=1001$
size_cost=64k\n|bad.dev:1: size_cost= needs curve=D:IOPS,...$
write_cost=2\n|bad.dev:1: write_cost= needs curve=D:IOPS,...$
channels=8\ncurve=1:15k\n|bad.dev:1: channels= is the channel device's: no meaning with curve= \(line 2\)$
curve=1:15k\nseek=5ms\n|bad.dev:2: seek= is the channel device's: no meaning with curve= \(line 1\)$
neighbour_depth=0\n|bad.dev:1: bad value neighbour_depth=0 \(1 to 4096\)$
neighbour_depth=4097\n|bad.dev:1: bad value neighbour_depth=4097 \(1 to 4096\)$
neighbour_depth=99999999999999999999999\n|bad.dev:1: bad value neighbour_depth=99999999999999999999999 \(1 to 4096\)$
neighbour_depth=8\nneighbour_bs=0\n|bad.dev:2: bad value neighbour_bs=0$
neighbour_depth=8\nneighbour_bs=4g\n|bad.dev:2: bad value neighbour_bs=4g$
neighbour_depth=8\nneighbour_rw=randrw\n|bad.dev:2: bad value neighbour_rw=randrw \(read, write, randread or randwrite\)$
neighbour_depth=8\nneighbour_at=later\n|bad.dev:2: bad value neighbour_at=later$
neighbour_depth=8\nneighbour_on=10us\n|bad.dev:2: bad value neighbour_on=10us$
neighbour_depth=8\nneighbour_on=1s\nneighbour_off=0\n|bad.dev:3: bad value neighbour_off=0$
neighbour_bs=64k\n|bad.dev:1: neighbour_bs= needs neighbour_depth=N$
neighbour_rw=read\n|bad.dev:1: neighbour_rw= needs neighbour_depth=N$
neighbour_at=1s\n|bad.dev:1: neighbour_at= needs neighbour_depth=N$
neighbour_on=1s\n|bad.dev:1: neighbour_on= needs neighbour_depth=N$
neighbour_depth=8\nneighbour_off=1s\n|bad.dev:2: neighbour_off= needs neighbour_on=DURATION$
neighbour_cost=2\n|bad.dev:1: neighbour_cost= needs neighbour_depth=N$
neighbour_depth=8\nneighbour_cost=2\n|bad.dev:2: neighbour_cost= needs curve=D:IOPS,...$
curve=1:1k\nneighbour_depth=8\nneighbour_cost=0\n|bad.dev:3: bad value neighbour_cost=0$
EOF
# the log's own errors name its file, line and value
while IFS='|' read -r body pat; do
	printf "$body" >"$TMP/bad.log"
	printf 'jitter=0\nspeed_log=bad.log\n' >"$TMP/bad.dev"
	expect_fail "speed log: $(printf "$body" | tr '\n' ' ')" \
		"bad.dev:2: bad value speed_log=bad.log: .*/bad.log$pat" \
		"$IOQOS" run --engine sim --device "$TMP/bad.dev" "$TMP/j.fio"
done <<'EOF'
|: no lines
500, 0\n1000, 0\n|: the values' mean is 0
500, 10\n500, 20\n|:2: time 500 ms is not after the line before's
0, 10\n|:1: time 0 ms: the first line's time must be above 0
500, 10\n1000, abc, 0\n|:2: bad value 'abc'
500, -3\n|:1: bad value '-3'
1.5, 10\n|:1: bad time '1.5'
1700000000000, 10\n|:1: bad time '1700000000000'
500 10\n|:1: expected 'msec, value, ...'
EOF
jf '[a]\nrw=read\n'
expect_fail "null needs size" "size= is needed with the null engine" "$IOQOS" run --engine null "$TMP/j.fio"
jf "[a]\nfilename=$TMP/missing.dat\nrw=read\n"
expect_fail "missing file, no size" "missing.dat: size= is needed" "$IOQOS" run --engine psync "$TMP/j.fio"
[ ! -e "$TMP/missing.dat" ] && ok "no file left by a failed job" || bad "a failed job left $TMP/missing.dat"
jf "[a]\nfilename=$TMP/nodir/x.dat\nsize=1m\n"
expect_fail "unwritable path" "nodir/x.dat: No such file or directory" "$IOQOS" run --engine psync "$TMP/j.fio"
finish
