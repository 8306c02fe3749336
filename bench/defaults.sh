#!/bin/bash
# The depth nobody writes: every example and seed experiment of examples/
# with its settings as shipped (no depth= written: the settings' rule picks
# auto where groups share by weight, prio or low, max otherwise), against
# the same settings with "/ depth=max" added (every request released at
# once: the behaviour before the rule).  Per case: the aggregate IOPS of
# each, the ratio, each group's share against what the weights give, and
# the rule and depth in force.
#
#   sim    the simulator (deterministic: one run of each), on the presets
#          and this machine's disk as a device file (SIM_DEVS, default
#          "ssd nvme hdd examples/sim/vmdisk.dev"), SIM_RUNTIME (10 s) of
#          virtual time per run
#   disk   io_uring, O_DIRECT, on files of this machine's disk (under
#          BENCH_TMPDIR), REPS (8) alternating pairs of RUNTIME (5) s, the
#          depth=max run first in every pair; medians
#
#   bench/defaults.sh [sim|disk|all]     (CASES="2016-qd8x8 ..." for some)
#
# Target (the rule's promise): the default at least 95% of depth=max's
# aggregate in every case, and the weights held where the rule chose auto.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
bench_init

WHAT=${1:-all}
SIM_DEVS=${SIM_DEVS:-ssd nvme hdd examples/sim/vmdisk.dev}
SIM_RUNTIME=${SIM_RUNTIME:-$(pick 2 10)}
RUNTIME=${RUNTIME:-$(pick 2 5)}
REPS=${REPS:-$(pick 2 8)}
EX=$TOP/examples

# name|job file|qos file ("-": none)
ALL_CASES=(
	"2014-hier-a|2014-hier-a.fio|2014-hier-a.qos"
	"2014-hier-b|2014-hier-bc.fio|2014-hier-b.qos"
	"2014-hier-c|2014-hier-bc.fio|2014-hier-c.qos"
	"2016-qd1|2016-qd1.fio|-"
	"2016-qd8|2016-qd8.fio|-"
	"2016-jobs8|2016-jobs8.fio|-"
	"2016-qd8x8|2016-qd8x8.fio|-"
	"2016-4k-64k|2016-4k-64k.fio|-"
	"2016-cap50|2016-qd8.fio|2016-cap50.qos"
	"2008-prio-25|2008-prio-25.fio|-"
	"2008-prio-100|2008-prio-100.fio|-"
)
want() {
	[ -z "${CASES:-}" ] && return 0
	local c
	for c in $CASES; do [ "$c" = "$1" ] && return 0; done
	return 1
}

# qos files: the case's as shipped ("default"), and with "/ depth=max"
qos_files() { # NAME QOS
	if [ "$2" = - ]; then : > "$WORK/$1.default.qos"; else cp "$EX/$2" "$WORK/$1.default.qos"; fi
	grep -q '^/[[:space:]]*depth=\|^/[[:space:]].*[[:space:]]depth=' "$WORK/$1.default.qos" &&
		die "$2 writes a depth: the default is what is measured here"
	{ cat "$WORK/$1.default.qos"; echo "/ depth=max"; } > "$WORK/$1.max.qos"
}

# summary JSON: "iops rule depth_found shares expected" of a run's report
summary() {
	python3 - "$1" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
d = json.loads(t[t.index('{'):])
io = d['ioqos']
dev = io.get('device', {})
gs = [g for g in io['groups'] if g['path'] != '/' and g['read']['iops'] + g['write']['iops'] > 0]
tot = sum(g['read']['iops'] + g['write']['iops'] for g in gs) or 1
root = [g for g in io['groups'] if g['path'] == '/'][0]
agg = root['read']['iops'] + root['write']['iops']
sh = ':'.join('%.1f' % (100.0 * (g['read']['iops'] + g['write']['iops']) / tot) for g in gs) or '-'
ex = ':'.join('%.1f' % g['expected_share'] if g.get('expected_share', -1) >= 0 else '-' for g in gs) or '-'
print('%.0f %s %s %s %s' % (agg, dev.get('depth_rule', '-'), dev.get('depth_found', '-'), sh, ex))
PY
}

