#!/bin/sh
# Count fio's own example job files that `ioqos check` accepts, and list
# the others with the engines they name and the first reason given.
#
#   sh test/cli/fio_examples.sh DIR        DIR: fio's source tree (its
#                                          examples/*.fio), or any folder of
#                                          .fio files
#   sh test/cli/fio_examples.sh            /usr/share/doc/fio/examples
#                                          (Debian's fio-examples package)
#   RUN=1 sh test/cli/fio_examples.sh DIR  and run each accepted file in
#                                          scope, as a copy scaled down to a
#                                          scratch directory (below)
#
# Not part of ./check: fio's examples are not in this tree.  A file is in
# scope when every engine it names (in its sections, else in the fio
# command line its comments give, else fio's default, psync) is one that
# ioqos runs: sync psync vsync pvsync pvsync2 libaio posixaio io_uring
# mmap null.  Exit status 0; the figures are the output.
#
# With RUN=1 each accepted file in scope is run by `ioqos run` (at most
# RUN_TIMEOUT s, default 120) in a scratch directory, from a copy in which
# block devices and directories name that directory instead
# (filename=/dev/... becomes a file there, directory= is "."), sizes
# above 64 MiB (size, filesize, io_size, io_limit) become 16 MiB, and
# runtime= and ramp_time= are at most 2 s and 1 s, and offset_increment=
# above 64 MiB is 256 MiB: the same jobs and options, on this machine's
# scale; a scratch file of 64 MiB stands for the block device (sparse,
# 256 MiB a clone more, where offset_increment= was scaled).  A run counts when it ends with status 0, or 1 where
# the file expects errors (enospc-pressure); one still running at the
# time limit (rate-limited jobs, loops=500000) is counted apart; a file
# that fills its file system (fill_device) is not run.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
IOQOS=${IOQOS:-$ROOT/build/ioqos}
dir=${1:-/usr/share/doc/fio/examples}
[ -d "$dir/examples" ] && dir=$dir/examples
[ -x "$IOQOS" ] || { echo "no $IOQOS: build it first" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ioqos-fioex.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
ours=" sync psync vsync pvsync pvsync2 libaio posixaio io_uring mmap null "

total=0 accepted=0 scope=0 scope_ok=0 ran=0 ran_ok=0 ran_long=0

# run_one FILE NAME: the scaled-down copy of FILE, run in a directory of its own
run_one() {
	local d="$TMP/run/$2" rc
	mkdir -p "$d"
	sed -E -e 's#^([[:space:]]*filename[[:space:]]*=[[:space:]]*)/dev/[^[:space:]]*#\1scratch.dat#' \
	    -e 's#^([[:space:]]*directory[[:space:]]*=).*#\1.#' \
	    -e 's#^([[:space:]]*(size|filesize|io_size|io_limit)[[:space:]]*=[[:space:]]*)([0-9]+([.][0-9]+)?[[:space:]]*[gGtTpP]|[0-9]{3,}[[:space:]]*[mM])[^[:space:]:,]*#\116m#' \
	    -e 's#^([[:space:]]*offset_increment[[:space:]]*=[[:space:]]*)([0-9]+([.][0-9]+)?[[:space:]]*[gGtTpP]|[0-9]{3,}[[:space:]]*[mM])[^[:space:]:,]*#\1256m#' \
	    -e 's#^([[:space:]]*runtime[[:space:]]*=[[:space:]]*)[0-9]+[a-z]*#\12#' \
	    -e 's#^([[:space:]]*ramp_time[[:space:]]*=[[:space:]]*)[0-9]+[a-z]*#\11#' \
	    "$1" > "$d/job.fio"
	if grep -Eq '^[[:space:]]*(fill_device|fill_fs)[[:space:]]*=[[:space:]]*(1|true)' "$1"; then
		echo "not run: $2: it fills its file system (t_cli_filldev.sh runs it on a small tmpfs)" >>"$TMP/runs"
		rm -rf "$d"
		return
	fi
	# what stood for a block device: a file of the device's part here,
	# and where the clones of a job lie 256 MiB apart (offset_increment
	# scaled down), one sparse stretch each
	dd if=/dev/zero of="$d/scratch.dat" bs=1M count=64 status=none
	if grep -q '^[[:space:]]*offset_increment[[:space:]]*=[[:space:]]*256m' "$d/job.fio"; then
		nj=$(sed -n 's/^[[:space:]]*numjobs[[:space:]]*=[[:space:]]*\([0-9]*\).*/\1/p' "$d/job.fio" |
		     sort -n | tail -1)
		truncate -s $((${nj:-1} * 256 + 64))M "$d/scratch.dat"
	fi
	ran=$((ran + 1))
	(cd "$d" && timeout "${RUN_TIMEOUT:-120}" "$IOQOS" run job.fio) >"$d/out" 2>"$d/err"
	rc=$?
	if [ $rc = 0 ] || { [ $rc = 1 ] && grep -qi 'enospc\|ignore_error' "$1"; }; then
		ran_ok=$((ran_ok + 1))
	elif [ $rc = 124 ] && grep -q 'report above is partial' "$d/err"; then
		ran_long=$((ran_long + 1))
		echo "stopped at the time limit, its partial report printed: $2" >>"$TMP/runs"
	else
		echo "run failed (status $rc): $2: $(tail -n 2 "$d/err" | tr '\n' ' ')" >>"$TMP/runs"
	fi
	rm -rf "$d"
}
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
		[ $in = 1 ] && [ "${RUN:-0}" = 1 ] && run_one "$f" "$name"
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
[ "${RUN:-0}" = 1 ] && echo "accepted in scope, run scaled down: $ran; ended as fio would: $ran_ok; still running at the time limit: $ran_long"
[ -s "$TMP/runs" ] && { echo; cat "$TMP/runs"; }
[ -s "$TMP/in" ] && { echo; echo "refused, engines in scope:"; cat "$TMP/in"; }
[ -s "$TMP/out" ] && { echo; echo "refused for their engine:"; cat "$TMP/out"; }
exit 0
