#!/bin/sh
# The nbdkit filter side by side, in one run (figures are ratios of this
# run, never asserted):
#
#  1. Overhead: fio's nbd engine, 4 KiB random reads at iodepth 32 on the
#     memory plugin, through nbdkit alone and through the filter with no
#     limits.  Rounds alternate, each a pair of runs back to back, so both
#     see the same machine; on a machine shared with other work the ratio
#     of each pair, and their median, say more than the IOPS themselves.
#  2. One read limit, three ways: the ioqos filter, nbdkit's own rate
#     filter, and qemu-nbd with a throttle group, on the same file.  After
#     the server has idled 3 s, fio reads for BENCH_LIMIT_SECS and logs each
#     completion.  With B(t) the bytes completed by t after the start, the
#     burst is max over t of B(t) - R*t (how far the client got ahead of the
#     limit R: the bucket depth a client sees after idle), and the steady
#     rate is (B(end) - B(1 s)) / (end - 1 s).
#  3. No empty slots: a device with real service time (nbdkit's delay
#     filter, 1 ms a read, over memory), nbdkit alone with D requests
#     outstanding (two clients at iodepth D/2, one at 1 for D=1) against
#     the filter at depth=D with 2D outstanding (two clients at iodepth D),
#     so that the filter always holds requests back and both sides have
#     the same connections.  With D requests in the plugin at every
#     moment the filter gives D / service time; every microsecond a freed
#     slot stays empty is lost.  The filter's stats, read in mid-run, say
#     how many were out (the controller's count and the plugin's) and how
#     long a woken request took from its dispatch to the plugin.
#  5. Hang-ups: a client with 16 reads of 256 KiB in flight is killed
#     (SIGKILL) BENCH_KILLS (10) times, against nbdkit alone and through the
#     filter at depth=4 (12 of them held in the filter): how often nbdkit
#     1.32.4 to 1.33.9 abort (raw_send_socket: Assertion `sock >= 0'),
#     taking every other client with them.
#  4. Stats without stalls: BENCH_GROUPS (120000) groups in the config and
#     one tenant reading (memory plugin, iodepth 4), with the stats file
#     written every 250 ms and without it: the tenant's IOPS, its worst
#     latency and its 99.9th percentile, and the longest the stats writer
#     held the controller's lock (from the filter's debug log).
#
#   sh bench/nbd_bench.sh          (make nbdkit-bench builds first)
# BENCH_ROUNDS (7), BENCH_SECS (3), BENCH_LIMIT_SECS (10), BENCH_RATE (8M),
# BENCH_DEPTHS ("1 4 8 32"), BENCH_GROUPS (120000),
# BENCH_KILLS (10), BENCH_PARTS ("1 2 3 4 5": which sections to run).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FILTER=${IOQOS_FILTER:-$ROOT/build/nbdkit-ioqos-filter.so}
ROUNDS=${BENCH_ROUNDS:-7}
SECS=${BENCH_SECS:-3}
LSECS=${BENCH_LIMIT_SECS:-10}
RATE_MIB=${BENCH_RATE:-8}
RATE=$((RATE_MIB * 1048576))
DEPTHS=${BENCH_DEPTHS:-1 4 8 32}
PARTS=${BENCH_PARTS:-1 2 3 4 5}
KILLS=${BENCH_KILLS:-10}
GROUPS=${BENCH_GROUPS:-120000}
part() { case " $PARTS " in *" $1 "*) return 0;; esac; return 1; }

for t in nbdkit fio qemu-nbd; do
	command -v $t >/dev/null 2>&1 || { echo "nbd_bench: $t is not installed (sh scripts/deps.sh nbdkit)"; exit 1; }
done
[ -f "$FILTER" ] || { echo "nbd_bench: no $FILTER (make nbdkit-filter)"; exit 1; }
. "$ROOT/bench/nbd_lib.sh"
nbd_scratch nbdbench

URI="nbd+unix:///vm1?socket=$TMP/s.sock"

