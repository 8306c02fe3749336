#!/bin/sh
# What a client sends reaches nbdkit's log escaped.  nbdinfo asks for
# export names that hold a newline and terminal escapes, the newline
# followed by a line of the filter's own ("...: ioqos: connection joins
# /vm1"): refused because the config names no such group, because it is
# not a group path, or by an allow= above it, each refusal is one line of
# the log, the name in C escapes (\n, \x1b, \\), and no escape byte and no
# line of the client's making is in the log.  A long name is cut, "...".
# The servers run without -v: nbdkit's own debug lines are not the
# filter's to escape.
. "$(dirname "$0")/lib.sh"

printf '/vm1\n/t allow=uid:4242\n' >"$TMP/qos.conf"
start s --filter="$FILTER" memory 1M ioqos-config="$TMP/qos.conf" || exit 1
start a --filter="$FILTER" memory 1M ioqos-config="$TMP/qos.conf" \
	ioqos-exports=any || exit 1

# the forged line, as the client sends it (URI-encoded) and as it must be
# logged: a newline, a line that would pass for ours, a backslash, and an
# escape sequence that clears the screen
FORGED='%0Anbdkit:%20memory%5B1%5D:%20debug:%20ioqos:%20connection%20joins%20/vm1%5Cx%1B%5B2J'
LOGGED='\nnbdkit: memory[1]: debug: ioqos: connection joins /vm1\\x\x1b[2J'
ESC=$(printf '\033')

# refused SERVER EXPORT: nbdinfo is refused export EXPORT (URI-encoded)
refused() { ! nbdinfo --size "$(uri "$1" "$2")" >/dev/null 2>&1; }
# one_line SERVER TEXT: exactly one line of SERVER's log holds TEXT
one_line() { [ "$(grep -cF -- "$2" "$TMP/$1.log")" = 1 ]; }
# clean SERVER: no escape byte in its log, and no line the client made
clean() {
	! grep -q "$ESC" "$TMP/$1.log" && ! grep -q '^nbdkit: memory\[1\]: debug' "$TMP/$1.log"
}

check "not in the config: refused" refused s "vm9$FORGED"
check "not in the config: one line, escaped" one_line s \
	"ioqos: export 'vm9$LOGGED' refused: the config names no group /vm9$LOGGED (ioqos-exports=config)"

check "not a group path: refused" refused a "vm9$FORGED"
check "not a group path: one line, escaped" one_line a \
	"ioqos: export 'vm9$LOGGED' refused: not a group path"

check "allow= above it: refused" refused a "t/x$FORGED"
check "allow= above it: one line, escaped" one_line a \
	"ioqos: export 't/x$LOGGED' refused: uid $(id -u) gid $(id -g) may not join /t/x$LOGGED (allow= of /t, line 2)"

# a quote in the name ends no quoted name early
check "a quote: refused" refused s "it's"
check "a quote: escaped" one_line s "ioqos: export 'it\\'s' refused"

# 1000 bytes of name: the first 256 of them, then "..."
long=$(printf '%01000d' 0 | tr 0 x)
check "a long name: refused" refused s "$long"
cut256=$(printf '%0256d' 0 | tr 0 x)
check "a long name: cut after 256 bytes" one_line s "export '$cut256...' refused"

check "no escape byte, no line of the client's, in either log" clean s
check "(the second server's)" clean a
check "nbdkit stops" stop s
check "nbdkit stops" stop a
finish
