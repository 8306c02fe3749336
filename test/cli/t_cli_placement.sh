#!/bin/sh
# CPU and NUMA placement (placement.c): the syntax of cpus_allowed=,
# cpumask=, cpus_allowed_policy=, numa_cpu_nodes= and numa_mem_policy= in
# `ioqos check`; at run time the threads' affinity read from
# /proc/PID/task/*/status while the jobs run, the buffers' policy read
# from /proc/PID/numa_maps, and CPUs and nodes this machine does not have
# refused, naming the option and the value.  fio's examples/numa.fio (its
# jobs, on a scratch file) runs where nodes 0 and 1 exist and is refused
# naming node 1 where they do not.
. "$(dirname "$0")/lib.sh"

own=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
cpu0=$(echo "$own" | sed 's/[-,].*//')
ncpu=$(nproc)
nodes=$(cat /sys/devices/system/node/online 2>/dev/null || echo "")

# ---- syntax (check) --------------------------------------------------------
printf '[a]\nfilename=%s/x\nsize=1m\ncpus_allowed=0-1,5\ncpus_allowed_policy=split\n[b]\nfilename=%s/x\nsize=1m\ncpumask=0x3\nnuma_cpu_nodes=!0\nnuma_mem_policy=interleave\n[c]\nfilename=%s/x\nsize=1m\nnuma_cpu_nodes=all\nnuma_mem_policy=prefer:0\n[d]\nfilename=%s/x\nsize=1m\nnuma_mem_policy=bind:0-1,3\n[e]\nfilename=%s/x\nsize=1m\nnuma_mem_policy=local\n' \
	"$TMP" "$TMP" "$TMP" "$TMP" "$TMP" >"$TMP/ok.fio"
if "$IOQOS" check "$TMP/ok.fio" >"$TMP/out" 2>&1; then
	ok "check: the five options in each form fio takes"
else
	bad "check refused good placement:"; cat "$TMP/out"
fi
refuse() { # option=value reason-pattern
	printf '[a]\nfilename=%s/x\nsize=1m\n%s\n' "$TMP" "$1" >"$TMP/bad.fio"
	expect_fail "check: $1" "bad.fio:4: ${1%%=*}=.*$2" "$IOQOS" check "$TMP/bad.fio"
}
refuse "cpus_allowed=a" "a list of CPUs"
refuse "cpus_allowed=3-1" "low to high"
refuse "cpus_allowed=0,,1" "a list of CPUs"
refuse "cpus_allowed=1024" "0..1023"
refuse "cpumask=0" "mask of CPUs 0..31"
refuse "cpumask=0x100000000" "mask of CPUs 0..31"
refuse "cpus_allowed_policy=spread" "shared or split"
refuse "numa_cpu_nodes=+0" "relative to the cpuset"
refuse "numa_mem_policy=prefer:0-1" "one node"
refuse "numa_mem_policy=bind" "node list is needed"
refuse "numa_mem_policy=local:0" "no node list"
refuse "numa_mem_policy=near:0" "default, prefer, bind"

# ---- threads, while they run ----------------------------------------------
# Each run lasts a minute and is stopped (SIGTERM: exit 128) once what it
# is checked for shows, read again every 50 ms while it runs: a loaded
# machine may start it late and place its threads late, and a run of a
# second and a half ended before a reading now and then.
dd if=/dev/zero of="$TMP/data" bs=1M count=4 status=none
# affinity PID: the affinity of each of PID's threads, "TID LIST" a line
affinity() {
	for t in /proc/"$1"/task/*; do
		echo "${t##*/} $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$t/status" 2>/dev/null)"
	done
}
# settle PID THREADS CHECK: PID's threads' affinity in $TMP/aff, read until
# THREADS of them exist and CHECK holds, or PID ends; then PID is stopped,
# its status in $rc
settle() {
	while kill -0 "$1" 2>/dev/null; do
		affinity "$1" >"$TMP/aff"
		[ "$(wc -l <"$TMP/aff")" -ge "$2" ] && "$3" && break
		sleep 0.05
	done
	kill -TERM "$1" 2>/dev/null
	wait "$1"
	rc=$?
}
job() { # name engine extra...
	n=$1 e=$2
	shift 2
	printf '[%s]\nioengine=%s\nfilename=%s/data\nsize=4m\ndirect=0\nrw=randread\nruntime=60\ntime_based\n' \
		"$n" "$e" "$TMP"
	for o in "$@"; do echo "$o"; done
}

