#!/bin/sh
# Reloads without stalls: the nbdkit filter with BENCH_GROUPS (100000)
# groups in its config and one tenant reading (memory plugin, fio's nbd
# engine, 4 KiB random reads at iodepth 4) for BENCH_SECS (10) after 1 s of
# ramp, in four runs on the same server setup:
#
#   none     no reload: what the tenant's latency is anyway
#   one      the config replaced every 0.5 s by one that differs in a line
#   every    the config replaced every 0.5 s by one that differs in every line
#   swap20   the tenant limited to 4 MiB/s (/g0 rbps=4M), and the config
#            replaced every 20 ms by one that differs in every line but the
#            tenant's, the filter looking every 10 ms: reloads back to back
#
# Per run: the tenant's IOPS and bandwidth, its worst latency and 99.9th
# percentile, the longest gap it saw between two completions and between
# two dispatches (from fio's log of every I/O: its time, in ms, less its
# latency is when it was sent; so both to the ms), the reloads the filter
# made, and the longest it held the controller's lock for one (from its
# debug log: "the controller's lock held N us"; a build that does not log
# it shows "-"), and of all the holds of the lock the reloads made, how
# many lasted a millisecond or more (a build that holds it once a reload,
# or does not log them, shows "-"), and the most CPU time one hold took
# (cpu us: the longest hold less that is the time the scheduler gave the
# CPU to other threads while the lock was held).  Figures of one run,
# never asserted.
#
#   sh bench/nbd_reload.sh                  (make nbdkit-filter first)
#   IOQOS_FILTER=other.so sh bench/nbd_reload.sh    another build of the filter
#   BENCH_RUNS="every swap20" sh bench/nbd_reload.sh    some of the runs
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FILTER=${IOQOS_FILTER:-$ROOT/build/nbdkit-ioqos-filter.so}
GROUPS=${BENCH_GROUPS:-100000}
SECS=${BENCH_SECS:-10}
RUNS=${BENCH_RUNS:-none one every swap20}

for t in nbdkit fio; do
	command -v $t >/dev/null 2>&1 || { echo "nbd_reload: $t is not installed (sh scripts/deps.sh nbdkit)"; exit 1; }
done
[ -f "$FILTER" ] || { echo "nbd_reload: no $FILTER (make nbdkit-filter)"; exit 1; }
FILTER=$(cd "$(dirname "$FILTER")" && pwd)/$(basename "$FILTER")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ioqos-nbdreload.XXXXXX") || exit 1
SRV="" FLIP=""
stop_all() {
	[ -n "$FLIP" ] && kill "$FLIP" 2>/dev/null && wait "$FLIP" 2>/dev/null
	FLIP=""
	[ -n "$SRV" ] && kill -TERM "$SRV" 2>/dev/null && wait "$SRV" 2>/dev/null
	SRV=""
}
trap 'stop_all; rm -rf "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cd "$TMP" || exit 1

# config W1 W2 OUT [G0]: "/" and the groups; /g0 has weight W1 (and the
# settings G0), the others W2 + i % 100
config() {
	awk -v n="$GROUPS" -v w1="$1" -v w2="$2" -v g0="${4:-}" 'BEGIN {
		print "/ depth=64"
		printf "/g0 weight=%d %s\n", w1, g0
		for (i = 1; i < n; i++) printf "/g%d weight=%d\n", i, w2 + i % 100
	}' >"$3"
}
config 100 1 base.conf
config 200 1 one.conf
config 100 2 every.conf
config 100 1 swap20-base.conf rbps=4M
config 100 2 swap20.conf rbps=4M
cat >t.fio <<E
[t]
ioengine=nbd
uri=nbd+unix:///g0?socket=$TMP/s.sock
rw=randread
bs=4k
iodepth=4
runtime=$SECS
time_based
ramp_time=1
write_lat_log=t
log_avg_msec=0
E

