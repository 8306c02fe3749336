#!/bin/sh
# Trace replay and recording, read_iolog= and write_iolog=, beside fio 3.33:
#
#  - a log fio writes (randrw of 512 B to 16 KiB, with fsync=) replayed by
#    ioqos on the sim, null, psync and io_uring engines issues its reads
#    and writes in its order, offset for offset and size for size (the
#    per-I/O latency log at iodepth 1, log_offset=1), and its syncs;
#  - a log ioqos writes has fio's format (a byte-for-byte golden on the
#    sim), and fio replays it as the same sequence, its syncs too; so does
#    ioqos, on the sim; it is appended to, as fio's, and a write error
#    (/dev/full) is said after the report;
#  - on the sim a version 3 log's times are kept exactly in virtual time
#    (I/Os at 0, 100 and 250 ms complete in those milliseconds),
#    replay_time_scale=200 and 50 halve and double them, replay_no_stall=1
#    drops them, a slow device puts an I/O late and the gap after it
#    keeps its length (think times, not a timetable), and a version 2
#    wait waits its milliseconds from the job's start;
#  - replay_redirect= puts a log naming two files that do not exist on one
#    file; clones replay the logs of a ':' list in turn; replay_scale= and
#    replay_align= move the offsets as fio does;
#  - the replay goes through the controller: a replayed job in a group
#    with riops=50 issues 50 reads a second, against thousands without;
#  - every hostile log and option is one line naming the file, the line
#    and the value, before any I/O (a FIFO and /dev/zero unread).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
cd "$TMP" || exit 1
find_fio

# iolog_seq LOG: the reads and writes of an iolog, "ddir bs offset" a line
iolog_seq() {
	awk 'NR > 1 && ($(NF-2) == "read" || $(NF-2) == "write") {
		print ($(NF-2) == "read" ? 0 : 1), $NF, $(NF-1) }' "$1"
}
# lat_seq LOG: the same from a per-I/O latency log with log_offset=1
lat_seq() { awk -F', ' '{ print $3, $4, $5 }' "$1"; }
# lat_ms LOG: the completion times, ms, on one line
lat_ms() { awk -F', ' '{ printf "%s%s", s, $1; s = " " } END { print "" }' "$1"; }
# syncs JSON: the fsyncs a run's JSON counts
syncs() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["sync"]["total_ios"])' "$1"; }
# refused NAME MESSAGE ARGS...: `ioqos run ARGS` fails with exactly the
# line "ioqos: MESSAGE" on stderr and nothing on stdout
refused() {
	name=$1 msg=$2
	shift 2
	"$IOQOS" run "$@" >out 2>err
	rc=$?
	if [ "$rc" = 0 ]; then
		bad "$name: exit 0"
	elif [ "$(cat err)" != "ioqos: $msg" ]; then
		bad "$name: stderr is not 'ioqos: $msg':"; cat err
	elif [ -s out ]; then
		bad "$name: wrote to stdout"
	else
		ok "$name"
	fi
}

head -c 1048576 /dev/urandom >f

# ---- a log of fio's, replayed on every engine ------------------------------
if [ -n "$FIO" ]; then
	"$FIO" --name=w "--filename=$TMP/f" --size=1m --bsrange=512-16k --rw=randrw \
		--ioengine=psync --number_ios=64 --fsync=8 "--write_iolog=$TMP/fio.iolog" \
		--output-format=terse >/dev/null 2>&1 || bad "fio writing its log"
	iolog_seq fio.iolog >fio.seq
	nsync=$(grep -c ' sync ' fio.iolog)
	[ "$(wc -l <fio.seq)" = 64 ] && [ "$(head -1 fio.iolog)" = "fio version 3 iolog" ] &&
		[ "$nsync" -ge 7 ] || bad "fio's log: $(wc -l <fio.seq) I/Os, $nsync syncs"
	for e in sim null psync io_uring; do
		if ! "$IOQOS" run --name=r --read_iolog=fio.iolog --ioengine=$e --direct=0 \
			--write_lat_log=$e --log_offset=1 --output-format=json >$e.json 2>err; then
			if [ $e = io_uring ] && grep -q io_uring err; then
				skip_part "io_uring: $(cat err)"
			else
				bad "fio's log on $e: $(cat err)"
			fi
			continue
		fi
		lat_seq ${e}_lat.1.log >$e.seq
		if cmp -s fio.seq $e.seq && [ "$(syncs $e.json)" = "$nsync" ]; then
			ok "fio's log on $e: its 64 reads and writes in order, its $nsync syncs"
		else
			bad "fio's log on $e: $(syncs $e.json) syncs"; diff fio.seq $e.seq | head -5
		fi
	done
