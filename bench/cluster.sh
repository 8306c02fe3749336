#!/bin/sh
# Global limits through Redis, measured (printed, never asserted): three
# nbdkit servers with the filter, one tenant "/t rbps=30M global=tenant",
# a redis-server on a unix socket, fio clients reading export t.
#
#  1. Totals with the load on one, two and three servers: a client on s1
#     (s2 up, idle), then one on s2, then the node s3 joins (nbdkit started,
#     with a client), then s3 dies (SIGKILL: its lease is lost), then s2's
#     client leaves; each phase PHASE_SECS, the total measured over its
#     last PHASE_SECS - 1 s.
#  2. Overshoot when a node joins or leaves: the largest total over any
#     one-second window (one every 0.1 s) in the two seconds after each
#     change, against R (the bound is one lease's worth: R + R x 0.1 s).
#  3. Redis round trips per second per instance (from the stats files).
#  4. Cost per request: the CPU time of s1 (all its threads, from
#     /proc/PID/task/*/schedstat, in ns) per request with 4 KiB and with
#     64 KiB reads at the same 30 MiB/s (7680 and 480 requests a second),
#     with the limit local ("/t rbps=30M") and global (the config switched
#     by rewriting the file, which the filter reloads); and the module's
#     own thread (ioqos-redis) per second and per request.  Its work is
#     per renewal, not per request: per request it falls as the rate
#     grows.
#
#  5. Groups by the thousand (part "scale"): one server whose config
#     has N global groups (SCALE_GROUPS: 1000 10000 100000), the tenant
#     "/t rbps=8M global=tenant" and N - 1 others "/gI rbps=1M global=gI",
#     and for each N:
#       start     from nbdkit's exec to its socket (the config loaded,
#                 every group registered), with the CPU time nbdkit used
#                 by then (the wall time on a shared machine is as much
#                 the others'), and to the end of the first renewal of
#                 every group (Redis counted N lease calls);
#       renewals  over SCALE_RENEW_SECS: renewals of every group a second,
#                 Redis's own time per lease call (INFO commandstats) and
#                 the module thread's CPU per lease (its schedstat);
#       reloads   a client reading 4 KiB at iodepth 4 from /t (8 MiB/s)
#                 for 13 s while the config is reloaded twice: at 5 s a
#                 comment appended (nothing changes), at 9 s every rbps
#                 of the /gI doubled (every global limit changes); the
#                 longest the controller's lock was held by each (the
#                 filter's debug line), the tenant's longest request
#                 (the longest gap it saw) in the 4 s before the first
#                 reload and in the 4 s from each (fio's latency log),
#                 its rate over the run, and the renewals that failed
#                 ("unreachable").
#     A server that is not up in SCALE_START_MAX seconds (60) is given up.
#
#   sh bench/cluster.sh [share] [scale]   (make cluster-bench builds first;
#                                          both parts when none is named)
# PHASE_SECS (6), COST_SECS (5), SCALE_RENEW_SECS (3).
# Wall-clock figures on a shared machine: repeat the run and compare.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
IOQOS_FILTER=${IOQOS_FILTER:-$TOP/build/nbdkit-ioqos-filter.so}
PHASE=${PHASE_SECS:-6}
COST=${COST_SECS:-5}
# the test helpers find their root from $0; give them the filter directly
export IOQOS_FILTER
. "$TOP/test/nbd/lib.sh"
. "$TOP/test/nbd/cluster.sh"