# psync: a thread per job; only the one of cpus_allowed= is placed
{ job a psync "cpus_allowed=$cpu0"; job b psync; } >"$TMP/p.fio"
psync_placed() {
	placed=$(awk -v c="$cpu0" '$2 == c' "$TMP/aff" | wc -l)
	main=$(awk -v p=$pid '$1 == p { print $2 }' "$TMP/aff")
	if [ "$ncpu" -gt 1 ]; then
		[ "$placed" = 1 ] && [ "$main" = "$own" ]
	else
		[ "$placed" -ge 1 ]
	fi
}
"$IOQOS" run "$TMP/p.fio" >"$TMP/p.out" 2>&1 &
pid=$!
settle $pid 3 psync_placed
if [ "$ncpu" -gt 1 ] && ! psync_placed; then
	bad "psync cpus_allowed=$cpu0: one worker on CPU $cpu0, the rest on $own:"; cat "$TMP/aff"
elif ! psync_placed; then
	bad "psync cpus_allowed=$cpu0: no thread on CPU $cpu0:"; cat "$TMP/aff"
elif [ $rc != 128 ]; then
	bad "psync cpus_allowed=$cpu0: exit $rc"; cat "$TMP/p.out"
else
	ok "psync: job a's thread on CPU $cpu0 ($(wc -l <"$TMP/aff") threads: $(awk '{print $2}' "$TMP/aff" | tr '\n' ' '))"
fi

# io_uring: the loop's thread takes the job's CPUs
job a io_uring "cpumask=$((1 << cpu0))" >"$TMP/u.fio"
loop_placed() { [ "$(awk -v p=$pid '$1 == p { print $2 }' "$TMP/aff")" = "$cpu0" ]; }
"$IOQOS" run "$TMP/u.fio" >"$TMP/u.out" 2>&1 &
pid=$!
settle $pid 1 loop_placed
main=$(awk -v p=$pid '$1 == p { print $2 }' "$TMP/aff")
if [ $rc = 128 ] && [ "$main" = "$cpu0" ]; then
	ok "io_uring: cpumask=$((1 << cpu0)) puts the loop's thread on CPU $cpu0"
else
	bad "io_uring cpumask: exit $rc, loop thread on '$main':"; cat "$TMP/aff" "$TMP/u.out"
fi

if [ "$ncpu" -ge 2 ]; then
	c1=$(awk -v o="$own" 'BEGIN { n = split(o, p, ","); for (i = 1; i <= n; i++) {
		if (split(p[i], r, "-") == 2) { for (c = r[1]; c <= r[2]; c++) l = l c " " }
		else l = l p[i] " " } print l }' | awk '{ print $2 }')
	# split: clone k on the k-th CPU of the set, each on a thread (psync) ...
	job a psync "numjobs=2" "cpus_allowed=$cpu0,$c1" "cpus_allowed_policy=split" >"$TMP/s.fio"
	want=$(printf '%s\n%s\n' "$cpu0" "$c1" | sort | tr '\n' ' ')
	workers() { awk -v p=$pid '$1 != p { print $2 }' "$TMP/aff" | sort | tr '\n' ' '; }
	split_placed() { [ "$(workers)" = "$want" ]; }
	"$IOQOS" run "$TMP/s.fio" >"$TMP/s.out" 2>&1 &
	pid=$!
	settle $pid 3 split_placed
	got=$(workers)
	if [ $rc = 128 ] && [ "$got" = "$want" ]; then
		ok "psync split: the clones on CPUs $got"
	else
		bad "psync split: exit $rc, workers on '$got', want '$want':"; cat "$TMP/aff"
	fi
	# ... and refused where the clones share the loop's one thread
	job a io_uring "numjobs=2" "cpus_allowed=$cpu0,$c1" "cpus_allowed_policy=split" >"$TMP/s.fio"
	expect_fail "io_uring split: two clones, one thread" \
		"job 'a' \\(clone 1\\) is on CPUs $c1, .* on CPUs $cpu0: the io_uring engine runs them together on one thread" \
		"$IOQOS" run "$TMP/s.fio"
