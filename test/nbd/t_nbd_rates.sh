#!/bin/sh
# Limits and weights with a real client: fio's nbd engine on two exports.
#   limits:  /vm1 rbps=2M and /vm2 wbps=8M, each within 2% over 8 s
#   weights: /vm1 weight=300 and /vm2 weight=100 under "/ rbps=8M":
#            75% / 25% within 2 points, the two together 8M within 2%
# The two servers run side by side, fio's jobs on each for 1 + 10 s.  The
# rates are the filter's own: the bytes its stats file counts, against the
# time the server read its counters (the header's time=), from 2 s to 10 s
# after fio started (so that neither the buckets' first fill nor the
# clients' last requests are in the window), whenever the test got to
# read them.
#
# The tests share the machine, whose load wakes the filter's timer thread
# and fio late, by tens of milliseconds now and then: a bucket of the
# default depth (10 ms of the rate) lost what accrued meanwhile, up to 5%
# of 8M over 10 s beside a build.  So each limit has a depth of 500 ms
# (burst=500ms), which keeps what a late wake-up is owed, and each client
# keeps 4 MiB in flight (64 requests of 64 KiB), so that what a late wake-up lets
# through comes from requests that wait, in the order of their weights.
. "$(dirname "$0")/lib.sh"

printf '/vm1 rbps=2M burst=500ms\n/vm2 wbps=8M burst=500ms\n' >"$TMP/lim.conf"
printf '/ rbps=8M burst=500ms\n/vm1 weight=300\n/vm2 weight=100\n' >"$TMP/w.conf"
for s in lim w; do
	start $s --filter="$FILTER" memory 256M ioqos-config="$TMP/$s.conf" \
		ioqos-stats="$TMP/$s.stats" ioqos-poll=100ms || exit 1
	wait_for 5 test -s "$TMP/$s.stats"
done

job() { # SERVER RW-VM1 RW-VM2
	cat <<E
[global]
ioengine=nbd
bs=64k
iodepth=64
ramp_time=1
runtime=10
time_based
[a]
rw=$2
uri=$(uri "$1" vm1)
[b]
rw=$3
uri=$(uri "$1" vm2)
E
}

# every 50 ms, "SERVER TIME VM1-RBYTES VM2-RBYTES VM2-WBYTES" of each
# stats file, TIME when the server read its counters
sampler() {
	while :; do
		for s in lim w; do
			awk -v s=$s '
				$1 == "#" { for (i = 3; i <= NF; i++)
					if ($i ~ /^time=/) { sub(/time=/, "", $i); t = $i } }
				$1 == "/vm1" || $1 == "/vm2" { for (i = 2; i <= NF; i++) {
					split($i, kv, "="); v[$1 " " kv[1]] = kv[2] } }
				END { if (t != "") print s, t, v["/vm1 rbytes"] + 0,
					v["/vm2 rbytes"] + 0, v["/vm2 wbytes"] + 0 }' "$TMP/$s.stats"
		done
		sleep 0.05
	done >"$TMP/samples" 2>/dev/null &
	PIDS="$PIDS $!"
}

job lim randread randwrite >"$TMP/lim.fio"
job w randread randread >"$TMP/w.fio"
sampler
T0=$(date +%s.%N)
fio --output-format=terse --output="$TMP/lim.out" "$TMP/lim.fio" >"$TMP/lim.err" 2>&1 &
F1=$!
fio --output-format=terse --output="$TMP/w.out" "$TMP/w.fio" >"$TMP/w.err" 2>&1 &
F2=$!
PIDS="$PIDS $F1 $F2"
wait "$F1"; r1=$?
wait "$F2"; r2=$?
check "fio on the limited exports" test "$r1" = 0
check "fio on the weighted exports" test "$r2" = 0
[ "$r1" = 0 ] && [ "$r2" = 0 ] || { cat "$TMP/lim.err" "$TMP/w.err"; finish; }

# rate SERVER COLUMN: bytes per second of the samples' COLUMN (3: /vm1's
# reads, 4: /vm2's reads, 5: /vm2's writes) from T0 + 2 s to T0 + 10 s:
# the slope of the count against the server's time, fitted over every
# write of its stats file then (least squares), and the seconds covered.
# A write that found the server's timer late (its tokens not yet spent)
# is one of some 80, not the end of the window that decides the figure
rate() {
	awk -v s="$1" -v c="$2" -v t0="$T0" '
		$1 != s || $2 < t0 + 2 || $2 > t0 + 10 || $2 == last { next }
		{ last = $2; x = $2 - t0; n++; sx += x; sy += $c; sxx += x * x; sxy += x * $c
		  if (n == 1) first = x; span = x - first }
		END { d = n * sxx - sx * sx
		      if (n > 2 && d > 0) printf "%.0f %.2f\n", (n * sxy - sx * sy) / d, span
		      else print "0 0" }' "$TMP/samples"
}
# within WANT-BPS "GOT-BPS SECONDS" PERCENT
within() {
	awk -v w="$1" -v g="${2% *}" -v s="${2#* }" -v p="$3" 'BEGIN {
		e = (g - w) * 100 / w
		printf "    %.3f MiB/s over %.2f s, %+.2f%%\n", g / 1048576, s, e
		exit (s >= 4 && e <= p && e >= -p) ? 0 : 1 }'
}
check "/vm1 rbps=2M: within 2% over 8 s" within 2097152 "$(rate lim 3)" 2
check "/vm2 wbps=8M: within 2% over 8 s" within 8388608 "$(rate lim 5)" 2

c=$(rate w 3)
d=$(rate w 4)
share() {
	awk -v c="${c% *}" -v d="${d% *}" 'BEGIN {
		if (c + d == 0) exit 1
		s = c * 100 / (c + d)
		printf "    /vm1 %.3f MiB/s, /vm2 %.3f MiB/s: %.2f%% / %.2f%%\n",
			c / 1048576, d / 1048576, s, 100 - s
		exit (s >= 73 && s <= 77) ? 0 : 1 }'
}
check "weights 3:1 under rbps=8M: 75% within 2 points" share
check "the two together fill the root's 8M within 2%" within 8388608 \
	"$(( ${c% *} + ${d% *} )) ${c#* }" 2
check "nbdkit lim stops" stop lim
check "nbdkit w stops" stop w
finish
