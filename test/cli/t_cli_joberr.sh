#!/bin/sh
# An I/O error ends the job that got it, not the run, as in fio: a trim
# on a regular file fails (BLKDISCARD is a block device's ioctl: ENOTTY,
# err=25), and the jobs beside it go on to their size; each job's "error"
# in the JSON and err= in the text are its own; the exit status is the
# number of jobs in error, as fio's; exitall_on_error= makes the failing
# job's end stop the others (its exit_what: the group); a verify error
# is a job's too.  Beside fio on the same files when fio is there.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skipped: python3 is needed"; exit 77; }
find_fio

# per job: name error read-total_ios trim-total_ios
figs() {
	python3 - "$1" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
for j in json.loads(t[t.index("{"):])["jobs"]:
    print(j["jobname"], j["error"], j["read"]["total_ios"], j["trim"]["total_ios"])
PY
}

# run_both NAME FILE: ioqos's status and figures in $q, fio's in $f
run_both() {
	rm -f "$TMP"/*.dat
	"$IOQOS" run --output-format=json "$TMP/$2" >"$TMP/q.json" 2>"$TMP/err"
	q="$? $(figs "$TMP/q.json" | tr '\n' ' ')"
	f=
	if [ -n "$FIO" ]; then
		rm -f "$TMP"/*.dat
		(cd "$TMP" && "$FIO" --output-format=json "$2") >"$TMP/f.json" 2>/dev/null
		f="$? $(figs "$TMP/f.json" | tr '\n' ' ')"
	fi
}

# two jobs in error (one of them two clones) and one that reads on
cat >"$TMP/two.fio" <<E
[global]
size=1m
bs=4k
direct=0
[bad]
ioengine=psync
rw=randtrim
numjobs=2
filename=$TMP/a.dat
[good]
ioengine=io_uring
rw=read
filename=$TMP/b.dat
E
run_both two two.fio
want="2 bad 25 0 1 bad 25 0 1 good 0 256 0 "
if [ "$q" = "$want" ] && { [ -z "$FIO" ] || [ "$f" = "$want" ]; } &&
	[ "$(grep -c "^ioqos: job 'bad': trim of 4096 bytes at offset [0-9]* of $TMP/a.dat: Inappropriate ioctl for device$" "$TMP/err")" = 2 ] &&
	[ "$(wc -l <"$TMP/err")" = 2 ]; then
	ok "two clones in error, exit 2; the job beside them reads its 256, as under fio"
else
	bad "errors of two clones: ioqos $q, fio ${f:-(none)}, want $want:"; cat "$TMP/err"
fi
"$IOQOS" run "$TMP/two.fio" >"$TMP/q.txt" 2>/dev/null
if grep -q "^bad: (groupid=0, jobs=1): err=25:" "$TMP/q.txt" &&
	grep -q "^good: (groupid=0, jobs=1): err= 0:" "$TMP/q.txt" &&
	! grep -q "interrupted" "$TMP/q.txt"; then
	ok "the text report: err=25 for the jobs in error, err= 0 for the other, not partial"
else
	bad "the text report:"; grep "err=" "$TMP/q.txt"
fi

# exitall_on_error=1: the failing job's end stops the rest of its group
# (the reader is capped at 100 KiB/s: ten seconds for its 1 MiB)
cat >"$TMP/eoe.fio" <<E
[global]
size=1m
bs=4k
direct=0
[bad]
ioengine=psync
rw=randtrim
exitall_on_error=1
filename=$TMP/a.dat
[good]
ioengine=io_uring
rw=read
rate=100k
filename=$TMP/b.dat
E
run_both eoe eoe.fio
n=$(echo "$q" | awk '{ print $8 }')
if [ "$(echo "$q" | cut -d' ' -f1-8 | sed 's/ [0-9]*$//')" = "1 bad 25 0 1 good 0" ] &&
	[ "$n" -lt 256 ] && { [ -z "$FIO" ] || [ "$(echo "$f" | cut -d' ' -f1-7)" = "1 bad 25 0 1 good 0" ]; }; then
	ok "exitall_on_error: the reader stopped at $n of 256 reads, exit 1, as under fio"
else
	bad "exitall_on_error: ioqos $q, fio ${f:-(none)}"; cat "$TMP/err"
fi
# without it the reader goes on to its size
sed '/exitall_on_error/d; s/^rate=100k$/rate=4m/' "$TMP/eoe.fio" >"$TMP/go.fio"
run_both go go.fio
want="1 bad 25 0 1 good 0 256 0 "
if [ "$q" = "$want" ] && { [ -z "$FIO" ] || [ "$f" = "$want" ]; }; then
	ok "without exitall_on_error the reader reads all of it, exit 1, as under fio"
else
	bad "without exitall_on_error: ioqos $q, fio ${f:-(none)}, want $want"
fi

# a verify error is its job's: a block overwritten between the write and
# the read back fails that job, the other goes on
dd if=/dev/zero of="$TMP/v.dat" bs=64k count=4 status=none
cat >"$TMP/vfy.fio" <<E
[global]
bs=4k
direct=0
[wr]
ioengine=psync
rw=write
size=256k
verify=crc32c
verify_only=1
filename=$TMP/v.dat
[rd]
ioengine=psync
rw=read
size=256k
filename=$TMP/r.dat
E
"$IOQOS" run --output-format=json "$TMP/vfy.fio" >"$TMP/q.json" 2>"$TMP/err"
q="$? $(figs "$TMP/q.json" | tr '\n' ' ')"
if [ "$q" = "1 wr 84 1 0 rd 0 64 0 " ] && grep -q "^ioqos: job 'wr': verify of $TMP/v.dat at offset 0 failed: err=84" "$TMP/err"; then
	ok "a verify error ends its job (err=84, exit 1); the other reads its 64"
else
	bad "a verify error: $q"; cat "$TMP/err"
fi
# a read of no byte (a file created empty by create_on_open=1): fio 3.33
# completes it on its asynchronous engines, an I/O of 0 bytes and not a
# short one, and fails the job with EIO on its synchronous ones
for e in io_uring:16:0 libaio:16:0 psync:1:5; do
	eng=${e%%:*} n=$(echo "$e" | cut -d: -f2) err=${e##*:}
	printf '[r]\nioengine=%s\nrw=read\nsize=64k\nbs=4k\ndirect=0\ncreate_on_open=1\nfilename=%s/z.dat\n' \
		"$eng" "$TMP" >"$TMP/z.fio"
	eof() {
		python3 - "$1" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index("{"):])["jobs"][0]
print(j["error"], j["read"]["total_ios"], j["read"]["io_bytes"], j["read"]["short_ios"])
PY
	}
	rm -f "$TMP/z.dat"
	"$IOQOS" run --output-format=json "$TMP/z.fio" >"$TMP/q.json" 2>"$TMP/err"
	q="$? $(eof "$TMP/q.json")"
	f=
	if [ -n "$FIO" ]; then
		rm -f "$TMP/z.dat"
		"$FIO" --output-format=json "$TMP/z.fio" >"$TMP/f.json" 2>/dev/null
		f="$? $(eof "$TMP/f.json")"
	fi
	want="$([ "$err" = 0 ] && echo 0 || echo 1) $err $n 0 0"
	if [ "$q" = "$want" ] && { [ -z "$FIO" ] || [ "$f" = "$want" ]; }; then
		ok "a read at the end of the file on $eng: err=$err, $n I/Os of 0 bytes, none short, as fio's"
	else
		bad "end of file on $eng: ioqos $q, fio ${f:-(none)}, want $want:"; cat "$TMP/err"
	fi
done
finish
