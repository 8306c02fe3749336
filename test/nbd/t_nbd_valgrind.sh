#!/bin/sh
# nbdkit with the filter under valgrind's memcheck, through the paths that
# own memory and threads: connections opening and closing, requests that
# wait and pass, a config reload, a client killed with requests queued, and
# nbdkit stopped with requests queued.  Any error in the filter's code, or
# memory it leaves behind, fails; nbdkit's own leaks at exit (the memory
# plugin's allocator table, connections it does not close when it quits)
# are not the filter's and are not counted.
. "$(dirname "$0")/lib.sh"
command -v valgrind >/dev/null 2>&1 || skip "valgrind is not installed"
# nbdkit unloads its plugins before exit: keep their symbols for the stacks
NBDKIT_WRAP="valgrind --keep-debuginfo=yes --leak-check=full --show-leak-kinds=definite,indirect,possible --num-callers=30 --log-file=$TMP/vg.%p"
SCALE=4

printf '/ depth=4\n/slow rbps=64k\n/vm1 wbps=32M\n' >"$TMP/qos.conf"
start s --filter="$FILTER" memory 64M ioqos-config="$TMP/qos.conf" \
	ioqos-stats="$TMP/s.stats" ioqos-poll=100ms || exit 1
head -c 4M /dev/urandom >"$TMP/src.img"
nbdcopy --connections=4 "$TMP/src.img" "$(uri s vm1)" &&
nbdcopy "$(uri s vm1)" "$TMP/out.img"
check "round trip" cmp -n 4194304 "$TMP/src.img" "$TMP/out.img"

slow_client slow 8 "$TMP/fio1.out"
check "requests queue" wait_for 10 queued_at_least /slow 4
kill -KILL "$FIO"; wait "$FIO" 2>/dev/null
check "killed client: its requests cancelled" wait_for 5 stats_idle
printf '/ depth=2\n/slow rbps=32k\n' >"$TMP/qos.new" && mv "$TMP/qos.new" "$TMP/qos.conf"
reloaded() { [ "$(stat_field "$TMP/s.stats" '#' reloads)" = 1 ]; }
check "reload" wait_for 5 reloaded
slow_client slow 8 "$TMP/fio2.out"
check "requests queue again" wait_for 10 queued_at_least /slow 4
check "nbdkit stops with requests queued" stop s 8
wait "$FIO" 2>/dev/null

vg=$(ls "$TMP"/vg.* 2>/dev/null | head -n 1)
[ -n "$vg" ] || { bad "no valgrind log"; finish; }
errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$vg")
# leak records and errors are blocks separated by blank lines: keep those
# that pass through the filter's code, except memory that nbdkit itself
# allocated (its first caller is in nbdkit) such as the context of the
# next layer, which nbdkit does not free for connections open at quit
ours=$(sed 's/^==[0-9]*== \{0,1\}//' "$vg" |
	awk -v RS= '/[( ](ioqos|params|gate|wake|leave|group|allow|reload|files|stats|expo|poll)\.c:|nbdkit-ioqos-filter/ &&
		/lost|Invalid|uninitiali|Mismatched|overlap/ {
		n = split($0, l, "\n"); by = ""
		for (i = 1; i <= n; i++) if (l[i] ~ /^ *by /) { by = l[i]; break }
		if (by !~ /\(in \/usr\/(s?bin|libexec)\/nbdkit\)/) print $0 "\n" }')
echo "    valgrind: $(grep -E 'definitely lost:|indirectly lost:|ERROR SUMMARY' "$vg" | sed 's/^==[0-9]*== *//' | tr '\n' ';')"
check "no memory error or leak in the filter" test -z "$ours"
[ -n "$ours" ] && echo "$ours"
check "no invalid access anywhere" sh -c "! grep -Eq 'Invalid (read|write|free)|uninitialised' '$vg'"
finish
