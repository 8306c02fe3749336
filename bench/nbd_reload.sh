#!/bin/sh
# Reloads without stalls: the nbdkit filter with BENCH_GROUPS (100000)
# groups in its config and one tenant reading (memory plugin, fio's nbd
# engine, 4 KiB random reads at iodepth 4) for BENCH_SECS (10) after 1 s of
# ramp, in three runs on the same server setup:
#
#   none   no reload: what the tenant's latency is anyway
#   one    the config replaced every 0.5 s by one that differs in a line
#   every  the config replaced every 0.5 s by one that differs in every line
#
# Per run: the tenant's IOPS, its worst latency and 99.9th percentile, the
# reloads the filter made, and the longest it held the controller's lock
# for one (from its debug log: "the controller's lock held N us"; a build
# that does not log it shows "-").  Figures of one run, never asserted.
#
#   sh bench/nbd_reload.sh                  (make nbdkit-filter first)
#   IOQOS_FILTER=other.so sh bench/nbd_reload.sh    another build of the filter
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FILTER=${IOQOS_FILTER:-$ROOT/build/nbdkit-ioqos-filter.so}
GROUPS=${BENCH_GROUPS:-100000}
SECS=${BENCH_SECS:-10}

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

# config W1 W2 OUT: "/" and the groups; /g0 has weight W1, the others W2 + i % 100
config() {
	awk -v n="$GROUPS" -v w1="$1" -v w2="$2" 'BEGIN {
		print "/ depth=64"
		printf "/g0 weight=%d\n", w1
		for (i = 1; i < n; i++) printf "/g%d weight=%d\n", i, w2 + i % 100
	}' >"$3"
}
config 100 1 base.conf
config 200 1 one.conf
config 100 2 every.conf
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
E

# run KIND: "IOPS max_lat_us p99.9_us reloads longest_hold_us"
run() {
	cp base.conf q.conf
	rm -f s.sock
	nbdkit -f -v -U "$TMP/s.sock" --filter="$FILTER" memory 1G ioqos-config="$TMP/q.conf" \
		ioqos-poll=100ms >srv.log 2>&1 &
	SRV=$!
	i=0
	while [ ! -S s.sock ]; do
		[ $i -ge 600 ] && { echo "nbdkit did not start:" >&2; cat srv.log >&2; exit 1; }
		sleep 0.1; i=$((i + 1))
	done
	if [ "$1" != none ]; then
		# the config and its other self in turn, every 0.5 s
		( other=$1.conf
		  while :; do
			sleep 0.5
			cp "$other" q.new && mv q.new q.conf
			if [ "$other" = base.conf ]; then other=$1.conf; else other=base.conf; fi
		  done ) &
		FLIP=$!
	fi
	fio --output-format=terse --output=t.out t.fio >/dev/null 2>&1
	stop_all
	# terse: 8 read IOPS, 39 total latency max (us), 32 the 99.9th percentile
	held=$(sed -n "s/.*ioqos: reloaded .*the controller's lock held \([0-9.]*\) us.*/\1/p" srv.log |
		sort -n | tail -n 1)
	echo "$(awk -F';' '/^3;/ { split($32, p, "="); print $8, $39, p[2] }' t.out)" \
		"$(grep -c 'ioqos: reloaded ' srv.log)" "${held:--}"
}

echo "reloads without stalls: $GROUPS groups, one tenant (memory plugin, 4 KiB random"
echo "reads, iodepth 4, ${SECS}s after 1 s ramp); $(basename "$FILTER")"
printf '   %-8s %10s %12s %12s %8s %18s\n' reloads IOPS "max lat us" "p99.9 us" done "longest hold us"
for k in none one every; do
	set -- $(run $k)
	printf '   %-8s %10s %12s %12s %8s %18s\n' "$k" "${1:--}" "${2:--}" "${3:--}" "${4:--}" "${5:--}"
done