sim() {
	local dev c name job qos
	say "### The depth nobody writes, on the simulator (${SIM_RUNTIME} s of virtual time a run)"
	say ""
	machine
	say "command: bench/defaults.sh sim (SIM_DEVS=\"$SIM_DEVS\" SIM_RUNTIME=$SIM_RUNTIME)"
	for dev in $SIM_DEVS; do
		say ""
		say "device \`${dev#examples/sim/}\`:"
		say ""
		say "| case | depth=max IOPS | shares | default IOPS | shares | weights give | rule (depth found) | default/max |"
		say "|---|---|---|---|---|---|---|---|"
		for c in "${ALL_CASES[@]}"; do
			IFS='|' read -r name job qos <<< "$c"
			want "$name" || continue
			qos_files "$name" "$qos"
			local d=$dev
			[ -f "$TOP/$dev" ] && d=$TOP/$dev
			for k in max default; do
				(cd "$WORK" && "$IOQOS" run "$EX/$job" --qos "$WORK/$name.$k.qos" --engine sim \
					--device "$d" --runtime-all "$SIM_RUNTIME" --output-format json \
					> "$WORK/$k.json" 2> "$WORK/err") || die "$name on $dev ($k): $(cat "$WORK/err")"
			done
			read -r mx _ _ mxs _ <<< "$(summary "$WORK/max.json")"
			read -r df rule found dfs ex <<< "$(summary "$WORK/default.json")"
			say "| $name | $mx | $mxs | $df | $dfs | $ex | $rule ($found) | $(awk -v a="$df" -v b="$mx" 'BEGIN { printf "%.3f", b ? a / b : 0 }') |"
		done
	done
	say ""
}

disk() {
	local c name job qos i dev
	need fio "apt-get install fio"
	dev=$(disk_of "$WORK")
	say "### The depth nobody writes, on this machine's disk ($REPS alternating pairs of $RUNTIME s, depth=max first)"
	say ""
	machine
	say "device: files under $WORK on $dev; io_uring, O_DIRECT"
	say "command: bench/defaults.sh disk (REPS=$REPS RUNTIME=$RUNTIME)"
	say ""
	say "| case | depth=max IOPS (median) | shares | default IOPS (median) | shares | weights give | rule (depth found) | default/max, median of pairs (min-max) |"
	say "|---|---|---|---|---|---|---|---|"
	for c in "${ALL_CASES[@]}"; do
		IFS='|' read -r name job qos <<< "$c"
		want "$name" || continue
		qos_files "$name" "$qos"
		local mxs_all=() dfs_all=() ratios=() mxsh dfsh ex rule found
		for ((i = 1; i <= REPS; i++)); do
			for k in max default; do
				(cd "$WORK" && "$IOQOS" run "$EX/$job" --qos "$WORK/$name.$k.qos" \
					--engine io_uring --direct=1 --filename="$WORK/shared.dat" \
					--runtime-all "$RUNTIME" --output-format json \
					> "$WORK/$k.json" 2> "$WORK/err") ||
					die "$name on the disk ($k): $(cat "$WORK/err")"
			done
			read -r mx _ _ mxsh _ <<< "$(summary "$WORK/max.json")"
			read -r df rule found dfsh ex <<< "$(summary "$WORK/default.json")"
			mxs_all+=("$mx") dfs_all+=("$df")
			ratios+=("$(awk -v a="$df" -v b="$mx" 'BEGIN { printf "%.3f", b ? a / b : 0 }')")
			note "$name pair $i: max $mx ($mxsh), default $df ($dfsh, $rule $found)"
		done
		local lo hi
		lo=$(printf '%s\n' "${ratios[@]}" | sort -g | head -1)
		hi=$(printf '%s\n' "${ratios[@]}" | sort -g | tail -1)
		say "| $name | $(printf '%.0f' "$($PY median "${mxs_all[@]}")") | $mxsh | $(printf '%.0f' "$($PY median "${dfs_all[@]}")") | $dfsh | $ex | $rule ($found) | $(printf '%.3f' "$($PY median "${ratios[@]}")") ($lo-$hi) |"
	done
	say ""
	say "shares: of the last pair; ratios: every pair's default over its depth=max run"
}

case $WHAT in
sim) sim ;;
disk) disk ;;
all) sim; disk ;;
*) die "usage: bench/defaults.sh [sim|disk|all]" ;;
esac
