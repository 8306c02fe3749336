#!/bin/sh
# rw=trim, randtrim, trimwrite, randtrimwrite (trim.c): on the null engine
# the same counts as fio's (trimwrite: a write after each trim); on a
# regular file fio's BLKDISCARD fails with ENOTTY, err=25 and exit 1, as
# under fio; on a block device (a loop device on a scratch file, when the
# test may make one) the range reads back as zeros; the controller charges
# a trim as one write of 512 bytes, as blk-throttle does (wiops= and wbps=
# hold it back, riops= does not), and the group table has it in the write
# column.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skipped: python3 is needed"; exit 77; }
find_fio
LOOP=
trap '[ -n "$LOOP" ] && losetup -d "$LOOP"; rm -rf "$TMP"' EXIT INT TERM

# figures of job 0 of a JSON report: err rbytes rios wbytes wios tbytes tios truntime
figs() {
	python3 - "$1" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index("{"):])["jobs"][0]
print(j["error"], *[j[d][k] for d in ("read", "write", "trim")
                    for k in ("io_bytes", "total_ios")], j["trim"]["runtime"])
PY
}

for rw in trim randtrim trimwrite randtrimwrite; do
	printf '[t]\nioengine=null\nrw=%s\nsize=1m\nbs=4k\n' "$rw" >"$TMP/n.fio"
	if ! "$IOQOS" run --output-format=json "$TMP/n.fio" >"$TMP/q.json" 2>"$TMP/err"; then
		bad "rw=$rw on null: exit non-zero:"; cat "$TMP/err"; continue
	fi
	q=$(figs "$TMP/q.json" | cut -d' ' -f1-7)
	if [ -n "$FIO" ]; then
		"$FIO" --output-format=json "$TMP/n.fio" >"$TMP/f.json" 2>/dev/null
		f=$(figs "$TMP/f.json" | cut -d' ' -f1-7)
	else
		f="(no fio)"
	fi
	case $rw in *write) want="0 0 0 1048576 256 1048576 256" ;;
		    *) want="0 0 0 0 0 1048576 256" ;; esac
	if [ "$q" = "$want" ] && { [ -z "$FIO" ] || [ "$q" = "$f" ]; }; then
		ok "rw=$rw on null: err read write trim = $q, as fio's"
	else
		bad "rw=$rw on null: ioqos $q, fio $f, want $want"
	fi
done

# a regular file: BLKDISCARD is not a file's ioctl
printf '[t]\nioengine=psync\nrw=randtrim\nsize=256k\nbs=4k\nfilename=%s/f\n' "$TMP" >"$TMP/f.fio"
"$IOQOS" run --output-format=json "$TMP/f.fio" >"$TMP/q.json" 2>"$TMP/err"
rc=$?
q="$rc $(figs "$TMP/q.json" | cut -d' ' -f1-7)"
if [ -n "$FIO" ]; then
	rm -f "$TMP/f"
	"$FIO" --output-format=json "$TMP/f.fio" >"$TMP/f.json" 2>/dev/null
	f="$? $(figs "$TMP/f.json" | cut -d' ' -f1-7)"
else
	f="(no fio)"
fi
if [ "$q" = "1 25 0 0 0 0 0 1" ] && { [ -z "$FIO" ] || [ "$q" = "$f" ]; } &&
	grep -q "trim of 4096 bytes at offset .*: Inappropriate ioctl for device" "$TMP/err"; then
	ok "randtrim on a regular file: exit 1, err=25, one trim issued, as fio's"
else
	bad "randtrim on a regular file: ioqos $q, fio $f:"; cat "$TMP/err"
fi

# a block device: the trimmed range reads back as zeros
truncate -s 4m "$TMP/img"
if LOOP=$(losetup -f --show "$TMP/img" 2>/dev/null); then
	dd if=/dev/urandom of="$LOOP" bs=1M count=4 status=none
	printf '[t]\nioengine=io_uring\nrw=trim\noffset=1m\nsize=1m\nbs=64k\nfilename=%s\n' \
		"$LOOP" >"$TMP/b.fio"
	if "$IOQOS" run --output-format=json "$TMP/b.fio" >"$TMP/q.json" 2>"$TMP/err" &&
		[ "$(figs "$TMP/q.json" | cut -d' ' -f1,6,7)" = "0 1048576 16" ] &&
		cmp -s -i 1048576 -n 1048576 "$LOOP" /dev/zero &&
		! cmp -s -n 4096 "$LOOP" /dev/zero && ! cmp -s -i 2097152 -n 4096 "$LOOP" /dev/zero; then
		ok "rw=trim on a block device: 1 MiB discarded, the rest as it was"
	else
		bad "rw=trim on a block device:"; cat "$TMP/err"; figs "$TMP/q.json"
	fi
else
	skip_part "rw=trim on a block device: no loop device here"
fi

# the controller: a trim is one write of 512 bytes, as blk-throttle
# charges a discard to io.max (throtl_bio_data_size: one sector)
printf '/t wiops=128\n' >"$TMP/w.qos"
printf '/t riops=128\n' >"$TMP/r.qos"
printf '/t wbps=64k\n' >"$TMP/b.qos"
for rw in trim write; do
	printf '[t]\nioengine=sim\nrw=%s\nsize=512k\nbs=4k\ncgroup=t\n' "$rw" >"$TMP/$rw.fio"
	for q in w r b; do
		"$IOQOS" run --output-format=json --qos "$TMP/$q.qos" "$TMP/$rw.fio" \
			>"$TMP/$rw-$q.json" || bad "rw=$rw under $q.qos: exit non-zero"
	done
