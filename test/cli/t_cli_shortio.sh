#!/bin/sh
# Short transfers as fio 3.33 does them: the rest is resubmitted at
# offset + done, each piece one of total_ios and the short ones counted
# in short_ios; a rest that moves no byte is EIO ("full resid") on the
# synchronous engines and a completion of 0 bytes on the asynchronous;
# a rest past the job's size is never issued; the bytes credited are the
# last piece's.  Real short transfers: a sysfs file (its size says 4096,
# its text is a few bytes) and writes across RLIMIT_FSIZE.  Beside fio on
# the same files when fio is there.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skipped: python3 is needed"; exit 77; }
find_fio

# per job: exit error total_ios io_bytes short_ios completions (clat N)
figs() {
	python3 - "$1" "$2" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
try:
    j = json.loads(t[t.index("{"):])["jobs"][0]
except ValueError:
    print("no-json"); sys.exit()
d = j[sys.argv[2]]
print(j["error"], d["total_ios"], d["io_bytes"], d["short_ios"], d["clat_ns"]["N"])
PY
}

# both NAME DIR WANT [PREP]: ioqos, and fio when there, on $TMP/j.fio,
# each after PREP and under $LIMIT
LIMIT=
both() {
	name=$1 dir=$2 want=$3 prep=${4:-true}
	$prep
	$LIMIT "$IOQOS" run --output-format=json "$TMP/j.fio" >"$TMP/q.json" 2>"$TMP/err"
	q="$? $(figs "$TMP/q.json" "$dir")"
	f=
	if [ -n "$FIO" ]; then
		$prep
		$LIMIT "$FIO" --output-format=json "$TMP/j.fio" >"$TMP/f.json" 2>/dev/null
		f="$? $(figs "$TMP/f.json" "$dir")"
	fi
	if [ "$q" = "$want" ] && { [ -z "$FIO" ] || [ "$f" = "$want" ]; }; then
		ok "$name: $want"
	else
		bad "$name: ioqos $q, fio ${f:-(none)}, want $want"; cat "$TMP/err"
	fi
}

SYS=/sys/devices/system/cpu/online
if [ -r "$SYS" ] && [ "$(stat -c %s "$SYS")" = 4096 ] && [ "$(wc -c <"$SYS")" -lt 2048 ]; then
	for e in psync:1 pvsync2:1 io_uring:0 libaio:0 posixaio:0; do
		eng=${e%%:*} sync=${e##*:}
		# one read of 4k: short, and the size is issued: the rest is
		# never issued, no byte credited, no completion
		printf '[r]\nioengine=%s\nrw=read\nbs=4k\nsize=4k\ndirect=0\nfilename=%s\n' \
			"$eng" "$SYS" >"$TMP/j.fio"
		both "$eng: one short read of the job's size" read "0 0 1 0 1 0"
		# reads of 2k: the rest of the first is resubmitted and moves no
		# byte: EIO on a synchronous engine; on an asynchronous one a
		# completion of 0 bytes, and so is the read at 2k
		printf '[r]\nioengine=%s\nrw=read\nbs=2k\nsize=4k\ndirect=0\nfilename=%s\n' \
			"$eng" "$SYS" >"$TMP/j.fio"
		if [ "$sync" = 1 ]; then
			both "$eng: the rest of a short read moves no byte" read "1 5 2 0 1 0"
		else
			both "$eng: the rest of a short read moves no byte" read "0 0 3 0 1 2"
		fi
	done
else
	skip_part "short reads of a sysfs file: $SYS is not a 4096-byte sysfs file of a few bytes"
fi

# writes of 8k across a file size limit of 20 KiB: the third writes 4k of
# its 8k, its rest fails with EFBIG (SIGXFSZ ignored); with ignore_error=
# the job writes on, every write past the limit failing, as in fio
mkfile() {
	rm -f "$TMP/w.dat"
	dd if=/dev/zero of="$TMP/w.dat" bs=64k count=1 status=none
}
# limited: both, the file size limited (and SIGXFSZ ignored), in this shell
# so that a failure counts
limited() {
	trap '' XFSZ
	LIMIT="prlimit --fsize=20480"
	both "$@"
	LIMIT=
	trap - XFSZ
}
command -v prlimit >/dev/null || { skip_part "writes across a file size limit: no prlimit"; finish; }
for eng in psync io_uring; do
	for ign in "" "ignore_error=,EFBIG"; do
		printf '[w]\nioengine=%s\nrw=write\nbs=8k\nsize=64k\ndirect=0\n%s\nfilename=%s/w.dat\n' \
			"$eng" "$ign" "$TMP" >"$TMP/j.fio"
		if [ -z "$ign" ]; then
			limited "$eng: a short write, its rest past the limit" write \
				"1 27 4 16384 1 2" mkfile
		else
			limited "$eng: a short write with EFBIG forgiven" write \
				"0 27 9 16384 1 2" mkfile
		fi
	done
done
finish
