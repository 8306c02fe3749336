#!/bin/bash
# ioqos run beside fio on the same job as the threads grow: psync 4 KiB
# random reads of a file in the page cache, T jobs (threads in both tools),
# T = 1, 2, 4, 8, 16, in four cases:
#
#   one        every job in /a, nothing set: the controller's cost alone
#   two        the jobs split between /a weight=300 and /b weight=100
#              (even jobs in /a, odd in /b; from 2 threads)
#   one, lim   as one, under "/ riops=LIMIT" (binding: a thread alone does
#              more); fio's jobs each at rate_iops=LIMIT/T
#   two, lim   as two, under the same limit: /a's share says whether the
#              3:1 holds where the limit is the bottleneck
#
# Each case is REPS pairs of runs back to back, fio first in odd pairs and
# ioqos first in even ones (with IOQOS_BASE, a third run of that build,
# the one whose threads took one mutex per request, in turn with them);
# the figures are medians, and the ratio the median of the pairs' own.
# Nothing is asserted.
#
#   bench/threads.sh      (QUICK=1: 1 s runs, 1 and 2 threads; THREADS="1 2"
#                          REPS=3 RUNTIME=3 LIMIT=100000 IOQOS_BASE=path)
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
bench_init
need fio "apt-get install fio"

RUNTIME=${RUNTIME:-$(pick 1 3)}
REPS=${REPS:-$(pick 1 3)}
THREADS=${THREADS:-$(pick "1 2" "1 2 4 8 16")}
LIMIT=${LIMIT:-100000}
CASES=${CASES:-"one two one-lim two-lim"}
BASE=${IOQOS_BASE:-}
# a file in the page cache: tmpfs where there is one
SHM=${SHM:-/dev/shm}
[ -d "$SHM" ] && [ -w "$SHM" ] || SHM=$WORK
DATA=$(mktemp "$SHM/ioqos-threads.XXXXXX") || die "no file in $SHM"
trap 'rm -f "$DATA"; bench_cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
head -c $((256 << 20)) /dev/zero > "$DATA" || die "cannot fill $DATA"

# job CASE T TOOL: the job file (TOOL fio: no cgroup=, the limit as
# rate_iops= on each job)
job() {
	local c=$1 t=$2 tool=$3 na nb
	if [ "${c%-lim}" = two ]; then na=$(((t + 1) / 2)); nb=$((t / 2)); else na=$t; nb=0; fi
	printf '[global]\nioengine=psync\nrw=randread\nbs=4k\nsize=256m\nfilename=%s\n' "$DATA"
	printf 'runtime=%s\ntime_based\nthread\nnorandommap\n' "$RUNTIME"
	if [ "$tool" = fio ] && [ "${c#*-}" = lim ]; then
		printf 'rate_iops=%d\n' $((LIMIT / t))
	fi
	for g in a b; do
		local n=$na; [ $g = b ] && n=$nb
		[ "$n" -gt 0 ] || continue
		printf '[%s]\nnumjobs=%d\n' $g "$n"
		[ "$tool" = fio ] || printf 'cgroup=%s\n' $g
	done
}
qos() {
	local c=$1
	[ "${c#*-}" = lim ] && echo "/ riops=$LIMIT"
	if [ "${c%-lim}" = two ]; then echo "/a weight=300"; echo "/b weight=100"; else echo "/a"; fi
}
# iops JSON [JOB]: read IOPS of every job (or of the jobs named JOB)
iops() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(j["read"]["iops"] for j in d["jobs"] if len(sys.argv) < 3 or j["jobname"] == sys.argv[2]))' "$@"
}
med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print 0; else printf "%.4f\n", a / b }'; }

one_run() { # TOOL CASE T: IOPS, and /a's
	local tool=$1 c=$2 t=$3 bin
	case $tool in
	fio) fio f.fio --output-format=json > o.json 2>o.err || die "fio: $(cat o.err)" ;;
	*) bin=$IOQOS; [ "$tool" = base ] && bin=$BASE
	   "$bin" run q.fio --qos q.qos --output-format json > o.json 2>o.err ||
		die "ioqos: $(cat o.err)" ;;
	esac
	echo "$(iops o.json) $(iops o.json a)"
}

say "### ioqos run beside fio: psync threads on a page-cached file"
say ""
machine
say "command: ${0#$TOP/} (THREADS=\"$THREADS\" REPS=$REPS RUNTIME=$RUNTIME LIMIT=$LIMIT${BASE:+ IOQOS_BASE=mutex build})"
say ""
hdr="| case | threads | fio IOPS | ioqos IOPS | ioqos/fio (pairs' median) |"
sep="|---|---|---|---|---|"
if [ -n "$BASE" ]; then hdr="$hdr mutex build IOPS | mutex/fio |"; sep="$sep---|---|"; fi
say "$hdr /a's share (ioqos) |"
say "$sep---|"
cd "$WORK" || die "no work directory"
for c in $CASES; do
	for t in $THREADS; do
		[ "${c%-lim}" = two ] && [ "$t" -lt 2 ] && continue
		job "$c" "$t" fio > f.fio
		job "$c" "$t" ioqos > q.fio
		qos "$c" > q.qos
		F=() Q=() B=() R=() RB=() S=()
		for ((k = 0; k < REPS; k++)); do
			note "$c, $t threads, pair $((k + 1)) of $REPS"
			order="fio ioqos${BASE:+ base}"
			[ $((k % 2)) = 1 ] && order="ioqos${BASE:+ base} fio"
			for tool in $order; do
				read -r v a <<< "$(one_run "$tool" "$c" "$t")"
				case $tool in
				fio) f=$v ;;
				ioqos) qv=$v; S+=("$(ratio "$a" "$v")") ;;
				base) bv=$v ;;
				esac
			done
			F+=("$f"); Q+=("$qv"); R+=("$(ratio "$qv" "$f")")
			if [ -n "$BASE" ]; then B+=("$bv"); RB+=("$(ratio "$bv" "$f")"); fi
		done
		row="| $c | $t | $(ints "$(med "${F[@]}")") | $(ints "$(med "${Q[@]}")") | $(med "${R[@]}") |"
		[ -n "$BASE" ] && row="$row $(ints "$(med "${B[@]}")") | $(med "${RB[@]}") |"
		share="-"
		[ "${c%-lim}" = two ] && share=$(awk -v s="$(med "${S[@]}")" 'BEGIN { printf "%.1f%%", 100 * s }')
		say "$row $share |"
	done
done
say ""
say "ioqos/fio: the median of the pairs' ratios; one-lim and two-lim hold the"
say "controller at riops=$LIMIT (fio: rate_iops=$LIMIT/T per job); /a's share"
say "is of the IOPS of both groups (the weights say 75%)."
