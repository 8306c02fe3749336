#!/bin/sh
# verify= against real fio: what fio writes, ioqos checks, and the other way
# round, for every checksum fio 3.33 has; a block overwritten with dd is
# found at its offset by both, with the same expected and received
# checksums; sequential and random writes, verify_backlog, psync and
# io_uring; the engines without data refuse verify.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
command -v fio >/dev/null || { echo "fio is needed"; exit 77; }
F=$TMP/data
# fio leaves JOB-N-verify.state files in the current directory
cd "$TMP" || exit 1

# job FILE ENGINE RW VERIFY_ONLY EXTRA...: a 1 MiB write job with verify=
job() {
	out=$1 eng=$2 rw=$3 only=$4
	shift 4
	{
		printf '[w]\nfilename=%s\nsize=1m\nbs=4k\ndirect=1\nioengine=%s\n' "$F" "$eng"
		printf 'rw=%s\nverify_only=%s\n' "$rw" "$only"
		for x in "$@"; do printf '%s\n' "$x"; done
	} >"$out"
}

# json FILE: "read_ios write_ios error" of each job of a JSON report, one
# line each, in order
json() {
	python3 -c 'import json, sys
# fio may put a warning before its JSON, even in --output
t = open(sys.argv[1]).read()
for j in json.loads(t[t.find("{"):])["jobs"]:
    print(j["read"]["total_ios"], j["write"]["total_ios"], j["error"])' "$1" 2>/dev/null
}