done
if python3 - "$TMP" <<'PY'
import json, sys
def job(n):
    r = json.load(open(f"{sys.argv[1]}/{n}.json"))
    return r["jobs"][0], {g["path"]: g for g in r["ioqos"]["groups"]}["/t"]
(tw, gw), (tr, _), (tb, gb) = job("trim-w"), job("trim-r"), job("trim-b")
(ww, _), (wr, _), (wb, _) = job("write-w"), job("write-r"), job("write-b")
# 128 trims at wiops=128: one second of virtual time, as 128 writes
assert tw["trim"]["total_ios"] == 128 and tw["trim"]["runtime"] == 1000, tw["trim"]
assert ww["write"]["runtime"] == 1000, ww["write"]
# riops= does not hold them: as fast as the same writes
assert tr["trim"]["runtime"] == wr["write"]["runtime"] < 1000, (tr["trim"], wr["write"])
# wbps=64k: 128 x 512 bytes take one second; 128 writes of 4 KiB eight
assert tb["trim"]["runtime"] == 1000 and wb["write"]["runtime"] == 8000, (tb, wb)
# the group table: the trims in the write column, 512 bytes each
for g in (gw, gb):
    assert g["write"]["io_bytes"] == 128 * 512 and g["read"]["io_bytes"] == 0, g
assert tb["trim"]["io_bytes"] == 524288 and tb["write"]["io_bytes"] == 0
PY
then
	ok "trims are charged as writes of 512 bytes: wiops=128 and wbps=64k hold 128 for 1 s, riops= not at all"
else
	bad "trims and the controller"
fi

# the trim side of bs=: its third value, else the last given (fio's parser)
for bs in 4k,8k,16k:64:16384 4k,8k:128:8192 4k,,16k:64:16384 16k:64:16384 4k,:256:4096; do
	v=${bs%%:*} n=$(echo "$bs" | cut -d: -f2) len=$(echo "$bs" | cut -d: -f3)
	printf '[t]\nioengine=null\nrw=trim\nsize=1m\nbs=%s\n' "$v" >"$TMP/s.fio"
	"$IOQOS" run --output-format=json "$TMP/s.fio" >"$TMP/q.json" 2>"$TMP/err"
	q=$(figs "$TMP/q.json" | cut -d' ' -f6,7)
	f="(no fio)"
	if [ -n "$FIO" ]; then
		"$FIO" --output-format=json "$TMP/s.fio" >"$TMP/f.json" 2>/dev/null
		f=$(figs "$TMP/f.json" | cut -d' ' -f6,7)
	fi
	if [ "$q" = "1048576 $n" ] && { [ -z "$FIO" ] || [ "$q" = "$f" ]; } &&
		"$IOQOS" check "$TMP/s.fio" | grep -Eq "bs ([0-9]+k read / )?([0-9]+k write / )?$((len / 1024))k( write| trim)?,"; then
		ok "bs=$v: $n trims of $len bytes, as fio's"
	else
		bad "bs=$v: ioqos $q, fio $f, want 1048576 $n:"; cat "$TMP/err"
	fi
done
printf '[t]\nioengine=null\nrw=randtrimwrite\nsize=1m\nbs=4k,8k,16k\n' >"$TMP/c.fio"
expect_fail "check: randtrimwrite with trims of another size than its writes" \
	"rw=randtrimwrite with trim sizes other than its write sizes" "$IOQOS" check "$TMP/c.fio"

printf '[t]\nioengine=psync\nrw=randtrim\nsize=1m\nverify=crc32c\n' >"$TMP/c.fio"
expect_fail "check: verify= with randtrim" "does not verify trimmed blocks" \
	"$IOQOS" check "$TMP/c.fio"
printf '[t]\nioengine=null\nrw=trimming\nsize=1m\n' >"$TMP/c.fio"
expect_fail "check: rw=trimming" "randtrim, trimwrite or randtrimwrite" \
	"$IOQOS" check "$TMP/c.fio"
# the trim side of an option that ioqos applies to reads and writes only:
# refused where the job trims, meaningless (as in fio) where it does not
for o in rate=1m,1m,512k rate_iops=100,,50 blockalign=4k,4k,8k; do
	printf '[global]\n%s\n[t]\nioengine=null\nrw=randtrim\nsize=1m\n' "$o" >"$TMP/c.fio"
	expect_fail "check: $o on a job that trims" \
		"job 't': ${o%%=*}= with a trim side \\(its third value\\) on a job that trims" \
		"$IOQOS" check "$TMP/c.fio"
	printf '[t]\nioengine=null\nrw=randread\nsize=1m\n%s\n' "$o" >"$TMP/c.fio"
	if "$IOQOS" check "$TMP/c.fio" >/dev/null 2>"$TMP/err"; then
		ok "check: $o on a job that only reads"
	else
		bad "check: $o on a job that only reads: $(cat "$TMP/err")"
	fi
done
finish
