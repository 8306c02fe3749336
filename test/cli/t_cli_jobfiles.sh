#!/bin/sh
# invalidate= and unlink= (invalidate.c), as fio 3.33: invalidate=1 (fio's
# default) drops the cached pages of the job's region as it starts, so a
# file read whole into the page cache keeps only what lies outside the
# region (fincore), with the same posix_fadvise call as fio's (strace);
# invalidate=0 leaves the cache alone, with no such call; unlink=1 removes
# the job's file as it ends, unlink=0 (the default) leaves it.
#
# Where the kernel pages file pages out on its own (DAMON's pageout scheme,
# which some virtual machines run whatever memory is free), the page cache
# is not the job's alone: a page it takes in the meantime, or holds while
# the job's fadvise passes, counts against the job (one page of 256 more or
# fewer, now and then).  There the page cache is not measured; the calls
# still are.
. "$(dirname "$0")/lib.sh"
find_fio

# runit TOOL JOBFILE WHAT: ioqos or fio on JOBFILE, a failure reported
runit() {
	if [ "$1" = ioqos ]; then
		"$IOQOS" run "$2" >/dev/null 2>"$TMP/err"
	else
		"$FIO" "$2" >/dev/null 2>"$TMP/err"
	fi || { bad "$3: $1 exit non-zero"; cat "$TMP/err"; }
}

# the bytes of a file in the page cache (fincore's RES)
cached() { fincore -b -n -o RES "$1" | tr -d ' '; }

# proactive_reclaim: what pages file pages out on its own here, if anything
proactive_reclaim() {
	for k in /sys/kernel/mm/damon/admin/kdamonds/[0-9]*; do
		[ "$(cat "$k/state" 2>/dev/null)" = on ] &&
			grep -qx pageout "$k"/contexts/*/schemes/*/action 2>/dev/null &&
			{ echo "DAMON's pageout scheme, $k"; return 0; }
	done
	[ "$(cat /sys/module/damon_reclaim/parameters/enabled 2>/dev/null)" = Y ] &&
		{ echo "DAMON_RECLAIM"; return 0; }
	return 1
}

# the file written back first: POSIX_FADV_DONTNEED drops clean pages only
if why=$(proactive_reclaim); then
	skip_part "invalidate=: the page cache: the kernel pages file pages out on its own here ($why)"
elif command -v fincore >/dev/null && head -c 1048576 /dev/urandom >"$TMP/c.dat" &&
   sync "$TMP/c.dat" && cat "$TMP/c.dat" >/dev/null &&
   [ "$(cached "$TMP/c.dat")" = 1048576 ]; then
	for inv in 1 0 default; do
		for tool in ioqos fio; do
			[ "$tool" = fio ] && [ -z "$FIO" ] && continue
			printf '[c]\nioengine=psync\nrw=read\ndirect=1\noffset=256k\nsize=256k\nbs=4k\nfilename=%s/c.dat\n' \
				"$TMP" >"$TMP/c.fio"
			[ "$inv" = default ] || printf 'invalidate=%s\n' "$inv" >>"$TMP/c.fio"
			cat "$TMP/c.dat" >/dev/null
			runit "$tool" "$TMP/c.fio" "invalidate=$inv"
			eval "got_$tool=\$(cached \"\$TMP/c.dat\")"
		done
		want=786432
		[ "$inv" = 0 ] && want=1048576
		if [ "$got_ioqos" = "$want" ] && { [ -z "$FIO" ] || [ "$got_fio" = "$want" ]; }; then
			ok "invalidate=$inv: $((want / 1024)) KiB of 1 MiB still cached after a job on 256k..512k, as under fio"
		else
			bad "invalidate=$inv: cached after ioqos ${got_ioqos}, fio ${got_fio:-none}, want $want"
		fi
	done
else
	skip_part "invalidate=: no fincore, or the page cache does not keep a file here"
fi

# the call itself: fio's posix_fadvise over the region, none without
# invalidate=
# dontneed TOOL...: the DONTNEED calls of TOOL on $TMP/c.fio, one a line
dontneed() {
	strace -f -qq -e trace=fadvise64 -o "$TMP/st" "$@" "$TMP/c.fio" >/dev/null 2>&1
	grep -o 'fadvise64([0-9]*, [0-9]*, [0-9]*, POSIX_FADV_DONTNEED)' "$TMP/st" |
		sed 's/([0-9]*, /(/'
}
if strace -f -o /dev/null true 2>/dev/null; then
	[ -e "$TMP/c.dat" ] || head -c 1048576 /dev/zero >"$TMP/c.dat"
	for inv in 1 0 default; do
		printf '[c]\nioengine=psync\nrw=read\noffset=256k\nsize=256k\nbs=4k\nfilename=%s/c.dat\n' \
			"$TMP" >"$TMP/c.fio"
		[ "$inv" = default ] || printf 'invalidate=%s\n' "$inv" >>"$TMP/c.fio"
		want="fadvise64(262144, 262144, POSIX_FADV_DONTNEED)"
		[ "$inv" = 0 ] && want=
		q=$(dontneed "$IOQOS" run)
		f="(no fio)"
		[ -n "$FIO" ] && f=$(dontneed "$FIO")
		if [ "$q" = "$want" ] && { [ -z "$FIO" ] || [ "$q" = "$f" ]; }; then
			ok "invalidate=$inv: ${q:-no DONTNEED call}, as fio's"
		else
			bad "invalidate=$inv: ioqos '$q', fio '$f', want '$want'"
		fi
	done
else
	skip_part "the fadvise calls: strace cannot trace here"
fi

# unlink=
for u in 1 0; do
	for tool in ioqos fio; do
		[ "$tool" = fio ] && [ -z "$FIO" ] && continue
		printf '[u]\nioengine=psync\nrw=write\nsize=64k\nbs=4k\nfilename=%s/u.dat\nunlink=%s\n' \
			"$TMP" "$u" >"$TMP/u.fio"
		rm -f "$TMP/u.dat"
		runit "$tool" "$TMP/u.fio" "unlink=$u"
		eval "left_$tool=\$([ -e \"\$TMP/u.dat\" ] && echo kept || echo removed)"
	done
	want=removed
	[ "$u" = 0 ] && want=kept
	if [ "$left_ioqos" = "$want" ] && { [ -z "$FIO" ] || [ "$left_fio" = "$want" ]; }; then
		ok "unlink=$u: the file $want at the job's end, as under fio"
	else
		bad "unlink=$u: ioqos $left_ioqos, fio ${left_fio:-none}, want $want"
	fi
done
finish
