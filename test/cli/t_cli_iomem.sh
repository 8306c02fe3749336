#!/bin/sh
# mem= and iomem= (iomem.c), beside fio 3.33: a job's buffers in one
# region taken as fio takes it (the shmget and mmap calls and their sizes,
# when strace may trace here), the I/O as with malloc; mmap:FILE's file
# there during the run and removed after; huge pages, which this machine
# may not have, fail as fio's do (exit non-zero), or run as fio's.
. "$(dirname "$0")/lib.sh"
find_fio

job() {
	printf '[m]\nioengine=io_uring\nrw=randwrite\nsize=256k\nbs=64k\niodepth=4\nfilename=%s/m.dat\n%s\n' \
		"$TMP" "$1" >"$TMP/m.fio"
}

# the region's calls: shmget of 4 x 64k (with O_DIRECT twice a page less
# a byte more, as fio pads it), an anonymous mmap of as much (only with
# O_DIRECT, whose size no malloc of 256 KiB has); the sizes as fio's
if strace -f -o /dev/null true 2>/dev/null; then
	for c in "mem=shm:shmget:1 0" "iomem=shm:shmget:1 0" "mem=mmap:mmap:1" "mem=mmapshared:mmap:1"; do
		o=${c%%:*} call=$(echo "$c" | cut -d: -f2) ds=${c##*:}
		for d in $ds; do
			job "$o
direct=$d"
			strace -f -qq -e trace=shmget,mmap -o "$TMP/st" "$IOQOS" run "$TMP/m.fio" \
				>/dev/null 2>"$TMP/err" || { bad "$o direct=$d: exit non-zero"; cat "$TMP/err"; }
			size=$((262144 + d * 8190))
			pat="$call(.*, $size, "
			q=$(grep -c "$pat" "$TMP/st")
			f="(no fio)"
			if [ -n "$FIO" ]; then
				strace -f -qq -e trace=shmget,mmap -o "$TMP/st" "$FIO" "$TMP/m.fio" >/dev/null 2>&1
				f=$(grep -c "$pat" "$TMP/st")
			fi
			if [ "$q" = 1 ] && { [ -z "$FIO" ] || [ "$f" = 1 ]; }; then
				ok "$o direct=$d: one $call of $size bytes, as fio's"
			else
				bad "$o direct=$d: $call of $size bytes: ioqos $q, fio $f"; grep "$call" "$TMP/st" | head -5
			fi
		done
	done
else
	skip_part "the region's calls: strace cannot trace here"
fi

# the data goes through the region: written and read back checked
for o in mem=malloc mem=shm mem=mmap mem=mmapshared; do
	job "$o
verify=crc32c"
	if "$IOQOS" run "$TMP/m.fio" >"$TMP/out" 2>"$TMP/err" && grep -q "read: IOPS" "$TMP/out"; then
		ok "$o: 256 KiB written and verified"
	else
		bad "$o: verify= failed:"; cat "$TMP/err"
	fi
done

# mmap:FILE: the file is the region during the run, gone after (looked
# for while the run goes on, however late a loaded machine starts it)
job "mem=mmap:$TMP/region
runtime=1
time_based"
"$IOQOS" run "$TMP/m.fio" >/dev/null 2>"$TMP/err" &
pid=$!
seen=no
while kill -0 "$pid" 2>/dev/null; do
	[ -e "$TMP/region" ] && { seen=yes; break; }
	sleep 0.05
done
wait "$pid" || bad "mem=mmap:FILE: exit non-zero"
if [ "$seen" = yes ] && [ ! -e "$TMP/region" ]; then
	ok "mem=mmap:FILE: the file there during the run, removed after"
else
	bad "mem=mmap:FILE: seen during the run: $seen, after: $([ -e "$TMP/region" ] && echo there || echo gone)"
fi

# huge pages: the same outcome as fio's (this machine may have none)
for o in mem=shmhuge mem=mmaphuge; do
	job "$o"
	"$IOQOS" run "$TMP/m.fio" >/dev/null 2>"$TMP/err"
	q=$?
	[ "$q" = 0 ] || q="fail"
	f="(no fio)"
	if [ -n "$FIO" ]; then
		"$FIO" "$TMP/m.fio" >/dev/null 2>&1
		f=$?
		[ "$f" = 0 ] || f="fail"
	fi
	if [ -z "$FIO" ] || [ "$q" = "$f" ]; then
		if [ "$q" = 0 ]; then
			ok "$o: runs, as under fio"
		else
			ok "$o: fails, as under fio: $(head -1 "$TMP/err" | cut -c1-100)"
		fi
	else
		bad "$o: ioqos $q, fio $f:"; cat "$TMP/err"
	fi
done

printf '[m]\nmem=cudamalloc\n' >"$TMP/bad.fio"
expect_fail "mem=cudamalloc refused" "bad.fio:2: mem=cudamalloc: ioqos has no CUDA" \
	"$IOQOS" check "$TMP/bad.fio"
printf '[m]\nmem=shm:file\n' >"$TMP/bad.fio"
expect_fail "mem=shm:file refused" "bad.fio:2: mem=shm:file: only mmap, mmaphuge and mmapshared take a file" \
	"$IOQOS" check "$TMP/bad.fio"
finish
