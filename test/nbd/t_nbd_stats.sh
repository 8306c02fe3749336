#!/bin/sh
# The stats file with many groups: the writer copies the counters a chunk
# of groups at a time, letting the controller's lock go between chunks.
# With 5000 groups (five chunks or more) every group still has exactly one
# line, in id order after the header, and the counters are those of the
# requests made: 16 reads of 4k by qemu-io on /vm1, none elsewhere; the
# header's lane figures count them too (16 put back on their lanes, 16
# submits and 16 completions applied), and once nbdkit has stopped, no
# lane is open (every thread that served one has ended).
. "$(dirname "$0")/lib.sh"

awk 'BEGIN { print "/vm1"; for (i = 0; i < 5000; i++) printf "/g%d weight=%d\n", i, i % 100 + 1 }' \
	>"$TMP/qos.conf"
start s -v --filter="$FILTER" memory 64M ioqos-config="$TMP/qos.conf" \
	ioqos-stats="$TMP/s.stats" ioqos-poll=0 || exit 1
cmds=""
for i in $(seq 0 15); do cmds="$cmds -c 'read $((i * 4096)) 4k'"; done
check "16 reads on /vm1" sh -c "qemu-io -f raw '$(uri s vm1)' $cmds >'$TMP/qio.out' 2>&1"
check "nbdkit stops" stop s
lines=$(grep -vc '^#' "$TMP/s.stats")
echo "    group lines: $lines; $(grep -o 'ioqos: stats: [0-9]* groups in [0-9]* chunks' "$TMP/s.log" | tail -n 1)"
check "a header first" sh -c "head -n 1 '$TMP/s.stats' | grep -q '^# ioqos connections=[0-9]* waiting=0 queued=0 inflight=0'"
check "one line per group: 5002" test "$lines" = 5002
check "no group twice" test "$(grep -v '^#' "$TMP/s.stats" | awk '{ print $1 }' | sort -u | wc -l)" = 5002
check "in id order: /, /vm1, /g0 ... /g4999" test "$(grep -v '^#' "$TMP/s.stats" | awk '{ printf "%s ", $1 }' |
	awk '{ print $1, $2, $3, $NF }')" = "/ /vm1 /g0 /g4999"
check "/vm1: 16 reads of 4k" test "$(stat_field "$TMP/s.stats" /vm1 rios)/$(stat_field "$TMP/s.stats" /vm1 rbytes)" = 16/65536
check "/g4999: none" test "$(stat_field "$TMP/s.stats" /g4999 rios)" = 0
lanes() { for k in lanes back posts refused bad_done; do printf '%s=%s ' $k "$(stat_field "$TMP/s.stats" '#' $k)"; done; }
check "lanes: 16 back, 32 posts, none refused, none open" test "$(lanes)" = "lanes=0 back=16 posts=32 refused=0 bad_done=0 "
check "lanes: batches applied" test "$(stat_field "$TMP/s.stats" '#' batches)" -ge 1
chunks=$(sed -n 's/.*ioqos: stats: [0-9]* groups in \([0-9]*\) chunks.*/\1/p' "$TMP/s.log" | tail -n 1)
check "written in 5 chunks or more" test "${chunks:-0}" -ge 5
finish