# one job file of many jobs, each on its own file: section NAME, then
# option lines.  multi OUT ENGINE VERIFY_ONLY "NAME|OPT|OPT..."...
multi() {
	out=$1 eng=$2 only=$3
	shift 3
	printf '[global]\nsize=1m\nbs=4k\ndirect=1\nioengine=%s\nrw=randwrite\nverify_only=%s\n' \
		"$eng" "$only" >"$out"
	for spec in "$@"; do
		name=${spec%%|*}
		printf '[%s]\nfilename=%s\n%s\n' "$name" "$TMP/d.$name" \
			"$(printf '%s' "${spec#*|}" | tr '|' '\n')" >>"$out"
	done
}

# both_ways TITLE ENGINE SPEC...: fio writes, ioqos checks every block
# (verify_only=1); ioqos writes and checks (its verify phase), fio checks
both_ways() {
	title=$1 eng=$2
	shift 2
	multi "$TMP/w.fio" "$eng" 0 "$@"
	multi "$TMP/v.fio" "$eng" 1 "$@"
	n=$#
	rm -f "$TMP"/d.*
	fio "$TMP/w.fio" >/dev/null 2>"$TMP/err" || { bad "$title: fio write"; cat "$TMP/err"; }
	"$IOQOS" run "$TMP/v.fio" --output-format=json >"$TMP/r.json" 2>"$TMP/err"
	got=$(json "$TMP/r.json" | sort | uniq -c | tr -s ' ')
	[ "$got" = " $n 256 0 0" ] && ok "$title: fio writes, ioqos checks" ||
		{ bad "$title: fio writes, ioqos checks: $got"; cat "$TMP/err"; }
	rm -f "$TMP"/d.*
	"$IOQOS" run "$TMP/w.fio" --output-format=json >"$TMP/r.json" 2>"$TMP/err"
	got=$(json "$TMP/r.json" | sort | uniq -c | tr -s ' ')
	[ "$got" = " $n 256 256 0" ] && ok "$title: ioqos writes and checks" ||
		{ bad "$title: ioqos writes and checks: $got"; cat "$TMP/err"; }
	# fio's verify_only counts the dry writes as writes of no runtime
	fio "$TMP/v.fio" --output-format=json --output="$TMP/f.json" >/dev/null 2>"$TMP/err"
	got=$(json "$TMP/f.json" | sort | uniq -c | tr -s ' ')
	[ "$got" = " $n 256 256 0" ] && ok "$title: fio checks what ioqos wrote" ||
		{ bad "$title: fio checks what ioqos wrote: $got"; cat "$TMP/err"; }
}

# every checksum fio 3.33 has, random writes over the whole file
specs=
for t in md5 crc64 crc32 crc32c crc32c-intel crc16 crc7 sha1 sha256 sha512 \
	 sha3-224 sha3-256 sha3-384 sha3-512 xxhash meta; do
	specs="$specs $t|verify=$t"
done
# shellcheck disable=SC2086
both_ways "every checksum" psync $specs

# the layout's other options, sequential, on io_uring: a header every 1k,
# the header moved into the block, patterns (with the offset in them)
both_ways "interval, offset, patterns" io_uring "iv|verify=crc32c|verify_interval=1k|rw=write" \
	"off|verify=md5|verify_offset=512|rw=write" \
	"pat|verify_pattern=0xdeadbeef\"io\"%o|rw=write" "meta|verify=meta|verify_pattern=%o|rw=write" \
	"nohdr|verify=pattern|verify_pattern=0x5a|rw=write" "num|verify=xxhash|verify_pattern=1234|rw=write"

# verify_backlog: blocks read back while writing, in batches; every block
# is checked once, and the other program agrees with what was written
for eng in psync io_uring; do
	both_ways "verify_backlog on $eng" $eng \
		"b16|verify=crc32c|verify_backlog=16|verify_backlog_batch=8|iodepth=4" \
		"b1|verify=sha1|verify_backlog=1|rw=write|iodepth=2"
done

# offset_increment: two clones on one file, the second 1 MiB further in;
# fio and ioqos put each clone's blocks in the same place
multi "$TMP/w.fio" psync 0 "inc|verify=crc32c|numjobs=2|offset_increment=1m"
multi "$TMP/v.fio" psync 1 "inc|verify=crc32c|numjobs=2|offset_increment=1m"
rm -f "$TMP"/d.*
fio "$TMP/w.fio" >/dev/null 2>&1
"$IOQOS" run "$TMP/v.fio" --output-format=json >"$TMP/r.json" 2>"$TMP/err"
a=$(json "$TMP/r.json" | tr '\n' ' ')
rm -f "$TMP"/d.*
"$IOQOS" run "$TMP/w.fio" >/dev/null 2>&1
fio "$TMP/v.fio" --output-format=json --output="$TMP/f.json" >/dev/null 2>&1
b=$(json "$TMP/f.json" | tr '\n' ' ')
size=$(stat -c %s "$TMP/d.inc")
[ "$a" = "256 0 0 256 0 0 " ] && [ "$b" = "256 256 0 256 256 0 " ] && [ "$size" = 2097152 ] &&
	ok "offset_increment=1m: each clone's blocks where fio puts them" ||
	{ bad "offset_increment: ioqos '$a', fio '$b', $size bytes"; cat "$TMP/err"; }

# corruption: block 37 overwritten.  Random bytes over the whole block
# break its header; bytes after the header break its checksum.  ioqos and
# fio name the same offset, and the same checksums.
# dd over the block, from bytes that hold no header (not random, so the
# magic can never come out right by chance)
python3 -c 'import sys; sys.stdout.buffer.write(bytes((i * 7 + 3) & 255 for i in range(4096)))' >"$TMP/junk"
corrupt() {   # corrupt SEEK_BYTES COUNT_BYTES
	dd if="$TMP/junk" of="$F" bs=1 seek="$1" count="$2" conv=notrunc status=none
}
for combo in psync:randwrite io_uring:write; do
	eng=${combo%:*} rw=${combo#*:}
	{
		job "$TMP/w.fio" $eng $rw 0 verify=crc32c
		job "$TMP/v.fio" $eng $rw 1 verify=crc32c
		rm -f "$F"
		fio "$TMP/w.fio" >/dev/null 2>&1
		corrupt $((37 * 4096)) 4096
		"$IOQOS" run "$TMP/v.fio" --output-format=json >"$TMP/r.json" 2>"$TMP/ierr"
		rc=$?
		fio "$TMP/v.fio" --output-format=json --output="$TMP/f.json" >/dev/null 2>"$TMP/ferr"
		frc=$?
		want="bad magic header .* at file $F offset 151552, length 4096"
		if [ "$rc" = 1 ] && grep -q "$want" "$TMP/ierr" && grep -q "$want" "$TMP/ferr" &&
		   [ "$(json "$TMP/r.json" | cut -d' ' -f3)" = 84 ] &&
		   [ "$frc" = 1 ] && [ "$(json "$TMP/f.json" | cut -d' ' -f3)" = 84 ]; then
			ok "$eng $rw: a bad header at 151552, found by both"
		else
			bad "$eng $rw: a bad header (ioqos exit $rc)"; cat "$TMP/ierr" "$TMP/ferr"
		fi
		rm -f "$F"
		"$IOQOS" run "$TMP/w.fio" >/dev/null 2>&1
		corrupt $((37 * 4096 + 1000)) 16
		"$IOQOS" run "$TMP/v.fio" --output-format=json >"$TMP/r.json" 2>"$TMP/ierr"
		rc=$?
		fio "$TMP/v.fio" >/dev/null 2>"$TMP/ferr"
		grep -A2 'verify failed' "$TMP/ierr" >"$TMP/i3"
		grep -A2 'verify failed' "$TMP/ferr" | sed 's/, flags=[0-9a-f]*)/)/' >"$TMP/f3"
		if [ "$rc" = 1 ] && grep -q "^crc32c: verify failed at file $F offset 151552, length 4096" "$TMP/i3" &&
		   grep -q 'Expected CRC: [0-9a-f]\{8\}$' "$TMP/i3" && cmp -s "$TMP/i3" "$TMP/f3"; then
			ok "$eng $rw: a bad checksum at 151552, the same expected and received CRCs as fio's"
		else
			bad "$eng $rw: a bad checksum (ioqos exit $rc)"; cat "$TMP/ierr" "$TMP/ferr"
		fi
	}
done

# the text report has fio's err= for the job
job "$TMP/v.fio" psync write 1 verify=crc32c verify_fatal=1
"$IOQOS" run "$TMP/v.fio" >"$TMP/out" 2>/dev/null
grep -q "^w: (groupid=0, jobs=1): err=84" "$TMP/out" && ok "text report: err=84" ||
	{ bad "text report"; head -3 "$TMP/out"; }

# verify_dump=1: the block read and the block expected, in the current
# directory, as fio names them
rm -f "$F"
job "$TMP/w.fio" psync write 0 verify=crc32c verify_dump=1
job "$TMP/v.fio" psync write 1 verify=crc32c verify_dump=1
"$IOQOS" run "$TMP/w.fio" >/dev/null 2>&1
corrupt $((5 * 4096 + 100)) 8
(cd "$TMP" && "$IOQOS" run "$TMP/v.fio" >/dev/null 2>"$TMP/err")
python3 - "$TMP/data.20480.received" "$TMP/data.20480.expected" <<'PY' && ok "verify_dump: received and expected differ in the 8 bytes only" || bad "verify_dump"
import sys
r, e = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
assert len(r) == len(e) == 4096
assert [i for i in range(4096) if r[i] != e[i]] == list(range(100, 108))
PY

# no data, no verify: sim and null refuse it, naming the engine
for eng in sim null; do
	printf '[w]\nsize=1m\nrw=write\nioengine=%s\nverify=crc32c\n' $eng >"$TMP/n.fio"
	expect_fail "verify on $eng" "verify=.* needs data, and the $eng engine moves none" \
		"$IOQOS" run "$TMP/n.fio"
done
printf '[w]\nsize=1m\nrw=write\nverify=crc32c\nexperimental_verify=1\n' >"$TMP/n.fio"
expect_fail "experimental_verify=1" "experimental_verify.*not run" "$IOQOS" check "$TMP/n.fio"
printf '[w]\nsize=1m\nrw=write\nverify=sha512\nverify_interval=128\nfilename=%s\n' "$F" >"$TMP/n.fio"
expect_fail "a block too small for its header" "168-byte header in each block of 128 bytes" \
	"$IOQOS" run "$TMP/n.fio"

finish
