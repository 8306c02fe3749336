#!/bin/sh
# ioqos-group=cgroup: a unix client joins the group of its process's
# cgroup v2 path.  The test makes child cgroups under its own (no
# controller is needed to move a process) and starts clients inside them:
#   mapping:  a name with '\', ' ' and '+' is its group with +XX escapes,
#             in the log and the stats file; the groups made for it go
#             when its client leaves; the log shows a cgroup's name in C
#             escapes (an ESC as \x1b, '\' as \\)
#   limits:   "$P/lim rbps=1M" holds for a client in $P/lim/c1/c2: the
#             bytes it reads over a timed run stay under R*T + burst + one
#             request, and its requests wait
#   bound:    ioqos-max-groups counts the groups made below the config's;
#             allow= of a configured parent covers its child cgroups
#   deleted:  a cgroup named "d (deleted)", which /proc shows as it shows
#             a removed "d", is served; a client whose cgroup was removed
#             (test/nbd/gone_client.py) is refused
#   refused:  the root cgroup, a cgroup whose mapping is too long, one
#             outside nbdkit's cgroup namespace, TCP clients (each with the
#             reason in the log)
# Without a cgroup2 mount, or where the test may not make cgroups, those
# parts are skipped and say so.
. "$(dirname "$0")/lib.sh"

# map_cg PATH: the group path of a cgroup path (every byte but A-Z a-z 0-9
# . _ : @ - and '/' as '+' and two hex digits), as the filter maps it
map_cg() {
	printf '%s' "$1" | LC_ALL=C od -An -v -tx1 | LC_ALL=C awk '
		BEGIN { for (i = 32; i < 127; i++) { c = sprintf("%c", i)
			if (c ~ /[A-Za-z0-9._:@\/-]/) keep[sprintf("%02x", i)] = c } }
		{ for (i = 1; i <= NF; i++) out = out (($i in keep) ? keep[$i] : "+" $i) }
		END { print out }'
}

# the cgroup2 mount (mount point and the cgroup it shows as its top), and
# this test's own cgroup v2 directory in it
CGSKIP="" MNT="" OWN="" T=""
own=$(sed -n 's/^0:://p' /proc/self/cgroup)
mnt=$(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") break
	     if ($(i + 1) == "cgroup2") { print $4 " " $5; exit } }' /proc/self/mountinfo)
if [ -z "$own" ]; then
	CGSKIP="no cgroup v2 line in /proc/self/cgroup"
elif [ -z "$mnt" ]; then
	CGSKIP="no cgroup2 file system mounted"
