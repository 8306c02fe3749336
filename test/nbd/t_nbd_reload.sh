#!/bin/sh
# A reload holds the controller only to put the config in, in short holds
# of its lock: the file is read, parsed and checked while requests go on.
# With 100,000 groups and a client reading from /g1 all along: a reload
# that changes every line is put in force in many holds, with requests
# done while it is read and checked and between the holds; one that
# changes one line puts that change in force (/g1's new limit); one that
# drops 1000 groups removes them; one with a bad line changes nothing and
# names the line.
. "$(dirname "$0")/lib.sh"

# conf N G1 [G7 [SHIFT]]: / and /g0 ... /g(N-1), with /g1's settings G1
# (and /g7's G7), the others a weight of (i + SHIFT) % 100 + 1
conf() {
	awk -v n="$1" -v g1="$2" -v g7="${3:-}" -v sh="${4:-0}" 'BEGIN {
		print "/ depth=64"
		for (i = 0; i < n; i++)
			if (i == 1) print "/g1 " g1
			else if (i == 7 && g7 != "") print "/g7 " g7
			else printf "/g%d weight=%d\n", i, (i + sh) % 100 + 1
	}' >"$TMP/q.new" && mv "$TMP/q.new" "$TMP/q.conf"
}
conf 100000 weight=2
start s -v --filter="$FILTER" memory 64M ioqos-config="$TMP/q.conf" \
	ioqos-stats="$TMP/s.stats" ioqos-poll=300ms || exit 1
slow_client g1 2 "$TMP/g1.out" 4k
reads() { stat_field "$TMP/s.stats" /g1 rios; }
flowing() { [ "$(reads 2>/dev/null)" -gt 0 ] 2>/dev/null; }
check "a client reads from /g1" wait_for 20 flowing

# reloaded N: the Nth reload is logged; its line into $RELOAD
reloaded() {
	RELOAD=$(grep 'ioqos: reloaded ' "$TMP/s.log" | sed -n "$1p")
	[ -n "$RELOAD" ]
}
said() { echo "$RELOAD" | grep -q -- "$1"; }
# done_while WHAT: the requests done while the reload was WHAT
done_while() { echo "$RELOAD" | sed -n "s/.* \([0-9]*\) \(requests done \)*while it was $1.*/\1/p"; }
# every line changed: the weights of all but /g1
conf 100000 weight=2 "" 1
check "a reload of every line of 100,000" wait_for 30 reloaded 1
echo "    $RELOAD"
check "names them all" said ": 100001 groups named, put in force in "
holds=$(echo "$RELOAD" | sed -n 's/.* put in force in \([0-9]*\) holds.*/\1/p')
check "in more than one hold of the lock (${holds:-?})" test "${holds:-0}" -gt 1
check "requests were done while it was read and checked" test "$(done_while "read and checked")" -gt 0
check "and between the holds" test "$(done_while "put in force")" -gt 0

# one line changed: /g1 limited to 100 reads a second
conf 100000 "weight=2 riops=100" "" 1
check "a reload of one line among 100,000" wait_for 30 reloaded 2
echo "    $RELOAD"
# the counters and when they were read, twice, 2 s apart, from a stats
# file written after the change was put in: the one there when the reload
# is logged may be older (reading and checking 100,000 lines takes a
# while on a loaded machine), its counts those of the reads before.  Each
# pair from one copy of the file: read twice, the file could be replaced
# in between (every 300 ms), a count paired with a later write's time
# (/g1 at 121 a second, now and then on a loaded machine)
since=$(date +%s.%N)
newer() { awk -v t="$(stat_field "$TMP/s.stats" '#' time)" -v s="$since" 'BEGIN { exit !(t > s) }'; }
check "the stats are written after it" wait_for 10 newer
cp "$TMP/s.stats" "$TMP/s1.stats"
r1=$(stat_field "$TMP/s1.stats" /g1 rios) t1=$(stat_field "$TMP/s1.stats" '#' time)
sleep 2
cp "$TMP/s.stats" "$TMP/s2.stats"
r2=$(stat_field "$TMP/s2.stats" /g1 rios) t2=$(stat_field "$TMP/s2.stats" '#' time)
echo "    /g1: $r1 reads at $t1, $r2 at $t2"
check "the change is in force: /g1 reads, at 100 a second" awk -v r=$((r2 - r1)) -v t1="$t1" -v t2="$t2" \
	'BEGIN { exit !(r > 0 && r <= 100 * (t2 - t1) + 50) }'

conf 99000 "weight=2 riops=100" "" 1
check "a reload that drops 1000 groups" wait_for 30 reloaded 3
check "names the rest" said ": 99001 groups named,"
gone() { grep -q "ioqos: group /g99999 removed: the config no longer names it" "$TMP/s.log"; }
check "the groups dropped are removed" gone
check "and are in no stats" wait_for 5 sh -c "! grep -q '^/g99999 ' '$TMP/s.stats'"

conf 99000 "weight=2 riops=100" "weight=0" 1
bad_line() { grep -q "error: ioqos: $TMP/q.conf:9: key 'weight': bad value '0'" "$TMP/s.log"; }
check "a bad line is reported at its line" wait_for 30 bad_line
not_reloaded() { ! reloaded "$1"; }
check "and nothing changes" not_reloaded 4
kill "$FIO" 2>/dev/null
check "nbdkit stops" stop s
finish