else
	skip_part "a log of fio's: no fio here"
fi

# ---- a log of ioqos's: fio's format, replayed by fio and by ioqos -----------
"$IOQOS" run --name=w --filename=f --size=1m --bsrange=512-16k --rw=randrw \
	--ioengine=sim --number_ios=64 --fsync=8 --end_fsync=1 --write_iolog=q.iolog \
	>/dev/null 2>err || bad "ioqos writing a log: $(cat err)"
if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
	cp q.iolog "$GOLDEN/replay_write.iolog"
	ok "write_iolog on the sim (golden rewritten)"
elif cmp -s q.iolog "$GOLDEN/replay_write.iolog"; then
	ok "write_iolog on the sim: byte for byte its golden"
else
	bad "write_iolog on the sim differs from its golden:"
	diff "$GOLDEN/replay_write.iolog" q.iolog | head -10
fi
if python3 - q.iolog <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[0] == "fio version 3 iolog" and lines[-1] == "", lines[:2]
f = [l.split() for l in lines[1:-1]]
assert f[0] == ["0", "f", "add"] and f[1] == ["1", "f", "open"], f[:2]
assert f[-1][1:] == ["f", "close"], f[-1]
t = [int(x[0]) for x in f]
assert t == sorted(t) and all(x >= 1 for x in t[1:]), t
io = [x for x in f if x[2] in ("read", "write")]
sy = [x for x in f if x[2] == "sync"]
assert len(io) == 64 and all(len(x) == 5 and 512 <= int(x[4]) <= 16384 for x in io)
# fsync=8 after the 8th, 16th... write, and end_fsync's after the last
w = sum(1 for x in io if x[2] == "write")
assert len(sy) == w // 8 + 1 and all(x[3:] == ["0", "0"] for x in sy), (len(sy), w)
PY
then ok "write_iolog: fio's version 3, add at 0, open, times from 1 on, syncs, close"
else bad "write_iolog's format"; fi
iolog_seq q.iolog >q.seq
nsync=$(grep -c ' sync ' q.iolog)
if [ -n "$FIO" ]; then
	if "$FIO" --name=r --read_iolog=q.iolog --ioengine=psync --write_lat_log=fr \
		--log_offset=1 --output-format=json >fr.json 2>err; then
		lat_seq fr_lat.1.log >fr.seq
		if cmp -s q.seq fr.seq && [ "$(syncs fr.json)" = "$nsync" ]; then
			ok "ioqos's log replayed by fio: the same 64 I/Os, its $nsync syncs"
		else
			bad "ioqos's log replayed by fio: $(syncs fr.json) syncs"; diff q.seq fr.seq | head -5
		fi
	else
		bad "fio replaying ioqos's log: $(cat err)"
	fi
fi
# appended to, as fio's; a write error said after the report
"$IOQOS" run --name=w --filename=f --size=64k --ioengine=sim --write_iolog=q2.iolog >/dev/null &&
	"$IOQOS" run --name=w --filename=f --size=64k --ioengine=sim --write_iolog=q2.iolog >/dev/null
[ "$(grep -c '^fio version 3 iolog$' q2.iolog)" = 2 ] && [ "$(wc -l <q2.iolog)" = 40 ] &&
	ok "write_iolog appends, as fio's" || bad "write_iolog appends: $(wc -l <q2.iolog) lines"
if "$IOQOS" run --name=w --filename=f --size=64k --ioengine=sim --write_iolog=/dev/full \
	--output-format=terse >out 2>err; then
	bad "write_iolog=/dev/full: exit 0"
