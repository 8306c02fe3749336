#!/bin/sh
# Which exports are served, and to whom.  ioqos-exports=config (the
# default with a config): only the groups the config names, never "/".
# allow= on a config line, checked against what the kernel reports for the
# connection: on a unix socket the client's uid and gid (clients run as
# root and, through setpriv, as nobody), over TCP on 127.0.0.1 its
# address; an allow= above a group covers it.  Bad allow= values stop
# nbdkit with file:line; a reload is all or nothing, allow= included.
# ioqos-exports=any: groups made on demand, at most ioqos-max-groups at
# once, and removed when their last connection closes (where the library
# can remove groups; otherwise they stay, and the bound still holds).
. "$(dirname "$0")/lib.sh"
command -v setpriv >/dev/null 2>&1 || skip "setpriv is not installed"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
[ "$(id -u)" = 0 ] || skip "needs root, to connect as another user"
NOBODY=65534

# served NAME EXPORT [AS-NOBODY]: nbdinfo reaches export EXPORT of NAME
served() {
	if [ "${3:-}" = nobody ]; then
		setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
			nbdinfo --size "$(uri "$1" "$2")" >/dev/null 2>&1
	else
		nbdinfo --size "$(uri "$1" "$2")" >/dev/null 2>&1
	fi
}
refused() { ! served "$@"; }

cat >"$TMP/qos.conf" <<E
/           depth=8
/vm1        allow=uid:0
/vm2        rbps=1M allow=uid:$NOBODY
/vm3        allow=gid:$NOBODY,uid:4242
/team       allow=gid:4242
/team/a
/open
E
start s -v --filter="$FILTER" memory 1M ioqos-config="$TMP/qos.conf" ioqos-poll=100ms || exit 1
chmod 755 "$TMP"; chmod 666 "$TMP/s.sock"
check "config: /vm1 serves root (uid:0)" served s vm1
check "config: not nobody" refused s vm1 nobody
check "config: the refusal names the identity and the line" \
	grep -q "export 'vm1' refused: uid $NOBODY gid $NOBODY may not join /vm1 (allow= of /vm1, line 2)" "$TMP/s.log"
check "config: /vm2 serves nobody (uid:$NOBODY), with its settings" served s vm2 nobody
check "config: not root" refused s vm2
check "config: /vm3 serves nobody by gid" served s vm3 nobody
check "config: /team/a: the allow= of /team covers it" refused s team/a
check "config: and says so" grep -q "may not join /team/a (allow= of /team, line 5)" "$TMP/s.log"
check "config: a group without allow= serves anyone" served s open nobody
check "config: an export the config does not name is refused" refused s other
check "config: and logged" grep -q "export 'other' refused: the config names no group /other" "$TMP/s.log"
printf '/x/y\n' >>"$TMP/qos.conf"
xy() { served s x/y; }
check "config: a reload names /x/y" wait_for 5 xy
check "config: but not /x, made only as its parent" refused s x
check "config: \"/\" is never an export" refused s /
check "config: and logged" grep -q "export '/' refused: \"/\" is the device itself" "$TMP/s.log"

# a reload is all or nothing: a bad line keeps the old allow= lists
cp "$TMP/qos.conf" "$TMP/good.conf"
printf '/vm1 allow=uid:4242\n/vm2 rbps=bogus\n' >"$TMP/qos.new" && mv "$TMP/qos.new" "$TMP/qos.conf"
check "reload: the bad line is reported" wait_for 5 grep -q "qos.conf:2: key 'rbps'" "$TMP/s.log"
check "reload: /vm1 still serves root" served s vm1
printf '/vm1 allow=uid:4242\n' >"$TMP/qos.new" && mv "$TMP/qos.new" "$TMP/qos.conf"
gone_root() { refused s vm1; }
check "reload: a good file takes allow= away" wait_for 5 gone_root
check "nbdkit stops" stop s

# over TCP on 127.0.0.1: addresses and ranges; uid: never matches TCP
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$TMP/tcp.conf" <<E
/a  allow=127.0.0.1
/b  allow=10.0.0.0/8
/c  allow=192.0.2.1,127.0.0.0/8
/d  allow=::1,2001:db8::/32
/e  allow=uid:0
E
nbdkit -f -i 127.0.0.1 -p "$port" --filter="$FILTER" memory 1M \
	ioqos-config="$TMP/tcp.conf" >"$TMP/t.log" 2>&1 &
