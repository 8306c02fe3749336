#!/bin/sh
# fill_device= and create_serialize= (filldev.c) on a tmpfs of 1 MiB that
# the test mounts: fio's examples/surface-scan.fio (its jobs, on a file
# there) writes until ENOSPC, ends that job cleanly (err= 0, exit 0), and
# its verify phase takes the file's size when it starts and checks every
# block; a byte changed afterwards fails the same verify job.  Without
# fill_device, ENOSPC is an error.  Needs root (mount); skipped otherwise.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skipped: python3 is needed"; exit 77; }
MNT=$TMP/mnt
mkdir -p "$MNT"
mount -t tmpfs -o size=1m ioqos-filldev "$MNT" 2>/dev/null ||
	{ echo "skipped: cannot mount a tmpfs (not root?)"; exit 77; }
trap 'umount "$MNT" 2>/dev/null; rm -rf "$TMP"' EXIT INT TERM

direct=1
dd if=/dev/zero of="$MNT/d" bs=4k count=1 oflag=direct status=none 2>/dev/null || direct=0
rm -f "$MNT/d"
# surface-scan.fio as fio 3.33 ships it, the file on the tmpfs
scan() { # file
	cat <<EOF
[global]
thread
bs=64k
direct=$direct
ioengine=sync
verify=meta
verify_pattern=0xaa555aa5
verify_interval=512

[write-phase]
filename=$1
rw=write
fill_device=1
do_verify=0

[verify-phase]
stonewall
create_serialize=0
filename=$1
rw=read
do_verify=1
EOF
}
scan "$MNT/datafile.tmp" >"$TMP/scan.fio"
"$IOQOS" run "$TMP/scan.fio" --output-format=json >"$TMP/scan.json" 2>"$TMP/err"
rc=$?
size=$(stat -c %s "$MNT/datafile.tmp" 2>/dev/null)
if [ $rc = 0 ] && [ "$size" = 1048576 ] && python3 - "$TMP/scan.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
j = {x["jobname"]: x for x in r["jobs"]}
w, v = j["write-phase"], j["verify-phase"]
# the tmpfs holds 1 MiB: 16 writes of 64 KiB, then ENOSPC ends the job
assert w["error"] == 0 and w["write"]["io_bytes"] == 1 << 20, w["write"]
assert w["write"]["total_ios"] == 16 and w["read"]["io_bytes"] == 0
# the verify phase: the file's size when it started, every block checked
assert v["error"] == 0 and v["read"]["io_bytes"] == 1 << 20, v["read"]
assert v["read"]["total_ios"] == 16 and v["write"]["io_bytes"] == 0
PY
then
	ok "surface-scan.fio: 1 MiB written until ENOSPC (exit 0, err 0), the same read and verified"
else
	bad "surface-scan.fio: exit $rc, file $size bytes:"; cat "$TMP/err"
fi
if "$IOQOS" run "$TMP/scan.fio" >"$TMP/out" 2>&1 && grep -q '^write-phase: (groupid=0, jobs=1): err= 0' "$TMP/out" &&
	grep -q 'WRITE: .*io=1024KiB' "$TMP/out" && grep -q 'READ: .*io=1024KiB' "$TMP/out"; then
	ok "surface-scan.fio again over the full file: it starts anew, as fio unlinks it"
else
	bad "surface-scan.fio, second run:"; cat "$TMP/out"
fi

# the verify job alone fails on a byte changed in the middle of the file
sed -n '/^\[global\]/,/^$/p' "$TMP/scan.fio" >"$TMP/v.fio"
printf '[verify-phase]\nfilename=%s\nrw=read\ndo_verify=1\ncreate_serialize=0\n' \
	"$MNT/datafile.tmp" >>"$TMP/v.fio"
printf 'X' | dd of="$MNT/datafile.tmp" bs=1 seek=300000 conv=notrunc status=none
if "$IOQOS" run "$TMP/v.fio" >"$TMP/out" 2>"$TMP/err"; then
	bad "a changed byte was not found by the verify phase"
elif grep -q 'verify' "$TMP/err" "$TMP/out"; then
	ok "a changed byte fails the verify phase"
else
	bad "a changed byte: no verify failure:"; cat "$TMP/err"
fi

# a short write (48 KiB does not divide 1 MiB) ends the job as ENOSPC does
rm -f "$MNT/datafile.tmp"
printf '[w]\nioengine=psync\ndirect=%s\nbs=48k\nrw=write\nfill_fs=1\nfilename=%s/f\n' \
	"$direct" "$MNT" >"$TMP/w.fio"
if "$IOQOS" run "$TMP/w.fio" >"$TMP/out" 2>&1 && [ "$(stat -c %s "$MNT/f")" = 1048576 ]; then
	ok "fill_fs=1, bs=48k: the filesystem full, the short write the end"
else
	bad "fill_fs=1 bs=48k:"; cat "$TMP/out"; ls -l "$MNT"
fi
rm -f "$MNT/f"

# without fill_device, running out of space is an error
printf '[w]\nioengine=psync\ndirect=%s\nbs=64k\nrw=write\nsize=2m\nfilename=%s/f\n' \
	"$direct" "$MNT" >"$TMP/w.fio"
# (the file is not laid out with data: fio's fallocate=native fails
# quietly, and the 17th write is the one that finds the disk full)
if "$IOQOS" run "$TMP/w.fio" >"$TMP/out" 2>"$TMP/err"; then
	bad "size=2m on 1 MiB: exit 0"
elif grep -q "write of 65536 bytes at offset 1048576 .*No space left on device" "$TMP/err" &&
	grep -q '^w: (groupid=0, jobs=1): err=28' "$TMP/out"; then
	ok "size=2m on 1 MiB: ENOSPC is an error, err=28"
else
	bad "size=2m on 1 MiB:"; cat "$TMP/err" "$TMP/out"
fi
rm -f "$MNT/f"

# create_serialize=0 on a file that is empty when the job starts
: >"$MNT/empty"
printf '[r]\nioengine=psync\nfilename=%s/empty\ncreate_serialize=0\n' "$MNT" >"$TMP/r.fio"
# fio ends such a job at its start with err=22 ("you need to specify size=")
if "$IOQOS" run "$TMP/r.fio" >"$TMP/out" 2>"$TMP/err"; then
	bad "create_serialize=0 on an empty file: exit 0"
elif grep -q "job 'r': size= is needed (its file is empty when it starts)" "$TMP/err" &&
	grep -q '^r: (groupid=0, jobs=1): err=22' "$TMP/out"; then
	ok "create_serialize=0: an empty file at the start ends the job, err=22"
else
	bad "create_serialize=0 on an empty file:"; cat "$TMP/err" "$TMP/out"
fi

# what is refused, and why
printf '[w]\nfilename=%s/f\nrw=randwrite\nfill_device=1\n' "$MNT" >"$TMP/c.fio"
expect_fail "check: fill_device with randwrite" "fill_device=1 runs with rw=write only" \
	"$IOQOS" check "$TMP/c.fio"
printf '[w]\nfilename=%s/f\nrw=write\nfill_device=1\n' "$MNT" >"$TMP/c.fio"
expect_fail "run: fill_device on the sim engine" "the sim engine writes no file" \
	"$IOQOS" run --engine sim "$TMP/c.fio"
finish