elif [ "$(cat err)" = "ioqos: /dev/full: No space left on device" ] && [ -s out ]; then
	ok "write_iolog=/dev/full: the report, then the error"
else
	bad "write_iolog=/dev/full: $(cat err)"
fi
"$IOQOS" run --name=r --read_iolog=q.iolog --ioengine=sim --write_lat_log=qr \
	--log_offset=1 --output-format=json >qr.json 2>err || bad "ioqos replaying its log"
lat_seq qr_lat.1.log >qr.seq
cmp -s q.seq qr.seq && [ "$(syncs qr.json)" = "$nsync" ] &&
	ok "ioqos's log replayed by ioqos" || bad "ioqos's log replayed by ioqos"

# ---- times, in virtual time -----------------------------------------------
printf 'fio version 3 iolog\n0 f add\n0 f open\n0 f read 0 4096\n100000 f read 4096 4096\n250000 f write 8192 4096\n250000 f close\n' >t.iolog
# times NAME EXPECTED ARGS...: the replay of t.iolog on the sim completes
# its I/Os in those milliseconds (each takes well under one)
at_times() {
	name=$1 want=$2
	shift 2
	rm -f tm_lat.1.log
	if ! "$IOQOS" run --name=r --read_iolog=t.iolog --ioengine=sim --write_lat_log=tm \
		--log_offset=1 "$@" >/dev/null 2>err; then
		bad "$name: $(cat err)"
	elif [ "$(lat_ms tm_lat.1.log)" = "$want" ]; then
		ok "$name: at $want ms"
	else
		bad "$name: at $(lat_ms tm_lat.1.log) ms, not $want"
	fi
}
at_times "v3 times" "0 100 250"
at_times "replay_time_scale=200" "0 50 125" --replay_time_scale=200
at_times "replay_time_scale=50" "0 200 500" --replay_time_scale=50
at_times "replay_no_stall=1" "0 0 0" --replay_no_stall=1
# a device of 120 ms an I/O: the second read waits for the slot (issued
# at 120, done at 240), the write keeps its gap of 150 after it (270, 390)
printf 'lat=120ms\njitter=0\n' >slow.dev
at_times "a late I/O: the gaps after it kept" "120 240 390" --device slow.dev
# iodepth=2: the slot is free, the log's times hold
at_times "iodepth=2 on the slow device" "120 220 370" --device slow.dev --iodepth=2
# thinktime= comes before the log's gap: 0, then 100 (the stall of 60
# inside it), then 250
at_times "thinktime=60ms inside the gaps" "0 100 250" --thinktime=60000
printf 'fio version 2 iolog\nf add\nf open\nf read 0 4096\nf wait 50 0\nf write 4096 4096\nf wait 20 0\nf read 0 4096\n' >w.iolog
"$IOQOS" run --name=r --read_iolog=w.iolog --ioengine=sim --write_lat_log=wt \
	--log_offset=1 >/dev/null 2>err || bad "v2 wait: $(cat err)"
[ "$(lat_ms wt_lat.1.log)" = "0 50 50" ] && ok "v2 wait: 50 ms from the start, a past one none" ||
	bad "v2 wait: at $(lat_ms wt_lat.1.log)"

# ---- redirect, clones, offsets ---------------------------------------------
printf 'fio version 3 iolog\n1 /nonexistent/a add\n1 /nonexistent/b add\n2 /nonexistent/a open\n2 /nonexistent/b open\n3 /nonexistent/a read 8192 4096\n5 /nonexistent/b write 65536 8192\n9 /nonexistent/a read 0 512\n10 /nonexistent/a close\n' >two.iolog
refused "filename= with read_iolog=" "command line: job 'r': filename= with read_iolog=: fio 3.33 replays onto the files the log names and does no I/O on filename='s; replay_redirect=FILE puts every I/O of the log on FILE, under fio as here" \
	--name=r --read_iolog=two.iolog --filename=f --ioengine=psync
