# Shared by the filter's cluster test and bench/cluster.sh (sourced after
# test/nbd/lib.sh): a redis-server on a unix socket in $TMP, three nbdkit
# servers s1 s2 s3 whose /t draws on one global bucket, fio clients, and a
# sampler of the servers' stats files.
#
# Timing comes from the stats files themselves: each server rewrites its
# file every ioqos-poll (50 ms) by a rename, and the sampler reads the file
# it opened together with that file's own mtime, so a rate is bytes over
# the time between two writes by the same server, whenever the sampler got
# to run.
command -v redis-server >/dev/null 2>&1 ||
	skip "redis-server is not installed (sh scripts/deps.sh cluster)"
R=$((30 * 1024 * 1024))
LEASE_S=0.1                # the module's default lease length

# redis_start: (again) on $TMP/redis.sock; sets $REDIS to its PID
redis_start() {
	redis-server --port 0 --unixsocket "$TMP/redis.sock" --unixsocketperm 700 \
		--save '' --appendonly no --dir "$TMP" --daemonize no \
		>>"$TMP/redis.log" 2>&1 &
	REDIS=$!
	PIDS="$PIDS $REDIS"
	wait_for 5 test -S "$TMP/redis.sock"
}

# redis_kill: SIGKILL by its PID, as a crash
redis_kill() {
	kill -KILL "$REDIS" 2>/dev/null
	wait "$REDIS" 2>/dev/null
	PIDS=$(echo "$PIDS" | tr ' ' '\n' | grep -vx "$REDIS" | tr '\n' ' ')
	rm -f "$TMP/redis.sock"
}

# server NAME: one nbdkit with the filter, $TMP/t.conf as its config
server() {
	start "$1" --filter="$FILTER" memory 256M ioqos-config="$TMP/t.conf" \
		ioqos-redis="unix:$TMP/redis.sock" ioqos-stats="$TMP/$1.stats" \
		ioqos-poll=50ms || return 1
	wait_for 5 test -s "$TMP/$1.stats"
}

# servers CONF [NAMES]: s1 s2 s3 (or NAMES) with CONF as their config
servers() {
	printf '%s\n' "$1" >"$TMP/t.conf"
	for s in ${2:-s1 s2 s3}; do
		server "$s" || return 1
	done
}

# client NAME SERVER JOBS SECONDS [BS] [DEPTH]: fio keeping JOBS x DEPTH
# (default 8) reads of BS (default 64k) in flight on export t of SERVER,
# in the background
client() {
	cat >"$TMP/$1.fio" <<E
[global]
ioengine=nbd
uri=$(uri "$2" t)
rw=randread
bs=${5:-64k}
iodepth=${6:-8}
runtime=$4
time_based
thread=1
numjobs=$3
[$1]
E
	fio --output="$TMP/$1.out" "$TMP/$1.fio" >"$TMP/$1.err" 2>&1 &
	PIDS="$PIDS $!"
	eval "FIO_$1=$!"
}

# sampler: every 20 ms, "SERVER TIME RBYTES" of /t from each stats file,
# TIME when the server read its counters (the header's time=): the file's
# mtime is later by as long as the write took, which a busy host makes
# tens of milliseconds, a percent of a one-second window; and "@ NOW",
# when the sampler itself ran (rate_ran tells a stalled machine by it)
sampler() {
	while :; do
		echo "@ $(date +%s.%N)"
		for s in s1 s2 s3; do
			[ -r "$TMP/$s.stats" ] || continue
			awk -v s="$s" '
				$1 == "#" && $2 == "ioqos" { for (i = 3; i <= NF; i++)
					if ($i ~ /^time=/) { sub(/time=/, "", $i); t = $i } }
				$1 == "/t" { for (i = 2; i <= NF; i++) if ($i ~ /^rbytes=/) {
					sub(/rbytes=/, "", $i); b = $i } }
				END { if (t != "" && b != "") print s, t, b }' "$TMP/$s.stats"
		done
		sleep 0.02
	done >"$TMP/samples" 2>/dev/null &
	PIDS="$PIDS $!"
}

now() { date +%s.%N; }
at() { awk -v a="$1" -v d="$2" 'BEGIN { printf "%.6f\n", a + d }'; }