fi

# ---- memory: mbind(2) on the buffers ---------------------------------------
if [ -n "$nodes" ] && [ -r /proc/self/numa_maps ]; then
	n0=$(echo "$nodes" | sed 's/[-,].*//')
	{ job a psync "bs=64k" "numa_mem_policy=bind:$n0"; } >"$TMP/m.fio"
	# the one buffer of 64 KiB: 16 pages of 4 KiB bound to the node, once
	# the worker has read into it
	bound() {
		grep "bind:$n0 " "/proc/$pid/numa_maps" >"$TMP/maps" 2>/dev/null
		grep -Eq "bind:$n0 anon=16 .*N$n0=16" "$TMP/maps"
	}
	"$IOQOS" run "$TMP/m.fio" >"$TMP/m.out" 2>&1 &
	pid=$!
	settle $pid 2 bound
	if [ $rc = 128 ] && grep -Eq "bind:$n0 anon=16 .*N$n0=16" "$TMP/maps"; then
		ok "numa_mem_policy=bind:$n0: the 64 KiB buffer's pages on node $n0"
	else
		bad "numa_mem_policy=bind:$n0: exit $rc, maps:"; cat "$TMP/maps" "$TMP/m.out"
	fi
else
	skip_part "memory policy: no NUMA nodes in /sys or no numa_maps"
fi

# ---- what the machine does not have ----------------------------------------
job a psync "cpus_allowed=1023" >"$TMP/c.fio"
expect_fail "run: a CPU that does not exist" \
	"c.fio:1: job 'a': cpus_allowed=1023: CPU 1023 does not exist or is not one ioqos may run on \\(CPUs $own\\)" \
	"$IOQOS" run "$TMP/c.fio"
job a psync "numa_cpu_nodes=1000" >"$TMP/c.fio"
expect_fail "run: a node that does not exist" \
	"job 'a': numa_cpu_nodes=1000: (node 1000 does not exist \\(this machine has nodes? $nodes\\)|this machine shows no NUMA nodes)" \
	"$IOQOS" run "$TMP/c.fio"
job a psync "numa_mem_policy=interleave:999" >"$TMP/c.fio"
expect_fail "run: numa_mem_policy on a node that does not exist" \
	"numa_mem_policy=interleave:999: (node 999 does not exist|this machine shows no NUMA nodes)" \
	"$IOQOS" run "$TMP/c.fio"

# fio's examples/numa.fio, on a scratch file for 100 ms (buffered where
# the filesystem has no O_DIRECT, as tmpfs)
buffered=0
dd if=/dev/zero of="$TMP/direct" bs=4k count=1 oflag=direct status=none 2>/dev/null ||
	buffered=1
cat >"$TMP/numa.fio" <<EOF
[global]
ioengine=libaio
buffered=$buffered
rw=randread
bs=512K
iodepth=16
size=4m
filename=$TMP/data
runtime=100ms
time_based

[job1]
numa_cpu_nodes=0
numa_mem_policy=bind:0

[job2]
numa_cpu_nodes=0-1
numa_mem_policy=interleave:0-1
EOF
if [ -d /sys/devices/system/node/node0 ] && [ -d /sys/devices/system/node/node1 ]; then
	if "$IOQOS" run "$TMP/numa.fio" >"$TMP/out" 2>&1 && grep -q '^job2: ' "$TMP/out"; then
		ok "numa.fio runs (nodes 0 and 1 exist)"
	else
		bad "numa.fio with nodes 0 and 1:"; cat "$TMP/out"
	fi
else
	expect_fail "numa.fio refused: no node 1" \
		"numa.fio:1[0-9]: job '(job1|job2)': numa_cpu_nodes=0(-1)?: (node [01] does not exist|this machine shows no NUMA nodes)" \
		"$IOQOS" run "$TMP/numa.fio"
fi
finish