refused "the log's own files, missing" "/nonexistent/a: missing, and an iolog reads it (ioqos lays out no file for a replay, nor does fio)" \
	--name=r --read_iolog=two.iolog --ioengine=psync --direct=0
cp f r
if "$IOQOS" run --name=r --read_iolog=two.iolog --ioengine=psync --direct=0 \
	--replay_redirect="$TMP/r" --write_lat_log=rd --log_offset=1 >/dev/null 2>err &&
	[ "$(lat_seq rd_lat.1.log | tr '\n' ' ')" = "0 4096 8192 1 8192 65536 0 512 0 " ] &&
	[ ! -e /nonexistent ] && cmp -s f r -n 65536; then
	ok "replay_redirect=: both files' I/Os on one, in order"
else
	bad "replay_redirect=: $(cat err) $(lat_seq rd_lat.1.log | tr '\n' ' ')"
fi
"$IOQOS" run --name=r --read_iolog=two.iolog --ioengine=sim --replay_redirect=r \
	--replay_scale=4 --replay_align=4k --write_lat_log=sc --log_offset=1 >/dev/null 2>err ||
	bad "replay_scale: $(cat err)"
[ "$(lat_seq sc_lat.1.log | tr '\n' ' ')" = "0 4096 0 1 8192 16384 0 512 0 " ] &&
	ok "replay_scale=4 replay_align=4k: 8192 at 0, 65536 at 16384" ||
	bad "replay_scale: $(lat_seq sc_lat.1.log | tr '\n' ' ')"
"$IOQOS" run --name=r "--read_iolog=t.iolog:w.iolog" --numjobs=2 --ioengine=sim \
	--write_lat_log=cl --log_offset=1 >/dev/null 2>err || bad "clones: $(cat err)"
[ "$(lat_seq cl_lat.1.log | wc -l)" = 3 ] && [ "$(lat_seq cl_lat.2.log | wc -l)" = 3 ] &&
	[ "$(lat_seq cl_lat.2.log | tr '\n' ' ')" = "0 4096 0 1 4096 4096 0 4096 0 " ] &&
	ok "numjobs=2 and read_iolog=A:B: clone 2 replays B" || bad "clones"

# ---- through the controller -------------------------------------------------
python3 -c '
print("fio version 3 iolog\n1 f add\n1 f open")
for i in range(100):
    print("%d f read %d 4096" % (2 + i, i * 4096))' >many.iolog
