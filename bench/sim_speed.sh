#!/bin/bash
# How fast the simulator runs: simulated I/Os per wall-clock second of
# `ioqos run --engine sim`, against the null engine on the same jobs in
# the same run (the controller and the front end with no device model),
# and, with perf, where the time goes: the library (src/), the simulator
# (sim.c, eng_sim.c) and the front end (the rest of tools/ioqos: the
# runner, its event queue, the statistics).
#
# The work: examples/2008-prio-25.fio (75 random 4 KiB readers in three
# weighted groups, iodepth 1) on the ssd preset, ten virtual minutes,
# about 64 million I/Os:
#   ioqos run examples/2008-prio-25.fio --engine sim --device ssd --runtime-all 600
# The target is 10 million simulated I/Os per second.  Wall-clock figures
# are noisy on a shared machine: each is the best of REPS runs, and the
# same per CPU second (user + sys) is given beside it.
#   bench/sim_speed.sh      (QUICK=1: 60 virtual s, one run; PERF=0: no perf)
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
bench_init

JOB=$TOP/examples/2008-prio-25.fio
VIRT=${VIRT:-$(pick 60 600)}          # virtual seconds of the sim run
NULLRT=${NULLRT:-$(pick 2 5)}         # wall seconds of the null run
REPS=${REPS:-$(pick 1 3)}
B=${B:-$TOP/build}

now_ns() { date +%s%N; }

# best_rate OUT ENGINE RUNTIME: the best I/Os per wall second of REPS runs,
# and the best per CPU second (user + sys: what the machine's other work
# does not take away), as "WALL CPU"
best_rate() {
	local out=$1 eng=$2 rt=$3 i t0 t1 ios rate crate best=0 cbest=0 dev=()
	[ "$eng" = sim ] && dev=(--device ssd)
	for ((i = 1; i <= REPS; i++)); do
		t0=$(now_ns)
		$PY cpu "$WORK/cpu" -- "$IOQOS" run "$JOB" --engine "$eng" "${dev[@]}" --runtime-all "$rt" \
			--output-format json > "$WORK/$eng.json" || die "ioqos --engine $eng failed"
		t1=$(now_ns)
		ios=$($PY device "$WORK/$eng.json" done)
		rate=$(awk -v n="$ios" -v t=$((t1 - t0)) 'BEGIN { printf "%.0f", n * 1e9 / t }')
		crate=$(awk -v n="$ios" -v c="$(cat "$WORK/cpu")" 'BEGIN { printf "%.0f", (c > 0 ? n / c : 0) }')
		note "$eng run $i: $ios I/Os in $(awk -v t=$((t1 - t0)) 'BEGIN { printf "%.2f", t / 1e9 }') s ($(cat "$WORK/cpu") s CPU): $rate I/Os/s"
		[ "$rate" -gt "$best" ] && best=$rate
		[ "$crate" -gt "$cbest" ] && cbest=$crate
	done
	echo "$best $cbest" > "$out"
}

say "### Simulator speed"
say ""
machine
say "command: ioqos run examples/2008-prio-25.fio --engine sim --device ssd --runtime-all $VIRT"
say "baseline: the same with --engine null --runtime-all $NULLRT (no device model, I/Os complete at once)"
say ""
best_rate "$WORK/sim.rate" sim "$VIRT"
best_rate "$WORK/null.rate" null "$NULLRT"
read -r sim simc < "$WORK/sim.rate"
read -r null nullc < "$WORK/null.rate"
ns() { awk -v r="$1" 'BEGIN { printf "%.1f", 1e9 / r }'; }
say "| engine | I/Os per wall second (best of $REPS) | ns per I/O | vs null | I/Os per CPU second | ns of CPU per I/O | vs null |"
say "|---|---|---|---|---|---|---|"
say "| sim (ssd preset) | $sim | $(ns "$sim") | $(pct "$sim" "$null") | $simc | $(ns "$simc") | $(pct "$simc" "$nullc") |"
say "| null | $null | $(ns "$null") | 100% | $nullc | $(ns "$nullc") | 100% |"
say ""
say "target (10 million simulated I/Os per wall second): $(awk -v r="$sim" 'BEGIN { print (r >= 1e7 ? "met" : "not met") }')"
say ""

# where a sim run's time goes, by the object file each sampled function
# comes from
if [ "${PERF:-1}" = 0 ]; then
	skip "the split by part: PERF=0"
elif ! have perf || ! perf record -q -o "$WORK/probe.data" true > /dev/null 2>&1; then
	skip "the split by part: perf is missing or may not sample here (apt-get install linux-perf)"
elif ! ls "$B"/lib/*.o "$B"/tools/ioqos/sim/sim.o > /dev/null 2>&1; then
	skip "the split by part: no object files in $B (make cli)"
else
	perf record -q -F 1999 -o "$WORK/perf.data" "$IOQOS" run "$JOB" --engine sim --device ssd \
		--runtime-all "$(pick 60 120)" > /dev/null 2>&1 || die "perf record failed"
	perf report -i "$WORK/perf.data" --no-children --sort sym -F overhead,sym --stdio \
		> "$WORK/perf.txt" 2> /dev/null
	lib=$(echo "$B"/lib/*.o | tr ' ' ',')
	simobj="$B/tools/ioqos/sim/sim.o,$B/tools/ioqos/engines/eng_sim.o"
	front=$(ls "$B"/tools/ioqos/*.o "$B"/tools/ioqos/*/*.o | grep -v -e '/san/' -e '/tsan/' \
		-e '/sim/sim\.o$' -e '/eng_sim\.o$' | tr '\n' ',')
	$PY perf-split "$WORK/perf.txt" "library=$lib" "simulator=$simobj" "front end=${front%,}" \
		> "$WORK/split.txt"
	say "Where a sim run's time goes (perf samples by the object file of each function):"
	say ""
	say "| part | share of the time | ns of CPU per simulated I/O |"
	say "|---|---|---|"
	while read -r line; do
		part=${line% *}
		share=${line##* }
		say "| $part | $share% | $(awk -v s="$share" -v r="$simc" 'BEGIN { printf "%.1f", s / 100 * 1e9 / r }') |"
	done < "$WORK/split.txt"
	say ""
fi
