#!/bin/sh
# The nbdkit filter as client connections grow: IOPS through nbdkit alone,
# through a filter given as IOQOS_BASE (for instance the build whose
# requests all took one mutex) and through this build's, at 1, 2, 4 ...
# connections (CONNS), each connection a job of one fio process (its nbd
# engine, 4 KiB random reads at iodepth DEPTH), nbdkit with --threads=16
# (its default: 16 worker threads a connection) on the memory plugin.
# Each connection is a group of its own (export c0, c1, ...: groups made
# on demand, nothing set), so the figures are what the filter costs where
# nothing holds a request back: the way into the controller and out.
# Beside the IOPS, the server's CPU time a request (user and system, from
# /proc, over fio's whole run, which has no ramp): on a machine whose CPUs
# the clients and the server fill, nbdkit's own work sets the IOPS, and
# the CPU a request is what tells the filters apart.  (Requests held back
# and woken: part 3 of bench/nbd_bench.sh, on a device of 1 ms.)
#
# Each count is ROUNDS rounds of one run of each server back to back, the
# order turning round by round (nbdkit, base, this; then base, this,
# nbdkit; ...), so that every server sees the machine in the same states;
# the table gives the medians, and the median of the rounds' own ratios.
# Nothing is asserted.
#
#   sh bench/nbd_threads.sh      (ROUNDS=5 SECS=3 CONNS="1 2 4" DEPTH=16
#                                 IOQOS_BASE=path/to/filter.so)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FILTER=${IOQOS_FILTER:-$ROOT/build/nbdkit-ioqos-filter.so}
BASE=${IOQOS_BASE:-}
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-3}
CONNS=${CONNS:-1 2 4}
DEPTH=${DEPTH:-16}

for t in nbdkit fio; do
	command -v $t >/dev/null 2>&1 || { echo "nbd_threads: $t is not installed (sh scripts/deps.sh nbdkit)"; exit 1; }
done
[ -f "$FILTER" ] || { echo "nbd_threads: no $FILTER (make nbdkit-filter)"; exit 1; }
[ -z "$BASE" ] || [ -f "$BASE" ] || { echo "nbd_threads: no $BASE"; exit 1; }
. "$ROOT/bench/nbd_lib.sh"
nbd_scratch nbdthreads

# serve_mode MODE: nbdkit alone (plain), with the base filter or with this one
serve_mode() {
	case $1 in
	plain) set -- memory 1G ;;
	base) set -- --filter="$BASE" memory 1G ;;
	this) set -- --filter="$FILTER" memory 1G ;;
	esac
	serve nbdkit -f -U "$TMP/s.sock" --threads=16 "$@"
}

# the server's CPU time so far, clock ticks (utime + stime)
cpu_ticks() { sed 's/.*) //' "/proc/$SRV/stat" | awk '{ print $12 + $13 }'; }
TCK=$(getconf CLK_TCK)

# iops N: "IOPS CPU-US-A-REQUEST" of N connections in all, one run (fio
# terse: field 6 the KiB read, 8 the IOPS of the group's line)
iops() {
	{
		printf '[global]\nioengine=nbd\nrw=randread\nbs=4k\niodepth=%s\n' "$DEPTH"
		printf 'runtime=%s\ntime_based\ngroup_reporting\n' "$SECS"
		i=0
		while [ $i -lt "$1" ]; do
			printf '[c%s]\nuri=nbd+unix:///c%s?socket=%s/s.sock\n' $i $i "$TMP"
			i=$((i + 1))
		done
	} >"$TMP/j.fio"
	c0=$(cpu_ticks)
	fio --output-format=terse --output="$TMP/j.out" "$TMP/j.fio" >/dev/null 2>&1 || { echo "0 0"; return; }
	c1=$(cpu_ticks)
	awk -F';' -v c=$((c1 - c0)) -v tck="$TCK" '{ print $8, $6 ? c * 1e6 / tck / ($6 / 4) : 0 }' "$TMP/j.out"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

MODES="plain this"
[ -n "$BASE" ] && MODES="plain base this"
echo "machine: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs, $(uname -sr); $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "nbdkit $(nbdkit --version | awk '{ print $2 }') --threads=16, memory plugin; fio nbd engine, 4 KiB random reads, iodepth $DEPTH a connection, $ROUNDS rounds of ${SECS} s runs"
echo "IOPS and the server's CPU us a request (cpu): medians; ratios: the median of the rounds' own (IOPS)"
echo
if [ -n "$BASE" ]; then
	echo "| connections | nbdkit IOPS | cpu | base IOPS | cpu | this IOPS | cpu | this / base | this / nbdkit | base / nbdkit |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
else
	echo "| connections | nbdkit IOPS | cpu | this IOPS | cpu | this / nbdkit |"
	echo "|---|---|---|---|---|---|"
fi
for n in $CONNS; do
	for m in $MODES; do : >"$TMP/$m"; : >"$TMP/cpu_$m"; done
	: >"$TMP/r_tb"; : >"$TMP/r_tp"; : >"$TMP/r_bp"
	r=1
	while [ $r -le "$ROUNDS" ]; do
		# the order turns: the first of this round is last in the next
		set -- $MODES
		k=1
		while [ $k -lt "$r" ]; do first=$1; shift; set -- "$@" "$first"; k=$((k + 1)); done
		for m in "$@"; do
			serve_mode "$m"
			set -- $(iops "$n")
			eval "v_$m=\$1; c_$m=\$2"
			stop_srv
		done
		for m in $MODES; do
			eval "echo \"\$v_$m\" >>\"\$TMP/$m\"; echo \"\$c_$m\" >>\"\$TMP/cpu_$m\""
		done
		awk -v t="$v_this" -v p="$v_plain" 'BEGIN { print p ? t / p : 0 }' >>"$TMP/r_tp"
		if [ -n "$BASE" ]; then
			awk -v t="$v_this" -v b="$v_base" 'BEGIN { print b ? t / b : 0 }' >>"$TMP/r_tb"
			awk -v b="$v_base" -v p="$v_plain" 'BEGIN { print p ? b / p : 0 }' >>"$TMP/r_bp"
		fi
		r=$((r + 1))
	done
	if [ -n "$BASE" ]; then
		printf '| %s | %.0f | %.2f | %.0f | %.2f | %.0f | %.2f | %.3f | %.3f | %.3f |\n' "$n" \
			"$(median <"$TMP/plain")" "$(median <"$TMP/cpu_plain")" \
			"$(median <"$TMP/base")" "$(median <"$TMP/cpu_base")" \
			"$(median <"$TMP/this")" "$(median <"$TMP/cpu_this")" \
			"$(median <"$TMP/r_tb")" "$(median <"$TMP/r_tp")" "$(median <"$TMP/r_bp")"
	else
		printf '| %s | %.0f | %.2f | %.0f | %.2f | %.3f |\n' "$n" \
			"$(median <"$TMP/plain")" "$(median <"$TMP/cpu_plain")" \
			"$(median <"$TMP/this")" "$(median <"$TMP/cpu_this")" "$(median <"$TMP/r_tp")"
	fi
done