# ---- 1. overhead -----------------------------------------------------------
cat >"$TMP/iops.fio" <<E
[iops]
ioengine=nbd
uri=$URI
rw=randread
bs=4k
iodepth=32
runtime=$SECS
time_based
ramp_time=1
E
iops() { # fio terse: field 8 is read IOPS
	fio --output-format=terse --output="$TMP/iops.out" "$TMP/iops.fio" >/dev/null 2>&1 &&
		awk -F';' '{ print $8 }' "$TMP/iops.out"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

if part 1; then
echo "1. overhead: memory plugin, fio nbd engine, 4 KiB random reads, iodepth 32,"
echo "   $ROUNDS rounds of two ${SECS}s runs (after 1 s ramp), the order alternating"
: >"$TMP/plain"; : >"$TMP/ioqos"; : >"$TMP/ratio"
r=1
while [ $r -le "$ROUNDS" ]; do
	for k in 1 2; do
		if [ $(( (r + k) % 2 )) = 0 ]; then
			serve nbdkit -f -U "$TMP/s.sock" memory 1G
			p=$(iops); stop_srv
		else
			serve nbdkit -f -U "$TMP/s.sock" --filter="$FILTER" memory 1G
			q=$(iops); stop_srv
		fi
	done
	awk -v r="$r" -v p="$p" -v q="$q" 'BEGIN {
		printf "   round %d: nbdkit %6.0f IOPS, nbdkit + ioqos %6.0f IOPS: %5.1f%%\n", r, p, q, p ? 100 * q / p : 0 }'
	echo "$p" >>"$TMP/plain"; echo "$q" >>"$TMP/ioqos"
	awk -v p="$p" -v q="$q" 'BEGIN { print p ? 100 * q / p : 0 }' >>"$TMP/ratio"
	r=$((r + 1))
done
awk -v p="$(median <"$TMP/plain")" -v q="$(median <"$TMP/ioqos")" \
    -v bp="$(sort -n "$TMP/plain" | tail -n 1)" -v bq="$(sort -n "$TMP/ioqos" | tail -n 1)" \
    -v m="$(median <"$TMP/ratio")" 'BEGIN {
	printf "   median IOPS: nbdkit %.0f, with ioqos %.0f; best: %.0f, %.0f (%.1f%%)\n", p, q, bp, bq, bp ? 100 * bq / bp : 0
	printf "   median of the rounds'"'"' ratios: %.1f%% (target >= 90%%)\n\n", m }'
fi

# ---- 2. one limit, three controllers ----------------------------------------
if part 2; then
truncate -s 1G "$TMP/disk.img"
head -c 64M /dev/urandom >"$TMP/seed" && dd if="$TMP/seed" of="$TMP/disk.img" conv=notrunc bs=1M status=none
cat "$TMP/disk.img" >/dev/null
printf '/vm1 rbps=%s\n' "$RATE" >"$TMP/qos.conf"
cat >"$TMP/lim.fio" <<E
[lim]
ioengine=nbd
uri=$URI
rw=randread
size=64m
bs=64k
iodepth=8
runtime=$LSECS
time_based
write_lat_log=$TMP/lim
log_avg_msec=0
E
# burst_and_rate CLAT-LOG: max of B(t) - R*t; bytes/s after the first second
# (log lines: completion time ms, latency, direction, bytes, offset, ...)
burst_and_rate() {
	sort -t, -k1,1n "$1" | awk -F', *' -v r="$RATE" '
		{ t = $1; b += $4; x = b - r * t / 1000; if (x > m) m = x
		  if (t <= 1000) b1 = b; last = t }
		END { steady = (last > 1000) ? (b - b1) / ((last - 1000) / 1000) : 0
		      printf "%.0f %.0f\n", m, steady }'
}
run_limit() { # NAME SERVER-CMD...
	name=$1; shift
	serve "$@"
	sleep 3                          # idle: what burst does it allow after?
	rm -f "$TMP"/lim_*.log
	fio --output="$TMP/lim.out" "$TMP/lim.fio" >/dev/null 2>&1 || { echo "fio failed"; cat "$TMP/lim.out"; }
	stop_srv
	set -- $(burst_and_rate "$(ls "$TMP"/lim_clat*.log | head -n 1)")
	awk -v n="$name" -v b="$1" -v s="$2" -v r="$RATE" 'BEGIN {
		printf "   %-38s %10.3f %+8.2f%% %12.0f %9.2f\n", n, s / 1048576, (s - r) * 100 / r, b / 1024, b / r }'
}
echo "2. one read limit of $RATE_MIB MiB/s ($RATE B/s): fio nbd engine, 64 KiB random reads,"
echo "   iodepth 8, ${LSECS}s after 3 s idle, file plugin / qemu-nbd on the same cached file"
printf '   %-38s %10s %9s %12s %9s\n' controller "MiB/s" "error" "burst KiB" "burst(s)"
run_limit "nbdkit + ioqos (rbps, default burst)" \
	nbdkit -f -U "$TMP/s.sock" --filter="$FILTER" file "$TMP/disk.img" ioqos-config="$TMP/qos.conf"
run_limit "nbdkit + rate filter (rate=, 2 s)" \
	nbdkit -f -U "$TMP/s.sock" --filter=rate file "$TMP/disk.img" rate=$((RATE_MIB * 8))M
