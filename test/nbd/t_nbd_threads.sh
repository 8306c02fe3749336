#!/bin/sh
# Many connections on many nbdkit threads, one controller: eight fio nbd
# clients, four on /a (weight=300) and four on /b (weight=100), each
# keeping 16 reads of 64 KiB in flight, so that nbdkit serves them on 128
# worker threads, each with its lane into the controller, under
# "/ rbps=8M burst=100ms".  From 2 s to 8 s after fio started, from the
# filter's stats file (written every 100 ms, the counters and the header's
# time= read together):
#   - the limit over every window between two writes: what /a and /b were
#     given is at most R*T + B (B = 100 ms of R) plus two reads (the
#     library's one, and one for the time between the controller's last
#     dispatch and the stats writer's clock), and over the whole of it at
#     least R*T - B - two reads (both groups are backlogged throughout);
#   - the shares: /a got 75% of what both got, within one point;
#   - the threads: more than 64 lanes were open at once (two connections'
#     worth of threads would be 32), every request that came back on a lane
#     was applied twice (submit and done), none was refused.
# The 100 ms burst keeps the tokens of a timer woken late on a loaded
# machine (t_nbd_rates.sh says why), within the bound above.
. "$(dirname "$0")/lib.sh"

R=8388608
BS=65536
printf '/ rbps=8M burst=100ms\n/a weight=300\n/b weight=100\n' >"$TMP/q.conf"
start s --filter="$FILTER" --threads=16 memory 256M ioqos-config="$TMP/q.conf" \
	ioqos-stats="$TMP/s.stats" ioqos-poll=100ms || exit 1
wait_for 5 test -s "$TMP/s.stats"

{
	printf '[global]\nioengine=nbd\nrw=randread\nbs=64k\niodepth=16\n'
	printf 'ramp_time=1\nruntime=8\ntime_based\n'
	for g in a b; do
		for i in 1 2 3 4; do
			printf '[%s%s]\nuri=%s\n' $g $i "$(uri s $g)"
		done
	done
} >"$TMP/t.fio"

# every 20 ms, "TIME A-RBYTES B-RBYTES LANES BACK POSTS REFUSED" of the
# stats file, TIME when the server read its counters
sampler() {
	while :; do
		awk '$1 == "#" { for (i = 2; i <= NF; i++) { split($i, kv, "="); h[kv[1]] = kv[2] } }
			$1 == "/a" || $1 == "/b" { for (i = 2; i <= NF; i++) {
				split($i, kv, "="); v[$1 " " kv[1]] = kv[2] } }
			END { if (h["time"] != "") print h["time"], v["/a rbytes"] + 0,
				v["/b rbytes"] + 0, h["lanes"], h["back"], h["posts"], h["refused"] }' \
			"$TMP/s.stats"
		sleep 0.02
	done >"$TMP/samples" 2>/dev/null &
	PIDS="$PIDS $!"
}
sampler
T0=$(date +%s.%N)
fio --output-format=terse --output="$TMP/t.out" "$TMP/t.fio" >"$TMP/t.err" 2>&1 &
F=$!
PIDS="$PIDS $F"
wait "$F"
check "fio: eight clients read for 9 s" test $? = 0 || { cat "$TMP/t.err"; finish; }

# the samples from T0 + 2 s to T0 + 8 s, one per stats write
awk -v t0="$T0" '$1 >= t0 + 2 && $1 <= t0 + 8 && $1 != last { last = $1; print }' \
	"$TMP/samples" >"$TMP/window"
n=$(wc -l <"$TMP/window")
check "stats written through the window ($n times)" test "$n" -ge 30

limit() {
	awk -v r=$R -v b=$((R / 10)) -v bs=$BS '
		{ t[NR] = $1; d[NR] = $2 + $3 }
		END {
			worst = -1e18
			for (i = 1; i < NR; i++)
				for (j = i + 1; j <= NR; j++) {
					x = d[j] - d[i] - (r * (t[j] - t[i]) + b + 2 * bs)
					if (x > worst) { worst = x; wi = i; wj = j }
				}
			T = t[NR] - t[1]; D = d[NR] - d[1]
			printf "    %.3f MiB/s over %.2f s (%+.2f%%); closest window to R*T+B+2 reads: %.0f B under it, %.3f s\n",
				D / T / 1048576, T, (D / T - r) * 100 / r, -worst, t[wj] - t[wi]
			if (worst > 0) exit 1
			if (D < r * T - b - 2 * bs) { print "    under R*T - B - 2 reads"; exit 1 }
		}' "$TMP/window"
}
check "rbps=8M burst=100ms: within R*T + B at every window, at least R*T - B" limit

share() {
	awk 'NR == 1 { a0 = $2; b0 = $3 } { a = $2 - a0; b = $3 - b0 }
		END { if (a + b == 0) exit 1
		      s = a * 100 / (a + b)
		      printf "    /a %.3f MiB, /b %.3f MiB: %.2f%% / %.2f%%\n",
			a / 1048576, b / 1048576, s, 100 - s
		      exit (s >= 74 && s <= 76) ? 0 : 1 }' "$TMP/window"
}
check "weights 3:1 over 128 threads: /a 75% within one point" share

most=$(awk '{ if ($4 > m) m = $4 } END { print m + 0 }' "$TMP/window")
check "more than 64 lanes open at once ($most)" test "$most" -gt 64
check "every connection closed, nothing left" wait_for 30 stats_idle
check "nbdkit stops" stop s
lanes() { for k in lanes refused bad_done; do printf '%s=%s ' $k "$(stat_field "$TMP/s.stats" '#' $k)"; done; }
check "at exit: no lane open, nothing refused" test "$(lanes)" = "lanes=0 refused=0 bad_done=0 "
back=$(stat_field "$TMP/s.stats" '#' back)
posts=$(stat_field "$TMP/s.stats" '#' posts)
f() { echo $(( $(stat_field "$TMP/s.stats" /a "$1") + $(stat_field "$TMP/s.stats" /b "$1") )); }
reads=$(f rios) gone=$(f cancelled)
check "each of the $reads reads back on its lane once, its submit and done applied ($gone cancelled: their submits)" \
	test "$back/$posts" = "$reads/$((2 * reads + gone))"
finish