PARTS=${*:-share scale}
# cpu PID [COMM]: ns on CPU of every thread of PID (only those named COMM)
cpu() {
	for t in /proc/"$1"/task/*; do
		[ -n "${2:-}" ] && [ "$(cat "$t/comm" 2>/dev/null)" != "$2" ] && continue
		cat "$t/schedstat" 2>/dev/null
	done | awk '{ s += $1 } END { printf "%.0f\n", s }'
}
redis_start || { echo "redis-server did not start"; exit 1; }

# parts 1 to 4, on three servers
share_part() {
servers "/t rbps=30M global=tenant burst=100ms" "s1 s2" || exit 1
sampler
sleep 1

# mark NAME: remember when a phase ended (T_NAME) or a change happened
mark() { eval "T_$1=\$(now)"; }
client c1 s1 2 $((PHASE * 5 + 5)); sleep "$PHASE"; mark one
mark j2; client c2 s2 2 $((PHASE * 4)); sleep "$PHASE"; mark two
mark j3; server s3 || exit 1; client c3 s3 2 $((PHASE * 3)); sleep "$PHASE"; mark three
mark l3; kill -KILL "$PID_s3"; sleep "$PHASE"; mark left3
mark l2; kill "$FIO_c2" 2>/dev/null; sleep "$PHASE"; mark left2

echo "== 1. totals, R = 30 MiB/s (each over the last $((PHASE - 1)) s of its phase)"
echo "| load on | s1 MiB/s | s2 MiB/s | s3 MiB/s | total MiB/s | error |"
echo "|---|---|---|---|---|---|"
row() { # LABEL END
	a=$(at "$2" "-$((PHASE - 1))")
	awk -v l="$1" -v x1="$(rate s1 "$a" "$2")" -v x2="$(rate s2 "$a" "$2")" \
	    -v x3="$(rate s3 "$a" "$2")" -v r="$R" 'BEGIN { m = 1048576; t = x1 + x2 + x3
		printf "| %s | %.2f | %.2f | %.2f | %.2f | %+.2f%% |\n", l, x1 / m, x2 / m,
			x3 / m, t / m, (t - r) * 100 / r }'
}
row "s1" "$T_one"
row "s1 s2" "$T_two"
row "s1 s2 s3" "$T_three"
row "s1 s2 (s3 died)" "$T_left3"
row "s1 (s2's load left)" "$T_left2"

echo
echo "== 2. the largest one-second total in the 2 s after a change, over R"
echo "| change | worst second / R |"
echo "|---|---|"
for ev in "load on s2:j2" "node s3 joins:j3" "node s3 dies:l3" "s2's load leaves:l2"; do
	eval "t=\$T_${ev#*:}"
	printf '| %s | %.4f |\n' "${ev%:*}" "$(worst_second "$t" "$(at "$t" 3)")"
done
echo "(bound: 1 + one lease, 1.1000)"

echo
echo "== 3. Redis round trips per second per instance (s1 and s2, over 2 s)"
rt() { awk '/^# ioqos/ { for (i = 2; i <= NF; i++) if ($i ~ /^round_trips=/) {
	sub(/round_trips=/, "", $i); print $i } }' "$TMP/$1.stats"; }
a1=$(rt s1) a2=$(rt s2) ta=$(now)
sleep 2
b1=$(rt s1) b2=$(rt s2) tb=$(now)
awk -v d="$(awk -v a="$ta" -v b="$tb" 'BEGIN { print b - a }')" \
    -v x="$((b1 - a1)) $((b2 - a2))" 'BEGIN {
	n = split(x, v, " "); for (i = 1; i <= n; i++) printf "s%d: %.1f/s  ", i, v[i] / d; print "" }'

echo
echo "== 4. CPU per request of s1, one client of 2 x 8 reads"
ios() { awk '$1 == "/t" { for (i = 2; i <= NF; i++) if ($i ~ /^rios=/) {
	sub(/rios=/, "", $i); print $i } }' "$TMP/s1.stats"; }
echo "| reads | limit | requests/s | s1 CPU us per request | ioqos-redis thread CPU ms/s | its us per request |"
echo "|---|---|---|---|---|---|"
for bs in 4k 64k; do
	for kind in local global; do
		if [ "$kind" = local ]; then
			printf '/t rbps=30M burst=100ms\n' >"$TMP/t.conf"
		else
			printf '/t rbps=30M global=tenant burst=100ms\n' >"$TMP/t.conf"
		fi
		sleep 0.5                                   # reloaded
		client cost s1 2 $((COST + 2)) "$bs"
		sleep 1
		c0=$(cpu "$PID_s1") m0=$(cpu "$PID_s1" ioqos-redis) i0=$(ios) t0=$(now)
		sleep "$COST"
		c1=$(cpu "$PID_s1") m1=$(cpu "$PID_s1" ioqos-redis) i1=$(ios) t1=$(now)
		wait "$FIO_cost"
		awk -v c="$((c1 - c0))" -v m="$((m1 - m0))" -v n="$((i1 - i0))" -v a="$t0" \
		    -v b="$t1" -v bs="$bs" -v k="$kind" 'BEGIN {
			if (k == "local") { ms = "-"; us = "-" }
			else { ms = sprintf("%.3f", m / 1e6 / (b - a)); us = sprintf("%.3f", n ? m / 1e3 / n : 0) }
			printf "| %s | %s | %.0f | %.2f | %s | %s |\n", bs, k, n / (b - a),
				n ? c / 1e3 / n : 0, ms, us }'
	done
done

for s in s1 s2; do stop "$s" >/dev/null; done
cp "$TMP/samples" "$TOP/build/cluster-bench-samples.txt" 2>/dev/null &&
	echo "(the samples: build/cluster-bench-samples.txt: SERVER TIME RBYTES, and @ NOW when the sampler ran)"
}

# evalsha FIELD: Redis's count of lease calls (calls) or their time (usec)
evalsha() {
	redis-cli -s "$TMP/redis.sock" INFO commandstats |
		awk -F'[:,=]' -v f="$1" '/^cmdstat_evalsha:/ {
			for (i = 2; i < NF; i += 2) if ($i == f) print $(i + 1) }' | tr -d '\r'
}

# scale_conf N RATE: the config of part 5, every /gI at RATE
scale_conf() {
	awk -v n="$1" -v r="$2" 'BEGIN {
		print "/ depth=64"
		print "/t rbps=8M global=tenant"
		for (i = 1; i < n; i++) printf "/g%d rbps=%s global=g%d\n", i, r, i
	}'
}

# scale_one N: one row of part 5
scale_one() {
	n=$1 max=${SCALE_START_MAX:-60} rs=${SCALE_RENEW_SECS:-3}
	scale_conf "$n" 1M >"$TMP/scale.conf"
	redis-cli -s "$TMP/redis.sock" FLUSHALL >/dev/null
	redis-cli -s "$TMP/redis.sock" CONFIG RESETSTAT >/dev/null
	rm -f "$TMP/scale.sock"
	t0=$(now)
	nbdkit -f -v -U "$TMP/scale.sock" --filter="$FILTER" memory 64M \
		ioqos-config="$TMP/scale.conf" ioqos-redis="unix:$TMP/redis.sock" \
		ioqos-poll=100ms >"$TMP/scale.log" 2>&1 &
	pid=$!
	PIDS="$PIDS $pid"
	up="> $max" first="-"
	while awk -v a="$t0" -v b="$(now)" -v m="$max" 'BEGIN { exit !(b - a < m) }'; do
		[ -S "$TMP/scale.sock" ] && { up=$(awk -v a="$t0" -v b="$(now)" \
			-v c="$(awk '{ print $14 + $15 }' "/proc/$pid/stat")" \
			-v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f (%.2f)", b - a, c / hz }')
			break; }
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.02
	done
	while [ "${up#>}" = "$up" ] &&
	    awk -v a="$t0" -v b="$(now)" -v m="$max" 'BEGIN { exit !(b - a < m) }'; do
		[ "$(evalsha calls)" -ge "$n" ] 2>/dev/null && { first=$(awk -v a="$t0" \
			-v b="$(now)" 'BEGIN { printf "%.2f", b - a }'); break; }
		sleep 0.02
	done
	if [ "${up#>}" != "$up" ]; then
		printf '| %d | %s | - | - | - | - | - | - | - | - | - | - | - |\n' "$n" "$up"
		kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
		return
	fi
	c0=$(evalsha calls) u0=$(evalsha usec) m0=$(cpu "$pid" ioqos-redis) ta=$(now)
	sleep "$rs"
	c1=$(evalsha calls) u1=$(evalsha usec) m1=$(cpu "$pid" ioqos-redis) tb=$(now)
	renew=$(awk -v c="$((c1 - c0))" -v u="$((u1 - u0))" -v m="$((m1 - m0))" -v n="$n" \
		-v a="$ta" -v b="$tb" 'BEGIN { if (!c) { print "0 | - | -"; exit }
		printf "%.1f | %.1f | %.1f", c / n / (b - a), u / c, m / 1e3 / c }')
	rm -f "$TMP"/scale_*lat.1.log
	fio --name=t --ioengine=nbd --uri="nbd+unix:///t?socket=$TMP/scale.sock" \
		--rw=randread --bs=4k --iodepth=4 --runtime=13 --time_based \
		--write_lat_log="$TMP/scale" --output-format=terse \
		--output="$TMP/scale.out" >/dev/null 2>&1 &
	f=$!
	sleep 5
	echo "# a comment" >>"$TMP/scale.conf"
	sleep 4
	scale_conf "$n" 2M >"$TMP/scale.new" && mv "$TMP/scale.new" "$TMP/scale.conf"
	wait "$f"
	kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	PIDS=$(echo "$PIDS" | tr ' ' '\n' | grep -vx "$pid" | tr '\n' ' ')
	holds=$(sed -n "s/.*ioqos: reloaded .*the controller's lock held \([0-9.]*\) us.*/\1/p" \
		"$TMP/scale.log" | awk '{ printf "%s%.3f", (NR > 1 ? " | " : ""), $1 / 1e3 }
		END { for (i = NR; i < 2; i++) printf "%s-", (i ? " | " : "") }')
	# the latency log: ms since the start, ns; terse: 7 read KiB/s
	tenant=$(awk -F, '$1 >= 1000 { w = $1 < 5000 ? 0 : $1 < 9000 ? 1 : 2
		if ($2 > m[w]) m[w] = $2 }
		END { printf "%.1f | %.1f | %.1f", m[0] / 1e6, m[1] / 1e6, m[2] / 1e6 }' \
		"$TMP/scale_lat.1.log")
	tenant="$tenant | $(awk -F';' '/^3;/ { printf "%.2f", $7 / 1024 }' "$TMP/scale.out")"
	printf '| %d | %s | %s | %s | %s | %s | %d |\n' "$n" "$up" "$first" "$renew" "$holds" \
		"${tenant:-- | - | - | -}" "$(grep -c unreachable "$TMP/scale.log")"
}

scale_part() {
	echo
	echo "== 5. global groups by the thousand: start, renewals, reloads (one server)"
	echo "| groups | start s (CPU s) | first renewal s | renewals/s | Redis us/lease | thread us/lease | reload (comment) lock ms | reload (every limit) lock ms | tenant's longest request ms: no reload | comment | every limit | tenant MiB/s | renewals failed |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for n in ${SCALE_GROUPS:-1000 10000 100000}; do
		scale_one "$n"
	done
}

for part in $PARTS; do
	case $part in
	share) share_part ;;
	scale) scale_part ;;
	*) echo "bench/cluster.sh: no part '$part' (share, scale)"; exit 1 ;;
	esac
done
finish