printf '/a riops=50\n' >a.qos
riops() { python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"]))' "$1"; }
"$IOQOS" run --name=r --read_iolog=many.iolog --ioengine=sim --cgroup=a --qos a.qos \
	--output-format=json >lim.json 2>err || bad "limited: $(cat err)"
"$IOQOS" run --name=r --read_iolog=many.iolog --ioengine=sim --cgroup=a \
	--output-format=json >free.json 2>err || bad "unlimited: $(cat err)"
l=$(riops lim.json) u=$(riops free.json)
[ "$l" -ge 45 ] && [ "$l" -le 56 ] && [ "$u" -gt 1000 ] &&
	ok "a replay in a group of riops=50: $l reads/s ($u without)" ||
	bad "a replay in a group of riops=50: $l reads/s ($u without)"

# ---- hostile logs and options -----------------------------------------------
# log NAME LINES...: NAME.iolog holding those lines
log() {
	n=$1
	shift
	printf '%s\n' "$@" >"$n.iolog"
}
# bad_log NAME MESSAGE: the replay of NAME.iolog on the sim is refused so
bad_log() { refused "$1" "$2" --name=r --read_iolog=$1.iolog --ioengine=sim; }
h3="fio version 3 iolog"
log unknown "$h3" "1 f add" "1 f open" "2 f frob 0 4096"
bad_log unknown "unknown.iolog:4: 'frob': not an action of fio's iologs (read, write, sync, datasync)"
log nohdr "1 f add" "1 f open" "2 f read 0 4096"
bad_log nohdr "nohdr.iolog:1: '1 f add': not the first line of a fio iolog ('fio version 2 iolog' or 'fio version 3 iolog'; fio 3.33 reads no other)"
log v4 "fio version 4 iolog" "1 f add"
bad_log v4 "v4.iolog:1: 'fio version 4 iolog': not the first line of a fio iolog ('fio version 2 iolog' or 'fio version 3 iolog'; fio 3.33 reads no other)"
: >empty.iolog
bad_log empty "empty.iolog: empty: not a fio iolog (its first line is 'fio version 2 iolog' or 'fio version 3 iolog')"
log noio "$h3" "1 f add" "1 f open" "2 f sync 0 0"
bad_log noio "noio.iolog: no read or write in it (fio: failed initializing iolog)"
log off63 "$h3" "1 f add" "1 f open" "2 f read 9223372036854775808 4096"
bad_log off63 "off63.iolog:4: offset 9223372036854775808: past 9223372036854775807 (2^63 - 1, the largest file offset)"
log end63 "$h3" "1 f add" "1 f open" "2 f read 9223372036854775807 4096"
bad_log end63 "end63.iolog:4: read of 4096 bytes at 9223372036854775807 ends past 2^63 - 1, the largest file offset"
log len0 "$h3" "1 f add" "1 f open" "2 f write 0 0"
bad_log len0 "len0.iolog:4: write of 0 bytes"
log lenbig "$h3" "1 f add" "1 f open" "2 f write 0 4294967296"
bad_log lenbig "lenbig.iolog:4: length 4294967296: past 2147479552 (Linux's largest read or write)"
log negts "$h3" "1 f add" "-5 f open"
bad_log negts "negts.iolog:3: time '-5': negative"
log bigts "$h3" "1 f add" "99999999999999999999 f open"
bad_log bigts "bigts.iolog:3: time 99999999999999999999: past 31536000000000 (a year, in us)"
log back "$h3" "1 f add" "1 f open" "900 f read 0 4096" "500 f read 0 4096"
bad_log back "back.iolog:5: time 500 is before the line before's, 900 (a log's times never go back)"
log negwait "fio version 2 iolog" "f add" "f open" "f read 0 4096" "f wait -1 0"
bad_log negwait "negwait.iolog:5: wait '-1': negative"
log bigwait "fio version 2 iolog" "f add" "f open" "f read 0 4096" "f wait 31536000001 0"
bad_log bigwait "bigwait.iolog:5: wait 31536000001: past 31536000000 (a year, in ms)"
log v3wait "$h3" "1 f add" "1 f open" "2 f read 0 4096" "3 f wait 50 0"
bad_log v3wait "v3wait.iolog:5: wait: not an action of version 3, whose times are its waits (fio skips it)"
log trim "$h3" "1 f add" "1 f open" "2 f trim 0 4096"
bad_log trim "trim.iolog:4: trim: fio 3.33 replays no trim of a log (it skips them: 'bad ddir: 2'), and neither does ioqos"
log noadd "$h3" "1 f add" "1 f open" "2 g read 0 4096"
bad_log noadd "noadd.iolog:4: read of 'g', a file never added (no 'FILE add' line before)"
log closed "$h3" "1 f add" "1 f open" "2 f read 0 4096" "3 f close" "4 f write 0 4096"
bad_log closed "closed.iolog:6: write of 'f', closed on line 5"
log noopen "$h3" "1 f add" "2 f read 0 4096"
bad_log noopen "noopen.iolog:3: read of 'f', a file not opened (no 'FILE open' line before)"
log twice "$h3" "1 f add" "1 f add"
bad_log twice "twice.iolog:3: 'f' added again (first on line 2)"
log fields "$h3" "1 f add" "1 f open" "2 f read 0 4096 7"
bad_log fields "fields.iolog:4: 6 fields: expected TIME FILE ACTION, or TIME FILE ACTION OFFSET LENGTH"
log short "$h3" "1 f add" "1 f open" "2 f read 0"
bad_log short "short.iolog:4: 4 fields: expected TIME FILE ACTION, or TIME FILE ACTION OFFSET LENGTH"
printf '%s\n1 f add\n1 f open\n2 f read 0 40\0096\n' "$h3" >nul.iolog
bad_log nul "nul.iolog:4: a NUL byte"
{ printf '%s\n1 f add\n1 f open\n2 f read 0 4096 ' "$h3"; head -c 10485760 /dev/zero | tr '\0' x; printf '\n'; } >long.iolog
bad_log long "long.iolog:4: longer than 8192 bytes"
printf '\007\164\141\145' >bt.iolog
head -c 44 /dev/zero >>bt.iolog
bad_log bt "bt.iolog: a blktrace file: ioqos replays fio's iologs (versions 2 and 3), not blktrace's binary traces"
truncate -s 70000000 huge.iolog
bad_log huge "huge.iolog: larger than 67108864 bytes, the largest iolog ioqos reads"
mkfifo fifo.iolog
if timeout 20 "$IOQOS" run --name=r --read_iolog=fifo.iolog --ioengine=sim >out 2>err; then
	bad "a FIFO: exit 0"
elif [ "$(cat err)" = "ioqos: fifo.iolog: not a regular file" ]; then
	ok "a FIFO with no writer: refused at once, unread"
else
	bad "a FIFO: $(cat err)"
fi
refused "/dev/zero" "/dev/zero: not a regular file" --name=r --read_iolog=/dev/zero --ioengine=sim
refused "a missing log" "nothere.iolog: No such file or directory" --name=r --read_iolog=nothere.iolog --ioengine=sim
# past the end of a regular file, and past what the log's writes grew
head -c 65536 /dev/zero >small
log past "$h3" "1 small add" "1 small open" "2 small read 1048576 4096"
refused "a read past the file" "past.iolog:4: read of 4096 bytes at 1048576 is past the end of small (65536 bytes; ioqos lays out no file for a replay, nor does fio)" \
	--name=r --read_iolog=past.iolog --ioengine=psync --direct=0
log grown "$h3" "1 small add" "1 small open" "2 small write 65536 4096" "3 small read 65536 8192"
refused "a read past the log's writes" "grown.iolog:5: read of 8192 bytes at 65536 is past the end of small (69632 bytes, with the log's writes before it)" \
	--name=r --read_iolog=grown.iolog --ioengine=psync --direct=0
[ "$(stat -c %s small)" = 65536 ] && ok "a refused replay wrote nothing" || bad "small changed"
refused "write_iolog= with read_iolog=" "command line: job 'r': write_iolog= with read_iolog=: fio 3.33 drops write_iolog= then ('read iolog overrides write_iolog'); give one of them" \
	--name=r --read_iolog=t.iolog --write_iolog=x --ioengine=sim
refused "rate= with read_iolog=" "command line: job 'r': rate= or rate_iops= with read_iolog=: fio 3.33 does not pace a replay (its log's times do; replay_time_scale= scales them)" \
	--name=r --read_iolog=t.iolog --rate=1m --ioengine=sim
refused "replay_skip=" "command line: replay_skip=write: fio 3.33 skips I/Os of blktrace replays only, and ioqos replays no blktrace (a later fio skips them in iologs too)" \
	--name=r --read_iolog=t.iolog --replay_skip=write --ioengine=sim
refused "merge_blktrace_file=" "command line: merge_blktrace_file=m: ioqos reads no blktrace (it replays fio's iologs)" \
	--name=r --read_iolog=t.iolog --merge_blktrace_file=m --ioengine=sim
refused "replay_align=3" "command line: replay_align=3: expected 0 or a power of two up to 2g, such as 4k (fio: must be a power-of-2)" \
	--name=r --read_iolog=t.iolog --replay_align=3 --ioengine=sim
refused "replay_time_scale=0" "command line: replay_time_scale=0: expected an integer 1..4294967295" \
	--name=r --read_iolog=t.iolog --replay_time_scale=0 --ioengine=sim
refused "write_iolog= twice" "command line: job 'w': write_iolog=x.iolog is job 'w''s (clone 0) too: fio mixes two jobs' lines in one log; give each its own" \
	--name=w --filename=f --size=64k --numjobs=2 --write_iolog=x.iolog --ioengine=sim
finish