run_limit "qemu-nbd + throttle group (bps-read)" \
	qemu-nbd -t -k "$TMP/s.sock" -x vm1 \
	--object "throttle-group,id=tg0,x-bps-read=$RATE" \
	--image-opts "driver=throttle,throttle-group=tg0,file.driver=file,file.filename=$TMP/disk.img"
echo "   MiB/s, error: the steady rate after the first second, against the limit"
echo "   burst: max over t of (bytes completed by t) - limit * t, t from fio's start;"
echo "   burst(s): the same in seconds of the limit"
echo
fi

# ---- 3. no empty slots --------------------------------------------------------
# depth_run D MODE: one run, prints "IOPS [stats fields]"; MODE is bare
# (two clients at iodepth D/2, or one at 1) or ioqos (depth=D, two clients
# at iodepth D)
depth_run() {
	d=$1; mode=$2
	if [ "$mode" = bare ]; then d1=$((d - d / 2)); d2=$((d / 2)); else d1=$d; d2=$d; fi
	rm -f "$TMP/d.stats"
	printf '/ depth=%s\n/vm1\n/vm2\n' "$d" >"$TMP/d.conf"
	cat >"$TMP/d.fio" <<E
[global]
ioengine=nbd
rw=randread
bs=4k
runtime=$SECS
time_based
ramp_time=1
thread=1
group_reporting
[c1]
iodepth=$d1
uri=nbd+unix:///vm1?socket=$TMP/s.sock
E
	[ "$d2" -gt 0 ] && printf '[c2]\niodepth=%s\nuri=nbd+unix:///vm2?socket=%s\n' "$d2" "$TMP/s.sock" >>"$TMP/d.fio"
	if [ "$mode" = bare ]; then
		serve nbdkit -f -U "$TMP/s.sock" --threads=64 --filter=delay memory 1G rdelay=1ms
	else
		serve nbdkit -f -U "$TMP/s.sock" --threads=64 --filter="$FILTER" --filter=delay \
			memory 1G rdelay=1ms ioqos-config="$TMP/d.conf" \
			ioqos-stats="$TMP/d.stats" ioqos-poll=1s
	fi
	fio --output-format=terse --output="$TMP/d.out" "$TMP/d.fio" >/dev/null 2>&1 &
	fpid=$!
	# a stats period inside the measured part: after the ramp, before the end
	sleep $((SECS > 2 ? SECS : 2))
	[ -f "$TMP/d.stats" ] && head -n 1 "$TMP/d.stats" >"$TMP/d.mid"
	wait $fpid
	stop_srv
	printf '%s' "$(awk -F';' '/^3;/ { print $8 }' "$TMP/d.out")"
	[ "$mode" = bare ] || printf ' %s' "$(tr ' ' '\n' <"$TMP/d.mid" |
		awk -F= '$1 ~ /^(outstanding|plugin|wake_us)$/ { printf "%s ", $2 }')"
	echo
}
if part 3; then
echo "3. no empty slots: delay filter (1 ms a read) over memory, 4 KiB random reads;"
echo "   nbdkit alone, 2 clients at iodepth D/2, against the filter at depth=D with"
echo "   2 clients at iodepth D;"
echo "   $ROUNDS rounds of ${SECS}s runs each (after 1 s ramp); medians"
printf '   %5s %10s %10s %7s %12s %8s %8s\n' depth "nbdkit" "ioqos" ratio outstanding plugin wake_us
for d in $DEPTHS; do
	: >"$TMP/dp"; : >"$TMP/dq"; : >"$TMP/dr"; : >"$TMP/do"; : >"$TMP/dl"; : >"$TMP/dw"
	r=1
	while [ $r -le "$ROUNDS" ]; do
		set -- $(depth_run "$d" bare); p=${1:-0}
		set -- $(depth_run "$d" ioqos); q=${1:-0}
		echo "$p" >>"$TMP/dp"; echo "$q" >>"$TMP/dq"
		echo "${2:-0}" >>"$TMP/do"; echo "${3:-0}" >>"$TMP/dl"; echo "${4:-0}" >>"$TMP/dw"
		awk -v p="$p" -v q="$q" 'BEGIN { print p ? 100 * q / p : 0 }' >>"$TMP/dr"
		r=$((r + 1))
	done
	printf '   %5s %10.0f %10.0f %6.1f%% %12.2f %8.2f %8.1f\n' "$d" \
		"$(median <"$TMP/dp")" "$(median <"$TMP/dq")" "$(median <"$TMP/dr")" \
		"$(median <"$TMP/do")" "$(median <"$TMP/dl")" "$(median <"$TMP/dw")"
done
echo "   ratio: the median of the rounds' ioqos / nbdkit (target >= 95%)"
echo "   outstanding, plugin: mean requests out as the controller counts them and"
echo "   inside the plugin; wake_us: mean time from dispatch to the plugin of a"
echo "   request that slept"
fi

