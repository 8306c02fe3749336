#!/bin/sh
# Count fio's own example job files that `ioqos check` accepts, and list
# the others with the engines they name and the first reason given.
#
#   sh test/cli/fio_examples.sh DIR        DIR: fio's source tree (its
#                                          examples/*.fio), or any folder of
#                                          .fio files
#   sh test/cli/fio_examples.sh            /usr/share/doc/fio/examples
#                                          (Debian's fio-examples package)
#
# Not part of ./check: fio's examples are not in this tree.  A file is in
# scope when every engine it names (in its sections, else in the fio
# command line its comments give, else fio's default, psync) is one that
# ioqos runs: sync psync vsync pvsync pvsync2 libaio posixaio io_uring
# mmap null.  Exit status 0; the figures are the output.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
IOQOS=${IOQOS:-$ROOT/build/ioqos}
dir=${1:-/usr/share/doc/fio/examples}
[ -d "$dir/examples" ] && dir=$dir/examples
[ -x "$IOQOS" ] || { echo "no $IOQOS: build it first" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ioqos-fioex.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
ours=" sync psync vsync pvsync pvsync2 libaio posixaio io_uring mmap null "

total=0 accepted=0 scope=0 scope_ok=0
for f in "$dir"/*.fio; do
	[ -e "$f" ] || continue
	total=$((total + 1))
	name=$(basename "$f")
	engines=$(sed -n 's/^[[:space:]]*ioengine[[:space:]]*=[[:space:]]*\([^[:space:];#]*\).*/\1/p' "$f" |
		  sort -u | tr '\n' ' ')
	# a file that names no ioengine= in its sections but is meant to be
	# run with --ioengine= on fio's command line (its comments show it)
	# runs those engines (the xnvme-* files); otherwise fio's default
	if [ -z "$engines" ]; then
		engines=$(sed -n 's/^[;#].*--ioengine=\([^[:space:]\\]*\).*/\1/p' "$f" |
			  sort -u | tr '\n' ' ')
	fi
	if [ -z "$engines" ]; then
		engines="psync "
	fi
	in=1
	for e in $engines; do
		case "$ours" in *" $e "*) ;; *) in=0 ;; esac
	done
	[ $in = 1 ] && scope=$((scope + 1))
	if (cd "$TMP" && "$IOQOS" check "$f") >/dev/null 2>"$TMP/err"; then
		accepted=$((accepted + 1))
		[ $in = 1 ] && scope_ok=$((scope_ok + 1))
		continue
	fi
	reason=$(sed -e "s|^ioqos: $dir/||" -e 's/^ioqos: //' "$TMP/err" | head -3 | tr '\n' ' ')
	if [ $in = 1 ]; then
		echo "refused (engines in scope: $engines): $name: $reason" >>"$TMP/in"
	else
		echo "refused (engine $engines): $name" >>"$TMP/out"
	fi
done
echo "fio examples in $dir: $total; accepted by ioqos check: $accepted"
echo "with only engines ioqos runs: $scope; accepted: $scope_ok"
[ -s "$TMP/in" ] && { echo; echo "refused, engines in scope:"; cat "$TMP/in"; }
[ -s "$TMP/out" ] && { echo; echo "refused for their engine:"; cat "$TMP/out"; }
exit 0
