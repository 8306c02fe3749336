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
#
#   sh bench/nbd_bench.sh          (make nbdkit-bench builds first)
# BENCH_ROUNDS (7), BENCH_SECS (3), BENCH_LIMIT_SECS (10), BENCH_RATE (8M).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FILTER=${IOQOS_FILTER:-$ROOT/build/nbdkit-ioqos-filter.so}
ROUNDS=${BENCH_ROUNDS:-7}
SECS=${BENCH_SECS:-3}
LSECS=${BENCH_LIMIT_SECS:-10}
RATE_MIB=${BENCH_RATE:-8}
RATE=$((RATE_MIB * 1048576))

for t in nbdkit fio qemu-nbd; do
	command -v $t >/dev/null 2>&1 || { echo "nbd_bench: $t is not installed (sh scripts/deps.sh nbdkit)"; exit 1; }
done
[ -f "$FILTER" ] || { echo "nbd_bench: no $FILTER (make nbdkit-filter)"; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ioqos-nbdbench.XXXXXX") || exit 1
SRV=""
stop_srv() {
	[ -n "$SRV" ] || return 0
	kill -TERM "$SRV" 2>/dev/null
	wait "$SRV" 2>/dev/null
	SRV=""
}
trap 'stop_srv; rm -rf "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cd "$TMP" || exit 1

# serve CMD...: start a server on $TMP/s.sock in the background
serve() {
	rm -f "$TMP/s.sock"
	"$@" >"$TMP/srv.log" 2>&1 &
	SRV=$!
	i=0
	while [ ! -S "$TMP/s.sock" ]; do
		[ $i -ge 100 ] && { echo "server did not start:"; cat "$TMP/srv.log"; exit 1; }
		sleep 0.1; i=$((i + 1))
	done
}
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

# ---- 2. one limit, three controllers ----------------------------------------
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