PID_t=$!
PIDS="$PIDS $PID_t"
tcp() { nbdinfo --size "nbd://127.0.0.1:$port/$1" >/dev/null 2>&1; }
check "tcp: the server listens" wait_for 10 tcp a
check "tcp: 10.0.0.0/8 does not admit 127.0.0.1" sh -c "! nbdinfo --size nbd://127.0.0.1:$port/b >/dev/null 2>&1"
check "tcp: 127.0.0.0/8 does" tcp c
check "tcp: IPv6 entries do not admit an IPv4 client" sh -c "! nbdinfo --size nbd://127.0.0.1:$port/d >/dev/null 2>&1"
check "tcp: uid:0 does not admit a TCP client" sh -c "! nbdinfo --size nbd://127.0.0.1:$port/e >/dev/null 2>&1"
check "tcp: the refusal names the address" grep -q "127.0.0.1 may not join /b (allow= of /b, line 2)" "$TMP/t.log"
check "tcp: nbdkit stops" stop t

# bad allow= values stop nbdkit, naming the file, line, key and value
bad_allow() { # NAME PATTERN CONFIG-TEXT
	printf "$3" >"$TMP/bad.conf"
	if nbdkit -U "$TMP/x.sock" --filter="$FILTER" memory 1M ioqos-config="$TMP/bad.conf" \
		--run true >"$TMP/x.log" 2>&1; then
		bad "$1: nbdkit started"
	elif grep -q -- "$2" "$TMP/x.log"; then
		ok "$1"
	else
		bad "$1: no '$2' in:"; cat "$TMP/x.log"
	fi
}
bad_allow "bad entry" "bad.conf:2: key 'allow' value 'uid:x,1.2.3.4': 'uid:x' is not uid:N" '/a\n/b allow=uid:x,1.2.3.4\n'
bad_allow "range too long" "bad.conf:1: key 'allow' value '10.0.0.0/33'" '/a allow=10.0.0.0/33\n'
bad_allow "empty" "bad.conf:1: key 'allow' value ''" '/a allow=\n'
bad_allow "twice on a line" "bad.conf:1: key 'allow' given twice" '/a allow=uid:1 allow=uid:2\n'
bad_allow "twice for a group" "bad.conf:3: key 'allow': /a has one already, on line 1" '/a allow=uid:1\n/b\n/a allow=uid:2\n'
bad_allow "a library error still names its line" "bad.conf:2: key 'weight'" '/a allow=uid:1\n/b weight=0\n'

# ioqos-exports=any: groups on demand, at most 2 at once
start n -v --filter="$FILTER" memory 1M ioqos-exports=any ioqos-max-groups=2 ioqos-poll=100ms \
	ioqos-stats="$TMP/n.stats" || exit 1
hold() { qemu-io -f raw "$(uri n "$1")" -c 'sleep 1500' >/dev/null 2>&1 & PIDS="$PIDS $!"; HELD="$HELD $!"; }
HELD=""
hold p; hold q
joined() { [ "$(grep -c 'ioqos: connection joins /[pq]$' "$TMP/n.log")" -ge 2 ]; }
check "any: two groups made on demand" wait_for 5 joined
check "any: a third is refused while they are open" refused n r
check "any: and logged" grep -q "export 'r' refused: ioqos-max-groups=2" "$TMP/n.log"
check "any: \"/\" is never an export" refused n /
for p in $HELD; do wait "$p"; done
check "any: the filter says groups made on demand are removed" \
	grep -q 'groups made on demand are removed' "$TMP/n.log"
check "any: the groups are removed when their connections close" \
	wait_for 5 grep -q 'ioqos: group /q removed' "$TMP/n.log"
check "any: and the next one is served" served n r
check "any: a nested one and its parent count two" sh -c "! nbdinfo --size '$(uri n s/t/u)' >/dev/null 2>&1"
check "any: then both go" sh -c "nbdinfo --size '$(uri n s/t)' >/dev/null 2>&1"
check "any: and the groups are removed" wait_for 5 grep -q 'ioqos: group /s removed' "$TMP/n.log"
check "any: nbdkit stops" stop n
finish
