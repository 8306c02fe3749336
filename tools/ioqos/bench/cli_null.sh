#!/bin/bash
# ioqos run against fio on the null engine: the controller's cost per I/O
# as a load generator sees it.  The same job (4k randread, iodepth 32,
# numjobs 1, size 1G) runs under fio and under ioqos, alternately, REPS
# times; the table gives median IOPS and the ratio (target: ioqos >= 80%
# of fio).  ioqos runs it twice: in the root group (no settings at all)
# and in a group /a/b under a depth-limited root with weights, so that
# both stages of the controller work on every request.
#   tools/ioqos/bench/cli_null.sh            (QUICK=1 for a smoke test)
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../../../bench/lib.sh"
bench_init
have fio || { skip "fio is not installed (apt-get install fio)"; exit 0; }

RUNTIME=${RUNTIME:-$(pick 2 10)}
REPS=${REPS:-$(pick 1 5)}
BS=${BS:-4k}
DEPTH=${DEPTH:-32}

job() { # $1 = extra line
	cat <<JOB
[global]
ioengine=null
rw=randread
bs=$BS
iodepth=$DEPTH
numjobs=1
size=1g
runtime=$RUNTIME
time_based
[null]
$1
JOB
}
job "" > "$WORK/fio.fio"
job "" > "$WORK/root.fio"
job "cgroup=a/b" > "$WORK/ab.fio"
printf '/ depth=64\n/a weight=300\n/a/b weight=100\n' > "$WORK/ab.qos"

f=() r=() g=()
for ((i = 1; i <= REPS; i++)); do
	fio --output-format=json "$WORK/fio.fio" > "$WORK/f$i.json" || die "fio failed"
	ioqos_run "$WORK/root.fio" --output-format json > "$WORK/r$i.json" || die "ioqos failed"
	ioqos_run "$WORK/ab.fio" --qos "$WORK/ab.qos" --output-format json > "$WORK/g$i.json" || die "ioqos failed"
	f+=("$($PY job "$WORK/f$i.json" '*' iops)")
	r+=("$($PY job "$WORK/r$i.json" '*' iops)")
	g+=("$($PY job "$WORK/g$i.json" '*' iops)")
	note "rep $i: fio ${f[-1]}  ioqos / ${r[-1]}  ioqos /a/b ${g[-1]}"
done
fm=$($PY median "${f[@]}"); rm=$($PY median "${r[@]}"); gm=$($PY median "${g[@]}")

say "### null engine: ioqos run vs fio (bs=$BS, iodepth=$DEPTH, numjobs=1, ${RUNTIME} s, median of $REPS)"
say ""
machine
say "command: ${0#$TOP/} (REPS=$REPS RUNTIME=$RUNTIME)"
say ""
say "| runner | IOPS (median) | runs | vs fio |"
say "|---|---|---|---|"
say "| $(fio --version), ioengine=null | $(ints "$fm") | $(ints "${f[@]}") | 100% |"
say "| ioqos run, group / (no settings) | $(ints "$rm") | $(ints "${r[@]}") | $(pct "$rm" "$fm") |"
say "| ioqos run, group /a/b, depth=64, weights | $(ints "$gm") | $(ints "${g[@]}") | $(pct "$gm" "$fm") |"
say ""
awk -v f="$fm" -v r="$rm" -v g="$gm" 'BEGIN { ok = (r >= 0.8 * f && g >= 0.8 * f); print (ok ? "target (>= 80% of fio): met" : "target (>= 80% of fio): NOT met") }'