else
	mroot=${mnt%% *} MNT=${mnt#* }
	case $MNT in *\\*) CGSKIP="the cgroup2 mount point $MNT has escaped bytes" ;; esac
	if [ -z "$CGSKIP" ]; then
		if [ "$mroot" = / ]; then
			OWN=$MNT$own
		else
			case $own in
			"$mroot"|"$mroot"/*) OWN=$MNT${own#"$mroot"} ;;
			*) CGSKIP="the cgroup2 mount ($mroot) does not show this test's cgroup $own" ;;
			esac
		fi
	fi
	[ -n "$CGSKIP" ] || [ "$own" != / ] || OWN=$MNT
	if [ -z "$CGSKIP" ]; then
		T=$OWN/ioqos-t.$$
		mkdir "$T" 2>/dev/null || CGSKIP="cannot make a cgroup in $OWN"
	fi
	if [ -z "$CGSKIP" ] && ! sh -c 'echo $$ >"$1/cgroup.procs"' sh "$T" 2>/dev/null; then
		CGSKIP="cannot move a process into $T"
	fi
fi

# on any exit, after lib.sh's cleanup has stopped every process it
# started: the cgroups made here, deepest first (anything still in one is
# moved back to the test's own cgroup)
cg_cleanup() {
	[ -n "$T" ] && [ -d "$T" ] || return 0
	find "$T" -depth -type d | while IFS= read -r d; do
		i=0
		until rmdir "$d" 2>/dev/null || [ $i -ge 50 ]; do
			while read -r p; do echo "$p" >"$OWN/cgroup.procs"; done \
				<"$d/cgroup.procs" 2>/dev/null
			sleep 0.1; i=$((i + 1))
		done
	done
	[ -d "$T" ] && echo "cannot remove the cgroup $T"
}
trap 'cleanup; cg_cleanup' EXIT

# in_cg DIR CMD...: run CMD as a member of the cgroup DIR
in_cg() {
	cg_dir=$1; shift
	sh -c 'echo $$ >"$1/cgroup.procs" || exit 125; shift; exec "$@"' in_cg "$cg_dir" "$@"
}
URI="nbd+unix:///?socket=$TMP/s.sock"
served() { in_cg "$1" nbdinfo --size "$URI" >/dev/null 2>&1; }
refused() { ! served "$1"; }
# hold DIR MS: a connection from cgroup DIR, open MS ms, in the background
hold() {
	in_cg "$1" qemu-io -f raw "$URI" -c "sleep $(( $2 * SCALE ))" >/dev/null 2>&1 &
	HOLD=$!
	PIDS="$PIDS $HOLD"
}
# in_stats GROUP: its line is in the stats file; not_in_stats GROUP: neither
# it nor a group below it is
in_stats() { awk -v g="$1" '$1 == g { f = 1 } END { exit !f }' "$TMP/s.stats"; }
not_in_stats() {
	awk -v g="$1" '$1 == g || index($1, g "/") == 1 { f = 1 } END { exit f }' "$TMP/s.stats"
}
logged() { grep -qF -- "$1" "$TMP/s.log"; }
not_logged() { ! logged "$1"; }

P=""
if [ -z "$CGSKIP" ]; then
	P=$(map_cg "${own%/}/ioqos-t.$$")
	cat >"$TMP/qos.conf" <<E
/             depth=8
$P/lim        rbps=1M
$P/deny       allow=uid:4242
E
else
	printf '/ depth=8\n' >"$TMP/qos.conf"
fi
start s -v --filter="$FILTER" memory 64M ioqos-group=cgroup ioqos-config="$TMP/qos.conf" \
	ioqos-stats="$TMP/s.stats" ioqos-poll=100ms ioqos-max-groups=3 || exit 1

if [ -n "$CGSKIP" ]; then
	for part in mapping limit bound allow "root cgroup"; do
		skip_part "$part: $CGSKIP"
	done
	if [ -z "$own" ]; then
		check "no cgroup v2: a unix client is refused" refused ""
		check "no cgroup v2: and logged" logged "has no cgroup v2 line (0::)"
	fi
else
	# mapping: systemd's escapes, a blank and a '+' in a name
	name='we\x2did c+d'
	mkdir -p "$T/m/$name"
	hold "$T/m/$name" 3000
	G="$P/m/we+5cx2did+20c+2bd"
	check "mapping: the shell's mapping agrees" test "$(map_cg "${own%/}/ioqos-t.$$/m/$name")" = "$G"
	check "mapping: the client joins $G" wait_for 10 logged "ioqos: connection joins $G"
	# the log escapes the name as C does: the backslash doubled
	check "mapping: the log names its cgroup" \
		logged "is in cgroup ${own%/}/ioqos-t.$$/m/we\\\\x2did c+d"
	check "mapping: its group is in the stats" wait_for 5 in_stats "$G"
	check "mapping: and its parent, made with it" in_stats "$P/m"
	wait "$HOLD"
	check "mapping: the group goes with its client" wait_for 5 logged "ioqos: group $G removed"
	check "mapping: and its parent" logged "ioqos: group $P/m removed"
	gone_m() { not_in_stats "$P/m"; }
	check "mapping: neither is in the stats" wait_for 5 gone_m

	# a name with an escape sequence: the log shows it as \x1b, never
	# the byte itself, which would reach the terminal that shows the log
	esc=$(printf '\033')
	mkdir -p "$T/e/x$esc[1m"
	check "escapes: a client in cgroup x<ESC>[1m is served" served "$T/e/x$esc[1m"
	check "escapes: the log names it escaped" \
		logged "is in cgroup ${own%/}/ioqos-t.$$/e/x\\x1b[1m"
	check "escapes: no escape byte in the log" not_logged "$esc"
	check "escapes: its groups go with it" wait_for 5 logged "ioqos: group $P/e removed"

	# /proc shows a live cgroup named "d (deleted)" as it shows a removed
	# "d": the live one is served, its process being no exiting one
	D="$P/d+20+28deleted+29"
	mkdir -p "$T/d (deleted)"
	check "deleted: a client in a cgroup named 'd (deleted)' is served" \
		served "$T/d (deleted)"
	check "deleted: it joins $D" logged "ioqos: connection joins $D"
	check "deleted: the group goes with it" wait_for 5 logged "ioqos: group $D removed"
	# a cgroup removed under a client (its process a zombie, as a process
	# is when its cgroup can be removed) is refused
	if command -v python3 >/dev/null 2>&1; then
		mkdir -p "$T/gone" "$T/keep"
		got=$(python3 "$ROOT/test/nbd/gone_client.py" "$TMP/s.sock" "$T/gone" "$T/keep")
		check "deleted: a client whose cgroup was removed is refused" test "$got" = refused
		check "deleted: and logged" \
			logged "the client's cgroup ${own%/}/ioqos-t.$$/gone is removed (its process"
	else
		skip_part "deleted: a removed cgroup: python3 is not installed"
	fi

	# limit: a client two cgroups below "$P/lim rbps=1M"; one connection
	# held open keeps its groups while the bytes are read from the stats
	mkdir -p "$T/lim/c1/c2" "$T/lim/c1/z" "$T/x/y"
	C="$P/lim/c1/c2"
	hold "$T/lim/c1/c2" 10000
	HELD=$HOLD
	check "limit: the client joins $C" wait_for 10 in_stats "$C"
	b0=$(stat_field "$TMP/s.stats" "$C" rbytes)
	cat >"$TMP/lim.fio" <<E
[lim]
ioengine=nbd
uri=$URI
rw=randread
bs=64k
iodepth=4
runtime=$((3 * SCALE))
time_based
thread=1
E
	t0=$(date +%s.%N)
	in_cg "$T/lim/c1/c2" fio --output="$TMP/lim.out" "$TMP/lim.fio" >"$TMP/lim.err" 2>&1 &
	F=$!
	PIDS="$PIDS $F"
	wait "$F"; rc=$?
	t1=$(date +%s.%N)
	check "limit: fio ran" test "$rc" = 0
	[ "$rc" = 0 ] || cat "$TMP/lim.err"
	after() { awk -v t="$(stat_field "$TMP/s.stats" '#' time)" -v t1="$t1" 'BEGIN { exit !(t > t1) }'; }
	check "limit: stats written after the run" wait_for 5 after
	b1=$(stat_field "$TMP/s.stats" "$C" rbytes)
	w=$(stat_field "$TMP/s.stats" "$C" max_wait_us)
	# rbps=1M, its burst 32 KiB (the larger of 10 ms and 32 KiB), one
	# 64 KiB request
	ceiling() {
		awk -v b0="${b0:-0}" -v b1="${b1:-0}" -v t0="$t0" -v t1="$t1" 'BEGIN {
			got = b1 - b0; max = 1048576 * (t1 - t0) + 32768 + 65536
			printf "    %.0f bytes in %.2f s, at most %.0f\n", got, t1 - t0, max
			exit !(got > 0 && got <= max) }'
	}
	check "limit: the child's reads stay under R*T + burst + one request" ceiling
	check "limit: its requests waited (max_wait_us=$w)" test "${w:-0}" -ge 100000

	# bound: c1 and c2 are made on demand, so one more of 3
	check "bound: a cgroup needing two more groups is refused" refused "$T/x/y"
	check "bound: and logged" logged "ioqos-max-groups=3 groups made for connections already"
	check "bound: one needing one more is served" served "$T/lim/c1/z"

	# allow= of a configured group covers the cgroups below it
	mkdir -p "$T/deny/d"
	check "allow: a child of $P/deny is refused" refused "$T/deny/d"
	check "allow: and logged" \
		logged "may not join $P/deny/d (allow= of $P/deny, line 3)"

	# a cgroup path whose mapping is longer than a group path may be
	long=$T
	for i in 1 2 3 4 5 6; do
		long=$long/$(printf '%0255d' 0 | tr 0 ' ')
	done
	mkdir -p "$long"
	check "long: a cgroup mapped past 4095 bytes is refused" refused "$long"
	check "long: and logged" logged "maps to a group path longer than 4095 bytes"

	wait "$HELD"
	check "limit: the groups made below $P/lim go with the client" \
		wait_for 5 logged "ioqos: group $P/lim/c1 removed"
	gone_c1() { not_in_stats "$P/lim/c1"; }
	check "limit: and leave the stats" wait_for 5 gone_c1
	check "limit: $P/lim, named by the config, stays" in_stats "$P/lim"

	# the root cgroup would be "/", the device
	if [ "$mroot" = / ] && [ -w "$MNT/cgroup.procs" ]; then
		check "root cgroup: refused" refused "$MNT"
		check "root cgroup: and logged" logged "the client is in the root cgroup /"
	else
		skip_part "root cgroup: the root of the cgroup namespace cannot be reached here"
	fi
fi
idle() { stats_idle; }
check "no connection is left" wait_for 5 idle
check "nbdkit stops" stop s

# nbdkit in a cgroup namespace rooted at $T/ns: a client's path is relative
# to it, and a client outside it is refused
if [ -n "$CGSKIP" ]; then
	skip_part "namespace: $CGSKIP"
elif ! unshare --help 2>/dev/null | grep -q -- --cgroup; then
	skip_part "namespace: no unshare with --cgroup here"
else
	mkdir -p "$T/ns/a" "$T/out"
	printf 'echo $$ >"%s/cgroup.procs" && exec unshare -C "$@"\n' "$T/ns" >"$TMP/ns.sh"
	wrap=${NBDKIT_WRAP:-}
	NBDKIT_WRAP="sh $TMP/ns.sh $wrap"
	start n -v --filter="$FILTER" memory 1M ioqos-group=cgroup || exit 1
	NBDKIT_WRAP=$wrap
	URI="nbd+unix:///?socket=$TMP/n.sock"
	check "namespace: a client inside is served" served "$T/ns/a"
	check "namespace: as /a" grep -q "ioqos: connection joins /a$" "$TMP/n.log"
	check "namespace: a client outside is refused" refused "$T/out"
	check "namespace: and logged" grep -q "cgroup /\.\./out is outside nbdkit's cgroup namespace" "$TMP/n.log"
	check "namespace: nbdkit stops" stop n
fi

# TCP clients have no process to take a cgroup from: refused
if command -v python3 >/dev/null 2>&1; then
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	nbdkit -f -i 127.0.0.1 -p "$port" --filter="$FILTER" memory 1M ioqos-group=cgroup \
		>"$TMP/t.log" 2>&1 &
	PID_t=$!
	PIDS="$PIDS $PID_t"
	# until it listens, a client is refused for want of a server
	tcp_refused() {
		! nbdinfo --size "nbd://127.0.0.1:$port/" >/dev/null 2>&1 &&
			grep -q "refused" "$TMP/t.log"
	}
	check "tcp: a client is refused" wait_for 10 tcp_refused
	check "tcp: with the reason" grep -q "ioqos: export '' refused: ioqos-group=cgroup serves unix-socket clients only: a TCP client" "$TMP/t.log"
	check "tcp: nbdkit stops" stop t
else
	skip_part "tcp: python3 is not installed (to find a free port)"
fi
finish