# run KIND: "IOPS KiB/s max_lat_us p99.9_us gap_done_ms gap_sent_ms reloads longest_hold_us
# long_holds/holds hold_cpu_us"
run() {
	base=base.conf period=0.5 poll=100ms
	if [ "$1" = swap20 ]; then
		base=swap20-base.conf period=0.02 poll=10ms
	fi
	cp "$base" q.conf
	rm -f s.sock t_*.log
	nbdkit -f -v -U "$TMP/s.sock" --filter="$FILTER" memory 1G ioqos-config="$TMP/q.conf" \
		ioqos-poll=$poll >srv.log 2>&1 &
	SRV=$!
	i=0
	while [ ! -S s.sock ]; do
		[ $i -ge 600 ] && { echo "nbdkit did not start:" >&2; cat srv.log >&2; exit 1; }
		sleep 0.1; i=$((i + 1))
	done
	if [ "$1" != none ]; then
		# the config and its other self in turn
		( other=$1.conf
		  while :; do
			sleep $period
			cp "$other" q.new && mv q.new q.conf
			if [ "$other" = "$base" ]; then other=$1.conf; else other=$base; fi
		  done ) &
		FLIP=$!
	fi
	fio --output-format=terse --output=t.out t.fio >/dev/null 2>&1
	stop_all
	# terse: 7 read KiB/s, 8 read IOPS, 39 total latency max (us), 32 the 99.9th percentile
	held=$(sed -n "s/.*ioqos: reloaded .*the controller's lock held \([0-9.]*\) us.*/\1/p" srv.log |
		sort -n | tail -n 1)
	cpu=$(sed -n "s/.*ioqos: reloaded .*, \([0-9.]*\) us of CPU at most.*/\1/p" srv.log |
		sort -n | tail -n 1)
	holds=$(sed -n "s/.*ioqos: reloaded .* in \([0-9]*\) holds of the controller's lock, .* \([0-9]*\) of them of a millisecond or more.*/\2 \1/p" srv.log |
		awk '{ l += $1; n += $2 } END { if (n) printf "%d/%d", l, n }')
	# the log of every I/O: "ms, latency ns, ..." at completion; the longest
	# gaps between completions and between sendings, after the ramp
	gaps=$(cat t_lat.*.log 2>/dev/null | awk -F, '$1 >= 1000 {
		done = $1 + 0; sent = $1 - $2 / 1e6
		print done, sent }' | sort -n -k1,1 | awk '
		NR > 1 && $1 - d > gd { gd = $1 - d }
		{ d = $1 }
		END { printf "%d", gd }')
	sent=$(cat t_lat.*.log 2>/dev/null | awk -F, '$1 >= 1000 { printf "%.3f\n", $1 - $2 / 1e6 }' |
		sort -n | awk 'NR > 1 && $1 - s > g { g = $1 - s } { s = $1 } END { printf "%.0f", g }')
	echo "$(awk -F';' '/^3;/ { split($32, p, "="); print $8, $7, $39, p[2] }' t.out)" \
		"${gaps:--}" "${sent:--}" "$(grep -c 'ioqos: reloaded ' srv.log)" "${held:--}" \
		"${holds:--}" "${cpu:--}"
}

echo "reloads without stalls: $GROUPS groups, one tenant (memory plugin, 4 KiB random"
echo "reads, iodepth 4, ${SECS}s after 1 s ramp); $(basename "$FILTER")"
printf '   %-8s %8s %8s %11s %10s %9s %9s %6s %16s %12s %8s\n' reloads IOPS "KiB/s" "max lat us" \
	"p99.9 us" "gap done" "gap sent" done "longest hold us" "holds >=1ms" "cpu us"
for k in $RUNS; do
	set -- $(run $k)
	printf '   %-8s %8s %8s %11s %10s %9s %9s %6s %16s %12s %8s\n' "$k" "${1:--}" "${2:--}" \
		"${3:--}" "${4:--}" "${5:--}ms" "${6:--}ms" "${7:--}" "${8:--}" "${9:--}" "${10:--}"
done
