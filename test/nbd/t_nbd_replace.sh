#!/bin/sh
# A reload is the whole truth: a key the new config no longer names returns
# to its default, a group it no longer names goes at once when nobody is in
# it, and with its last connection when somebody is.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/qos.conf" <<E
/
/keep   rbps=256k
/gone
/busy   rbps=32k
E
start s -v --filter="$FILTER" memory 1M ioqos-config="$TMP/qos.conf" \
	ioqos-stats="$TMP/s.stats" ioqos-poll=100ms || exit 1

# a client that stays on /busy
slow_client busy 2 "$TMP/busy.out" 4k
joined() { grep -q "ioqos: connection joins /busy$" "$TMP/s.log"; }
check "a client joins /busy" wait_for 10 joined

# /keep is limited: the whole 1 MiB export takes four seconds (every
# block read: no extents, the export is all zeroes)
t0=$(date +%s)
nbdcopy --no-extents "$(uri s keep)" null: 2>/dev/null
check "/keep starts at 256 KiB/s (1 MiB in 3 s or more)" test $(( $(date +%s) - t0 )) -ge 3

cat >"$TMP/qos.new" <<E
/
/keep
E
mv "$TMP/qos.new" "$TMP/qos.conf"
reloaded() { [ "$(stat_field "$TMP/s.stats" '#' reloads)" = 1 ]; }
check "the new config is loaded" wait_for 10 reloaded
check "/gone, idle, is removed at once" \
	grep -q "ioqos: group /gone removed: the config no longer names it" "$TMP/s.log"
check "/busy, in use, stays until its last connection closes" \
	grep -q "ioqos: group /busy: no longer in the config" "$TMP/s.log"
check "/busy is not removed while its client is there" \
	sh -c "! grep -q 'ioqos: group /busy removed' '$TMP/s.log'"

# /keep's rbps is gone from the file: back to unlimited, so that none of
# its requests waits while the export is read again, as the stats file
# (written every 100 ms) says, sampled all along; under the old limit they
# waited for four seconds (and how long the copy takes is the machine's
# load, not the limit's)
nbdcopy --no-extents "$(uri s keep)" null: 2>/dev/null &
cp_pid=$!
PIDS="$PIDS $cp_pid"
: >"$TMP/keep.queued"
while kill -0 $cp_pid 2>/dev/null; do
	stat_field "$TMP/s.stats" /keep queued >>"$TMP/keep.queued"
	sleep 0.02
done
wait $cp_pid
check "/keep read again" test $? = 0
check "/keep is back to no limit: no request of it waits" \
	sh -c "! grep -qv '^0\$' '$TMP/keep.queued'"

kill "$FIO" 2>/dev/null
wait "$FIO" 2>/dev/null
removed() { grep -q "ioqos: group /busy removed" "$TMP/s.log"; }
check "/busy goes with its last connection" wait_for 10 removed
check "a new client of /busy is refused: the config does not name it" \
	sh -c "! nbdinfo '$(uri s busy)' >/dev/null 2>&1"
check "nbdkit stops" stop s
finish
