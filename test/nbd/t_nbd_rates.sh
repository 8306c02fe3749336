#!/bin/sh
# Limits and weights with a real client: fio's nbd engine on two exports.
#   limits:  /vm1 rbps=2M and /vm2 wbps=8M, each within 2% over 10 s
#   weights: /vm1 weight=300 and /vm2 weight=100 under "/ rbps=8M":
#            75% / 25% within 2 points
# fio measures each job's bytes over its own run time (after a 1 s ramp,
# so the first bucket's worth is not counted); the two servers run side by
# side, about 12 s in all.
. "$(dirname "$0")/lib.sh"

printf '/vm1 rbps=2M\n/vm2 wbps=8M\n' >"$TMP/lim.conf"
printf '/ rbps=8M\n/vm1 weight=300\n/vm2 weight=100\n' >"$TMP/w.conf"
start lim --filter="$FILTER" memory 256M ioqos-config="$TMP/lim.conf" || exit 1
start w --filter="$FILTER" memory 256M ioqos-config="$TMP/w.conf" || exit 1

job() { # NAME SERVER RW
	cat <<E
[global]
ioengine=nbd
bs=16k
iodepth=8
ramp_time=1
runtime=10
time_based
[a]
rw=$3
uri=$(uri "$2" vm1)
[b]
rw=$4
uri=$(uri "$2" vm2)
E
}
job lim lim randread randwrite >"$TMP/lim.fio"
job w w randread randread >"$TMP/w.fio"
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

# terse v3: 3 jobname, 6 read KiB, 9 read run time ms, 47/50 the same for writes
# rate JOB READ|WRITE FILE: bytes per second over the job's run time
rate() {
	awk -F';' -v j="$1" -v d="$2" '$3 == j {
		kb = (d == "read") ? $6 : $47; ms = (d == "read") ? $9 : $50
		if (ms > 0) printf "%.0f\n", kb * 1024 * 1000 / ms }' "$3"
}
# within WANT-BPS GOT-BPS PERCENT
within() {
	awk -v w="$1" -v g="$2" -v p="$3" 'BEGIN {
		e = (g - w) * 100 / w
		printf "    %.3f MiB/s, %+.2f%%\n", g / 1048576, e
		exit (e <= p && e >= -p) ? 0 : 1 }'
}
a=$(rate a read "$TMP/lim.out")
b=$(rate b write "$TMP/lim.out")
check "/vm1 rbps=2M: within 2% over 10 s" within 2097152 "${a:-0}" 2
check "/vm2 wbps=8M: within 2% over 10 s" within 8388608 "${b:-0}" 2

c=$(rate a read "$TMP/w.out")
d=$(rate b read "$TMP/w.out")
share() {
	awk -v c="${c:-0}" -v d="${d:-0}" 'BEGIN {
		if (c + d == 0) exit 1
		s = c * 100 / (c + d)
		printf "    /vm1 %.3f MiB/s, /vm2 %.3f MiB/s: %.2f%% / %.2f%%\n",
			c / 1048576, d / 1048576, s, 100 - s
		exit (s >= 73 && s <= 77) ? 0 : 1 }'
}
check "weights 3:1 under rbps=8M: 75% within 2 points" share
check "the two together fill the root's 8M within 2%" within 8388608 "$(( ${c:-0} + ${d:-0} ))" 2
check "nbdkit lim stops" stop lim
check "nbdkit w stops" stop w
finish