# ---- 4. stats without stalls ----------------------------------------------------
# stall_run STATS(yes|no): "IOPS max_lat_us p99.9_us lock_max_us"
stall_run() {
	if [ "$1" = yes ]; then st="ioqos-stats=$TMP/g.stats ioqos-poll=250ms"; else st="ioqos-poll=250ms"; fi
	serve nbdkit -f -v -U "$TMP/s.sock" --filter="$FILTER" memory 1G \
		ioqos-config="$TMP/g.conf" $st
	cat >"$TMP/g.fio" <<E
[t]
ioengine=nbd
uri=nbd+unix:///vm1?socket=$TMP/s.sock
rw=randread
bs=4k
iodepth=4
runtime=$SECS
time_based
ramp_time=1
E
	fio --output-format=terse --output="$TMP/g.out" "$TMP/g.fio" >/dev/null 2>&1
	stop_srv
	# terse: 8 read IOPS, 39 total latency max (us), 32 the 99.9th
	# percentile of completion latency
	# the filter's debug line of each write: its longest hold; the median
	# over the writes and the longest of all (a hold the scheduler
	# preempted shows there)
	sed -n 's/.*ioqos: stats: .*lock held \([0-9.]*\) us at most.*/\1/p' "$TMP/srv.log" >"$TMP/held"
	held=$([ -s "$TMP/held" ] && echo "$(median <"$TMP/held")/$(sort -n "$TMP/held" | tail -n 1)")
	echo "$(awk -F';' '/^3;/ { split($32, p, "="); print $8, $39, p[2] }' "$TMP/g.out") $held"
}
if part 4; then
awk -v n="$GROUPS" 'BEGIN { print "/vm1"; for (i = 0; i < n; i++) printf "/g%d weight=100\n", i }' >"$TMP/g.conf"
echo "4. stats without stalls: $GROUPS groups, one tenant (memory plugin, 4 KiB random"
echo "   reads, iodepth 4, ${SECS}s after 1 s ramp), stats every 250 ms or none; medians of $ROUNDS"
: >"$TMP/s_no"; : >"$TMP/s_yes"
r=1
while [ $r -le "$ROUNDS" ]; do
	stall_run no >>"$TMP/s_no"
	stall_run yes >>"$TMP/s_yes"
	r=$((r + 1))
done
printf '   %-10s %10s %12s %12s %20s\n' stats IOPS "max lat us" "p99.9 us" "lock held us"
for k in no yes; do
	printf '   %-10s %10.0f %12.0f %12.0f %20s\n' "$k" \
		"$(awk '{ print $1 }' "$TMP/s_$k" | median)" "$(awk '{ print $2 }' "$TMP/s_$k" | median)" \
		"$(awk '{ print $3 }' "$TMP/s_$k" | median)" "$(awk '{ print ($4 == "") ? "-" : $4 }' "$TMP/s_$k" | sort -t/ -k2,2n | tail -n 1)"
done
echo "   lock held: per stats write, the longest it held the controller's lock at once:"
echo "   the median over the writes / the longest (of the round with the longest)"
fi

# ---- 5. hang-ups ------------------------------------------------------------------
# kill_run MODE: 1 if nbdkit died when the client was killed, else 0
kill_run() {
	printf '/ depth=4\n/vm1\n' >"$TMP/k.conf"
	if [ "$1" = bare ]; then
		serve nbdkit -f -U "$TMP/s.sock" memory 256M
	else
		serve nbdkit -f -U "$TMP/s.sock" --filter="$FILTER" memory 256M ioqos-config="$TMP/k.conf"
	fi
	cat >"$TMP/k.fio" <<E
[k]
ioengine=nbd
uri=$URI
rw=randread
bs=256k
iodepth=16
runtime=30
time_based
thread=1
E
	fio "$TMP/k.fio" >/dev/null 2>&1 &
	kpid=$!
	sleep 0.7
	kill -KILL "$kpid"
	wait "$kpid" 2>/dev/null
	sleep 0.3
	if kill -0 "$SRV" 2>/dev/null; then echo 0; else echo 1; fi
	stop_srv
}
if part 5; then
echo "5. hang-ups: a client killed with 16 reads of 256 KiB in flight, $KILLS times;"
echo "   nbdkit $(nbdkit --version | awk '{ print $2 }')"
for m in bare ioqos; do
	died=0; k=1
	while [ $k -le "$KILLS" ]; do
		died=$((died + $(kill_run $m))); k=$((k + 1))
	done
	printf '   %-26s nbdkit died %d of %d times\n' "$([ $m = bare ] && echo "nbdkit alone" || echo "nbdkit + ioqos (depth=4)")" "$died" "$KILLS"
done
fi
