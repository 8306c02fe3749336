#!/bin/sh
# Data written through the filter reads back identical, with nbdcopy and
# qemu-img, under limits and a depth of 2 (so requests wait), on the file
# and memory plugins and under each of nbdkit's thread models; zero and
# trim are counted as documented.
. "$(dirname "$0")/lib.sh"

head -c 16M /dev/urandom >"$TMP/src.img"
want=$(sha256sum <"$TMP/src.img")
truncate -s 16M "$TMP/disk.img"
cat >"$TMP/qos.conf" <<E
/       depth=2
/vm1    rbps=128M wbps=64M
/vm2    riops=2000 wiops=1000
E

# roundtrip NAME THREAD-MODEL NBDCOPY-OPTION PLUGIN-AND-FILTER-ARGS...
roundtrip() {
	v=$1 model=$2 conns=$3; shift 3
	start "$v" --filter="$FILTER" "$@" ioqos-config="$TMP/qos.conf" \
		ioqos-stats="$TMP/$v.stats" ioqos-poll=100ms || { bad "$v: start"; return; }
	nbdkit --filter="$FILTER" "$@" --dump-plugin >"$TMP/dump" 2>&1
	check "$v: thread model $model" grep -qx "thread_model=$model" "$TMP/dump"
	rm -f "$TMP/out1.img" "$TMP/out2.img"
	nbdcopy $conns "$TMP/src.img" "$(uri "$v" vm1)" &&
	nbdcopy $conns "$(uri "$v" vm1)" "$TMP/out1.img"
	check "$v: nbdcopy round trip" test "$(sha256sum <"$TMP/out1.img")" = "$want"
	qemu-img convert -n -f raw -O raw "$TMP/src.img" "$(uri "$v" vm2)" &&
	qemu-img convert -f raw -O raw "$(uri "$v" vm2)" "$TMP/out2.img"
	check "$v: qemu-img round trip" test "$(sha256sum <"$TMP/out2.img")" = "$want"
	check "$v: every connection closed, nothing left" wait_for 30 stats_idle "$v"
	check "$v: nbdkit stops" stop "$v"
	check "$v: nothing left in the last stats" stats_idle "$v"
	check "$v: /vm1 read and wrote 16M" \
		test "$(stat_field "$TMP/$v.stats" /vm1 rbytes)" -ge 16777216 -a \
		     "$(stat_field "$TMP/$v.stats" /vm1 wbytes)" -ge 16777216
}
roundtrip file parallel "" file "$TMP/disk.img"
roundtrip memory parallel "" memory 16M
roundtrip requests serialize_requests "" \
	--filter=noparallel memory 16M serialize=requests
roundtrip allrequests serialize_all_requests "" \
	--filter=noparallel memory 16M serialize=all-requests
# one connection at a time: nbdcopy must not open several
roundtrip connections serialize_connections --connections=1 \
	--filter=noparallel memory 16M serialize=connections

# zero counts its length as written bytes, trim one write of no bytes;
# flush passes uncounted
start z --filter="$FILTER" memory 16M ioqos-group=fixed:/z ioqos-stats="$TMP/z.stats" || exit 1
qemu-io -f raw "$(uri z x)" -c 'write -P 7 0 64k' -c 'write -z 64k 1M' \
	-c 'discard 2M 1M' -c 'flush' -c 'read -P 7 0 64k' -c 'read -P 0 64k 1M' \
	>"$TMP/qio.out" 2>&1
check "qemu-io: written pattern and zeroes read back" \
	sh -c "! grep -qi 'pattern verification failed\|error' '$TMP/qio.out'"
stop z
check "zero and trim counted: 3 writes of 64k + 1M bytes" \
	grep -q '^/z rios=2 rbytes=1114112 wios=3 wbytes=1114112 ' "$TMP/z.stats"
finish
