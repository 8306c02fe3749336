#!/bin/sh
# depth bounds what reaches the plugin: nbdkit's log filter, placed below
# ioqos, records every request the plugin sees; with "/ depth=3" no more
# than 3 are ever inside it at once, over four connections that each keep 16
# requests in flight.  The same load without a depth shows many more (the
# check can see a violation).  nbdkit's delay filter, below the log, holds
# each read 2 ms in the "device".
. "$(dirname "$0")/lib.sh"

cat >"$TMP/load.fio" <<E
[global]
ioengine=nbd
rw=randread
bs=4k
iodepth=16
number_ios=300
E
for i in 1 2 3 4; do
	printf '[j%s]\nuri=nbd+unix:///vm%s?socket=%s\n' "$i" "$i" "$TMP/SRV.sock" >>"$TMP/load.fio"
done

# peak LOGFILE: the most requests between the log's start and end lines
peak() {
	awk '/ (Read|Write|Zero|Trim|Cache) id=[0-9]+ .*\.\.\.$/ { n++; if (n > m) m = n }
	     / \.\.\.(Read|Write|Zero|Trim|Cache) id=/ { n-- }
	     END { print m + 0 }' "$1"
}

for v in limited free; do
	if [ $v = limited ]; then printf '/ depth=3\n' >"$TMP/$v.conf"; else : >"$TMP/$v.conf"; fi
	# each read spends 2 ms in the plugin, so requests pile up there
	start $v --filter="$FILTER" --filter=log --filter=delay memory 64M \
		logfile="$TMP/$v.req" rdelay=2ms ioqos-config="$TMP/$v.conf" || exit 1
	sed "s|$TMP/SRV.sock|$TMP/$v.sock|" "$TMP/load.fio" >"$TMP/$v.fio"
	check "$v: fio" fio --output="$TMP/$v.out" "$TMP/$v.fio"
	stop $v
	eval "peak_$v=$(peak "$TMP/$v.req")"
done
echo "    in the plugin at once: depth=3: $peak_limited, no depth: $peak_free"
check "depth=3: at most 3 requests in the plugin" test "$peak_limited" -le 3
check "depth=3: and 3 reached" test "$peak_limited" -eq 3
check "without a depth: more than 3" test "$peak_free" -gt 3
finish