# rate SERVER|all FROM TO: B/s of /t between two times (epoch seconds),
# each server's from its writes nearest before FROM and before TO
rate() {
	awk -v s="$1" -v a="$2" -v b="$3" '
		$1 == "@" { next }
		$2 <= a && $2 > ta[$1] { ta[$1] = $2; ba[$1] = $3 }
		$2 <= b && $2 > tb[$1] { tb[$1] = $2; bb[$1] = $3 }
		END {
			r = 0
			for (k in tb)
				if ((s == "all" || s == k) && (k in ta) && tb[k] > ta[k])
					r += (bb[k] - ba[k]) / (tb[k] - ta[k])
			printf "%.0f\n", r
		}' "$TMP/samples"
}

# rate_ran SERVER|all FROM TO: B/s of /t from FROM to TO over the time the
# machine ran.  A server writes its stats file every 50 ms; two writes more
# than 100 ms apart while the sampler, another process, did not run for
# over 100 ms either mean the whole machine stalled, and a limit cannot be
# judged over time nobody ran: that interval is left out with its bytes.
# A server that stops writing while the sampler runs on is not excused.  A
# stall within the bucket's burst (100 ms) costs nothing and is kept; the
# time left out of a total goes to stderr.
rate_ran() {
	awk -v s="$1" -v a="$2" -v b="$3" '
		NR == FNR { if ($1 == "@") at[++n] = $2; next }
		$1 == "@" || $2 <= a || $2 > b || (s != "all" && s != $1) { next }
		($1 in pt) && $2 > pt[$1] {
			if ($2 - pt[$1] <= 0.1 || !stalled(pt[$1], $2)) {
				db[$1] += $3 - pb[$1]; dt[$1] += $2 - pt[$1]
			} else
				out[$1] += $2 - pt[$1]
		}
		!($1 in pt) || $2 > pt[$1] { pt[$1] = $2; pb[$1] = $3 }
		END {
			r = 0; o = 0
			for (k in dt) if (dt[k] > 0) r += db[k] / dt[k]
			for (k in out) if (out[k] > o) o = out[k]
			if (o > 0 && s == "all")
				printf "    %.2f s of %.2f s left out: the machine did not run\n",
					o, b - a > "/dev/stderr"
			printf "%.0f\n", r
		}
		# did the sampler too miss 100 ms or more between x and y?
		function stalled(x, y,   i) {
			for (i = 1; i < n; i++)
				if (at[i + 1] > x && at[i] < y && at[i + 1] - at[i] > 0.1)
					return 1
			return 0
		}' "$TMP/samples" "$TMP/samples"
}

# worst_second FROM TO: the largest total over one-second windows from FROM
# on (a window starting every 0.1 s), as a multiple of R
worst_second() {
	w=0 t=$1
	while awk -v t="$t" -v e="$2" 'BEGIN { exit !(t + 1 <= e) }'; do
		x=$(rate all "$t" "$(at "$t" 1)")
		w=$(awk -v x="$x" -v w="$w" -v r="$R" 'BEGIN { v = x / r; print (v > w) ? v : w }')
		t=$(at "$t" 0.1)
	done
	echo "$w"
}

# within WANT GOT PERCENT: |GOT - WANT| <= PERCENT% of WANT (prints both)
within() {
	awk -v w="$1" -v g="$2" -v p="$3" 'BEGIN {
		e = (g - w) * 100 / w
		printf "    %.3f MiB/s, %+.2f%%\n", g / 1048576, e
		exit (e <= p && e >= -p) ? 0 : 1 }'
}

# part WANT-PERCENT X TOTAL POINTS: X is WANT% of TOTAL within POINTS
part() {
	awk -v w="$1" -v x="$2" -v t="$3" -v p="$4" 'BEGIN {
		v = t > 0 ? x * 100 / t : 0
		printf "    %.2f%% of %.3f MiB/s\n", v, t / 1048576
		exit (v >= w - p && v <= w + p) ? 0 : 1 }'
}

# at_most X BOUND: X <= BOUND (numbers)
at_most() {
	awk -v x="$1" -v b="$2" 'BEGIN { printf "    %.4f (bound %.4f)\n", x, b; exit !(x <= b) }'
}
