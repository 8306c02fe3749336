#!/bin/sh
# depth bounds what reaches the plugin: nbdkit's log filter, placed below
# ioqos, records every request the plugin sees; with "/ depth=3" no more
# than 3 are ever inside it at once, over four connections that each keep 16
# requests in flight.  The same load without a depth shows many more (the
# check can see a violation).  nbdkit's delay filter, below the log, holds
# each read 2 ms in the "device".  The stats file says the depth in force,
# and means of the requests out that never pass it, and what gave it (written,
# or the rule: max with no weight, auto with one); under depth=auto it
# shows the latency figures the controller works from.
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
	printf '/vm%s\n' 1 2 3 4 >>"$TMP/$v.conf"
	# each read spends 2 ms in the plugin, so requests pile up there
	start $v --filter="$FILTER" --filter=log --filter=delay memory 64M \
		logfile="$TMP/$v.req" rdelay=2ms ioqos-config="$TMP/$v.conf" \
		ioqos-stats="$TMP/$v.stats" ioqos-poll=0 || exit 1
	sed "s|$TMP/SRV.sock|$TMP/$v.sock|" "$TMP/load.fio" >"$TMP/$v.fio"
	check "$v: fio" fio --output="$TMP/$v.out" "$TMP/$v.fio"
	stop $v
	eval "peak_$v=$(peak "$TMP/$v.req")"
done
echo "    in the plugin at once: depth=3: $peak_limited, no depth: $peak_free"
check "depth=3: at most 3 requests in the plugin" test "$peak_limited" -le 3
check "depth=3: and 3 reached" test "$peak_limited" -eq 3
check "without a depth: more than 3" test "$peak_free" -gt 3

# the header at exit: with ioqos-poll=0 its means cover the whole run, in
# which every request spent its time in the plugin inside its time out
hdr() { stat_field "$TMP/$1.stats" "#" "$2"; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }
check "stats: depth=3 in force" test "$(hdr limited depth)/$(hdr limited depth_set)" = 3/3
check "stats: no depth is max" test "$(hdr free depth)/$(hdr free depth_set)" = max/max
check "stats: depth=3 written" test "$(hdr limited depth_rule)" = written
check "stats: no depth, no weight: the rule says max" \
	test "$(hdr free depth_rule)/$(hdr free rule_groups)/$(hdr free rule_sharing)" = none/4/0
check "stats: mean outstanding <= 3" le "$(hdr limited outstanding)" 3
check "stats: mean in the plugin <= outstanding" le "$(hdr limited plugin)" "$(hdr limited outstanding)"
check "stats: latency near the 2 ms delay" le 2000 "$(hdr limited lat_us)"
check "stats: no auto figures without depth=auto" test -z "$(hdr limited lat_min_us)"

# no depth written, a weight among four groups: the rule gives depth=auto
printf '/vm1 weight=300\n/vm2\n/vm3\n/vm4\n' >"$TMP/auto.conf"
start auto --filter="$FILTER" --filter=delay memory 64M rdelay=2ms \
	ioqos-config="$TMP/auto.conf" ioqos-stats="$TMP/auto.stats" ioqos-poll=200ms || exit 1
# long enough for the search's first rounds (2048 completions at 64 out)
sed "s|$TMP/SRV.sock|$TMP/auto.sock|; s|^number_ios=.*|runtime=2\ntime_based|" \
	"$TMP/load.fio" >"$TMP/auto.fio"
check "auto: fio" fio --output="$TMP/auto.out" "$TMP/auto.fio"
stop auto
echo "    depth=auto: $(grep '^#' "$TMP/auto.stats" | tr ' ' '\n' | grep -E '^(depth|lat_min_us|rounds|changes)=' | tr '\n' ' ')"
check "auto: depth_set=auto" test "$(hdr auto depth_set)" = auto
check "auto: by the rule, four groups of which one shares" \
	test "$(hdr auto depth_rule)/$(hdr auto rule_groups)/$(hdr auto rule_sharing)" = share/4/1
check "auto: a depth found" test "$(hdr auto depth)" -ge 1 2>/dev/null
check "auto: unloaded latency at least the 2 ms delay" le 2000 "$(hdr auto lat_min_us)"
check "auto: rounds measured" test "$(hdr auto rounds)" -ge 1
finish
