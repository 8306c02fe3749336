#!/bin/sh
# The filter's parameters and groups: nbdinfo shows the export through it,
# --help lists its parameters, bad parameters and configs stop nbdkit with
# a message naming them, each connection lands in the group that
# ioqos-group asks for, and a changed config file applies to a request
# that is already queued.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/qos.conf" <<E
/       depth=8
/vm1    rbps=16k
/vm2
/a/b
/default
E

# nbdinfo shows the export, unchanged by the filter
start s --filter="$FILTER" memory 64M ioqos-config="$TMP/qos.conf" \
	ioqos-stats="$TMP/s.stats" ioqos-poll=100ms || exit 1
nbdinfo "$(uri s vm1)" >"$TMP/info" 2>&1
check "nbdinfo shows the export" grep -q 'export="vm1"' "$TMP/info"
check "nbdinfo shows its size" grep -q 'export-size: 67108864' "$TMP/info"

# groups by export name: "vm2" and "a/b" and "" (the default export)
nbdinfo "$(uri s vm2)" >/dev/null 2>&1
nbdinfo "$(uri s a/b)" >/dev/null 2>&1
nbdinfo "nbd+unix://?socket=$TMP/s.sock" >/dev/null 2>&1
if nbdinfo "$(uri s 'bad%20name')" >/dev/null 2>&1; then
	bad "an export name that is not a group path is refused"
else
	ok "an export name that is not a group path is refused"
fi
check "the refusal is logged" grep -q "export 'bad name' refused" "$TMP/s.log"

# a changed config applies to a request that is already queued: one 512 KiB
# read at 16 KiB/s would take half a minute
qemu-io -f raw "$(uri s vm1)" -c 'read 0 512k' >"$TMP/qio.out" 2>&1 &
QIO=$!
PIDS="$PIDS $QIO"
queued() { [ "$(stat_field "$TMP/s.stats" /vm1 queued)" = 1 ]; }
check "a read waits under rbps=16k" wait_for 10 queued
printf '/vm1 rbps=bogus\n' >"$TMP/qos.new" && mv "$TMP/qos.new" "$TMP/qos.conf"
check "a bad config is reported" wait_for 5 grep -q "qos.conf:1: key 'rbps'" "$TMP/s.log"
check "and changes nothing" queued
printf '/ depth=8\n/vm1 rbps=max\n/vm2\n/a/b\n/default\n' >"$TMP/qos.new" && mv "$TMP/qos.new" "$TMP/qos.conf"
gone() { ! kill -0 "$QIO" 2>/dev/null; }
check "a reload lifts the limit of a queued read" wait_for 10 gone
kill "$QIO" 2>/dev/null
wait "$QIO"
check "the read succeeded" test $? = 0
reloaded() { [ "$(stat_field "$TMP/s.stats" '#' reloads)" = 1 ]; }
check "one reload counted" wait_for 5 reloaded
check "nbdkit stops" stop s
for g in / /vm1 /vm2 /a /a/b /default; do
	check "group $g in the stats" grep -q "^$g " "$TMP/s.stats"
done
check "nothing left queued" grep -q '^# .* queued=0 inflight=0' "$TMP/s.stats"

# ioqos-group=peer: a unix client is its user; fixed: one group for all
start p -v --filter="$FILTER" memory 1M ioqos-group=peer ioqos-stats="$TMP/p.stats" || exit 1
nbdinfo "$(uri p vm1)" >/dev/null 2>&1
stop p
check "peer group /peer/uid-$(id -u)" grep -q "ioqos: connection joins /peer/uid-$(id -u)$" "$TMP/p.log"
check "no export group in peer mode" sh -c "! grep -q 'ioqos: connection joins /vm1' '$TMP/p.log'"
start f --filter="$FILTER" memory 1M ioqos-group=fixed:/all/of/them ioqos-stats="$TMP/f.stats" || exit 1
nbdinfo "$(uri f vm1)" >/dev/null 2>&1
stop f
check "fixed group" grep -q '^/all/of/them rios=[1-9]' "$TMP/f.stats"

# bad parameters stop nbdkit with one message naming them
expect_refused() { # NAME PATTERN ARGS...
	name=$1 pat=$2; shift 2
	if nbdkit -U "$TMP/x.sock" --filter="$FILTER" memory 1M "$@" --run true \
		>"$TMP/x.log" 2>&1; then
		bad "$name: nbdkit started"
	elif grep -Eq -- "$pat" "$TMP/x.log"; then
		ok "$name"
	else
		bad "$name: no '$pat' in:"; cat "$TMP/x.log"
	fi
}
printf '/vm1 rbps=12x\n' >"$TMP/bad.conf"
expect_refused "bad config" "bad.conf:1: key 'rbps': bad value '12x'" ioqos-config="$TMP/bad.conf"
expect_refused "missing config" "ioqos-config: .*/nope.conf: No such file" ioqos-config="$TMP/nope.conf"
expect_refused "bad ioqos-group" "ioqos-group: bad value 'users' \\(export, peer, cgroup or fixed:/PATH\\)" ioqos-group=users
expect_refused "bad fixed group" "fixed:vm1: not a group path" ioqos-group=fixed:vm1
expect_refused "bad ioqos-poll" "ioqos-poll: bad value '5'" ioqos-poll=5
# a poll period under 10 ms kept the poll thread busy (1ns: 65% of a core)
expect_refused "ioqos-poll=1ns" \
	"ioqos-poll: bad value '1ns': shorter than 10 ms, the least" ioqos-poll=1ns
expect_refused "ioqos-poll=9999us" \
	"ioqos-poll: bad value '9999us': shorter than 10 ms, the least" ioqos-poll=9999us
check "ioqos-poll=10ms is taken" \
	nbdkit -U "$TMP/poll.sock" --filter="$FILTER" memory 1M ioqos-poll=10ms --run true
nbdkit --filter="$FILTER" memory --help >"$TMP/help" 2>&1
for k in ioqos-config ioqos-group ioqos-poll ioqos-stats; do
	check "--help lists $k" grep -q "^$k" "$TMP/help"
done
finish
