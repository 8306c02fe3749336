#!/bin/bash
# A light tenant beside heavy ones: L, one job of 4 KiB random reads at
# iodepth 1, beside A (weight 300) and B (100), 4 jobs x iodepth 16 each,
# all through one controller.  The rows of every set, in this order:
#   alone   L by itself (its idle latency: the target of lat2x is twice
#           this set's p99)
#   max     / depth=max (every request out: the device's queue decides)
#   auto    nothing written (the depth's rule gives auto for the weights)
#   lat2x   /L latency= twice L's idle p99 of the same set
#   lat500  /L latency=500us
#   dN      / depth=N, for N in DEPTHS: the fixed depths, whose best that
#           meets a target is the ceiling of that target's row
# Then bench/light.py gives the medians of every row over the sets and,
# for each target, L's p99 over it, the aggregate over the best fixed
# depth that meets the same target in the same set, and A's share.
#
#   sim    the simulator, SEEDS (20) seeds of each device of SIM_DEVS
#          (default: ssd, nvme, this disk's curve and a drifting drive
#          with a bursting neighbour), SIM_RUNTIME (3) s of virtual time
#   disk   io_uring, O_DIRECT, a file of SIZE_MB (1024) MiB of this
#          machine's disk; REPS (8) rounds of RUNTIME (4) s a run, every
#          round the same rows in the same order
#
#   bench/light.sh [sim|disk|all]     (QUICK=1: 3 seeds, 2 rounds)
# Targets (issue: a light tenant that stays fast): L's p99 at most the
# target + 10%, the aggregate at least 95% of the best fixed depth that
# meets the same target, A:B 75 +- 3.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
bench_init
need python3 "apt-get install python3"

WHAT=${1:-all}
SEEDS=${SEEDS:-$(pick 3 20)}
SIM_DEVS=${SIM_DEVS:-ssd nvme examples/sim/vmdisk.dev examples/sim/curve-neighbour.dev}
SIM_RUNTIME=${SIM_RUNTIME:-3}
REPS=${REPS:-$(pick 2 8)}
RUNTIME=${RUNTIME:-$(pick 2 4)}
SIZE_MB=${SIZE_MB:-1024}
DEPTHS=${DEPTHS:-4 6 8 10 12 16 24 32 48}
PY=$(dirname "$0")/light.py

# job ENGINE RUNTIME EXTRA [L only]: the job file
job() {
	printf '[global]\nioengine=%s\nrw=randread\nbs=4k\nruntime=%s\ntime_based\nlat_percentiles=1\n%s\n' "$1" "$2" "$3"
	[ -n "$4" ] || printf '[A]\ncgroup=A\ncgroup_weight=300\niodepth=16\nnumjobs=4\n[B]\ncgroup=B\ncgroup_weight=100\niodepth=16\nnumjobs=4\n'
	printf '[L]\ncgroup=L\niodepth=1\n'
}

# row_qos ROW TARGET: the settings of a row
row_qos() {
	case $1 in
	max)    echo "/ depth=max" ;;
	lat*)   echo "/L latency=${2}us" ;;
	d*)     echo "/ depth=${1#d}" ;;
	esac
}

# set_rows SET ARGS...: every row of one set, each line of $WORK/figs
# "SET ROW LMEAN LP99 AGG ASHARE [TARGET]"; ARGS go to ioqos run
set_rows() {
	local set=$1 row tgt idle
	shift
	"$IOQOS" run "$WORK/alone.fio" "$@" --output-format=json > "$WORK/run.json" ||
		die "ioqos run failed (alone, $set)"
	read -r _ idle _ < <($PY fig "$WORK/run.json")
	echo "$set alone $($PY fig "$WORK/run.json")" >> "$WORK/figs"
	for row in max auto lat2x lat500 $(printf 'd%s ' $DEPTHS); do
		tgt=
		case $row in
		lat2x)  tgt=$(awk -v p="$idle" 'BEGIN { printf "%.0f", 2 * p }') ;;
		lat500) tgt=500 ;;
		esac
		row_qos "$row" "$tgt" > "$WORK/row.qos"
		"$IOQOS" run "$WORK/mixed.fio" --qos "$WORK/row.qos" "$@" --output-format=json \
			> "$WORK/run.json" || die "ioqos run failed ($row, $set)"
		echo "$set $row $($PY fig "$WORK/run.json") $tgt" >> "$WORK/figs"
	done
}

sim() {
	local dev s
	say "### A light tenant beside heavy ones, on the simulator ($SEEDS seeds, ${SIM_RUNTIME} s of virtual time a run)"
	say ""
	machine
	say "command: bench/light.sh sim (SEEDS=$SEEDS SIM_DEVS=\"$SIM_DEVS\" DEPTHS=\"$DEPTHS\")"
	job sim "$SIM_RUNTIME" "" 1 > "$WORK/alone.fio"
	job sim "$SIM_RUNTIME" "" > "$WORK/mixed.fio"
	for dev in $SIM_DEVS; do
		: > "$WORK/figs"
		for ((s = 0; s < SEEDS; s++)); do
			set_rows "$(basename "$dev")/$s" --device "$dev" --seed "$s"
		done
		say ""
		say "device \`$(basename "$dev")\`: medians over the seeds, then each target's worst seed"
		say ""
		$PY table "$WORK/figs"
		cp "$WORK/figs" "$WORK/figs.$(basename "$dev")"
	done
}

disk() {
	local F=$WORK/light.dat dev r
	dev=$(disk_of "$WORK")
	fill "$F" "$SIZE_MB" || die "cannot lay out $F"
	say "### A light tenant beside heavy ones, on this machine's disk ($REPS rounds of $RUNTIME s a run)"
	say ""
	machine
	say "device: a ${SIZE_MB} MiB file on $dev; io_uring, O_DIRECT; load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
	say "command: bench/light.sh disk (REPS=$REPS RUNTIME=$RUNTIME DEPTHS=\"$DEPTHS\")"
	local x="direct=1
filename=$F
size=${SIZE_MB}m"
	job io_uring "$RUNTIME" "$x" 1 > "$WORK/alone.fio"
	job io_uring "$RUNTIME" "$x" > "$WORK/mixed.fio"
	: > "$WORK/figs"
	for ((r = 1; r <= REPS; r++)); do
		set_rows "round$r"
		note "round $r of $REPS done"
	done
	say "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
	say ""
	$PY table "$WORK/figs"
	say ""
	say "every run (set, row, L mean us, L p99 us, aggregate IOPS, A share %, target us):"
	say '```'
	cat "$WORK/figs"
	say '```'
}

case $WHAT in
sim)  sim ;;
disk) disk ;;
all)  sim; disk ;;
*)    die "usage: bench/light.sh [sim|disk|all]" ;;
esac
