#!/bin/bash
# Scaling of ioqos run with the number of groups and the request rate.
#
# 1. Throughput: N groups (one job each, 4k randread, iodepth 1), null
#    engine, RUNTIME s: total IOPS with no settings, with a limit on every
#    group that never binds (the limit path runs on every request), and
#    with weights and / depth=N/2 (the controller holds half and picks by
#    weight at every release).
# 2. Accuracy: N groups on the simulated SSD (virtual time, 60 s), every
#    group limited to an equal part of half the device's bandwidth: the
#    aggregate against the sum of the limits, and the worst group's error
#    in requests.
# 3. Request rate: one group, null engine, an I/O limit from 10^4 IOPS up
#    to past the engine's ceiling: achieved against the limit.
#
#   bench/scaling.sh       (QUICK=1: fewer sizes, 1 s runs; GROUPS_T="10 100
#                           1000" and GROUPS_A="10 1000 100000" choose N)
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
bench_init

RUNTIME=${RUNTIME:-$(pick 1 3)}
GROUPS_T=${GROUPS_T:-$(pick "10 1000" "10 100 1000 10000")}
GROUPS_A=${GROUPS_A:-$(pick "10 1000" "10 1000 100000")}
RATES=${RATES:-$(pick "100000 1000000" "10000 100000 1000000 3000000 10000000 30000000")}

# jobs N ENGINE RUNTIME [bs]: N jobs, each in group /gI
jobs() {
	python3 - "$@" <<'PY'
import sys
n, eng, rt = int(sys.argv[1]), sys.argv[2], sys.argv[3]
out = ['[global]', 'ioengine=' + eng, 'rw=randread', 'bs=4k', 'iodepth=1',
       'size=64m', 'filename=scale.dat' if eng == 'sim' else 'size=64m',
       'runtime=' + rt, 'time_based', 'group_reporting']
for i in range(n):
    out += ['[g%d]' % i, 'cgroup=g%d' % i]
print('\n'.join(out))
PY
}
qos_each() { # N LINE-SUFFIX [root line]: one line per group
	[ -n "$3" ] && echo "$3"
	awk -v n="$1" -v s="$2" 'BEGIN { for (i = 0; i < n; i++) printf "/g%d %s\n", i, s }'
}

say "### Scaling"
say ""
machine
say "command: ${0#$TOP/} (RUNTIME=$RUNTIME GROUPS_T=\"$GROUPS_T\" GROUPS_A=\"$GROUPS_A\")"
say ""
say "Throughput, null engine, one job (iodepth 1) per group, ${RUNTIME} s; wall s includes parsing and setup:"
say ""
say "| groups | no settings IOPS | wall s | rbps=1T on every group IOPS | wall s | weights, / depth=N/2 IOPS | wall s |"
say "|---|---|---|---|---|---|---|"
cd "$WORK" || die "no work directory"
for n in $GROUPS_T; do
	jobs "$n" null "$RUNTIME" > t.fio
	qos_each "$n" "rbps=1T" > lim.qos
	awk -v n="$n" 'BEGIN { d = int(n / 2); if (d < 1) d = 1; printf "/ depth=%d\n", d; for (i = 0; i < n; i++) printf "/g%d weight=%d\n", i, 50 + (i % 4) * 50 }' > w.qos
	row="| $n |"
	for q in "" lim.qos w.qos; do
		note "throughput: $n groups ${q:-no settings}"
		t0=$(date +%s.%N)
		if [ -n "$q" ]; then ioqos_run t.fio --qos "$q" --output-format json > t.json
		else ioqos_run t.fio --output-format json > t.json; fi || die "ioqos failed"
		t1=$(date +%s.%N)
		row="$row $(ints "$($PY job t.json '*' iops)") | $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') |"
	done
	say "$row"
done
say ""

say "Accuracy, sim engine (--device ssd, seed 1), 60 virtual s, every group limited to (half the device's 4k random-read rate) / N; error of the worst group in 4 KiB requests over the run:"
say ""
say "| groups | limit per group (B/s) | aggregate achieved / sum of limits | worst group (requests) | wall s |"
say "|---|---|---|---|---|"
# the sim SSD's saturated 4k random-read rate: about 420 MiB/s; use half
TOTAL=$((210 * 1024 * 1024))
for n in $GROUPS_A; do
	per=$((TOTAL / n))
	jobs "$n" sim 60 > a.fio
	qos_each "$n" "rbps=$per" > a.qos
	note "accuracy: $n groups"
	t0=$(date +%s.%N)
	ioqos_run a.fio --qos a.qos --device ssd --seed 1 --output-format json > a.json || die "ioqos failed"
	t1=$(date +%s.%N)
	python3 - a.json "$per" "$n" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" <<'PY' >> "$WORK/acc.md"
import json, sys
d = json.load(open(sys.argv[1]))
per, n, wall = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
win = d['ioqos']['window_ns'] / 1e9
tot, worst = 0, 0.0
for g in d['ioqos']['groups']:
    if g['path'] == '/':
        continue
    b = g['read']['io_bytes']
    tot += b
    e = (b - per * win) / 4096.0
    if abs(e) > abs(worst):
        worst = e
print('| %d | %d | %.4f%% | %+.1f | %s |' % (n, per, 100.0 * tot / (per * n * win), worst, wall))
PY
	tail -1 "$WORK/acc.md" | while read -r l; do say "$l"; done
done
say ""

say "Request rate, null engine, one job (4k randread, iodepth 32) in /, riops limit on /, ${RUNTIME} s:"
say ""
say "| riops limit | achieved IOPS | error |"
say "|---|---|---|"
cat > r.fio <<JOB
[global]
ioengine=null
rw=randread
bs=4k
iodepth=32
size=1g
runtime=$RUNTIME
time_based
[r]
JOB
for l in $RATES max; do
	echo "/ riops=$l" > r.qos
	note "rate: riops=$l"
	ioqos_run r.fio --qos r.qos --output-format json > r.json || die "ioqos failed"
	a=$($PY job r.json '*' iops)
	if [ "$l" = max ]; then say "| max (the engine's ceiling) | $(ints "$a") | - |"
	else say "| $l | $(ints "$a") | $(err "$a" "$l") |"; fi
done
say ""
