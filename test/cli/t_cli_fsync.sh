#!/bin/sh
# fsync=, fdatasync=, end_fsync=, fsync_on_close= and sync= (fsync.c):
# the syncs counted as fio 3.33 counts them (a sync after every N writes,
# none after the last), in the JSON's "sync" section and the text's
# "issued rwts" and "sync" lines; the system calls made (fsync and
# fdatasync on psync, end_fsync's one per file, O_SYNC and O_DSYNC on the
# open), as fio's, when strace may trace here; libaio's one sync per N
# writes; the end syncs after a signal, --stop-after, a runtime end and
# an I/O error, as fio's; and a sync passes outside the controller:
# wiops= holds the writes only.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skipped: python3 is needed"; exit 77; }
find_fio

# figures of each job of a JSON report: name err writes syncs sync-lat-N
figs() {
	python3 - "$1" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
for j in json.JSONDecoder().raw_decode(t[t.index("{"):])[0]["jobs"]:
    print(j["jobname"], j["error"], j["write"]["total_ios"], j["sync"]["total_ios"],
          j["sync"]["lat_ns"]["N"])
PY
}

# run TOOL NAME JOBFILE...: TOOL (ioqos or fio) in a directory of its
# own, JSON and text; the figures in $TMP/TOOL.NAME.figs
run() {
	tool=$1 name=$2
	shift 2
	d=$TMP/$tool.$name
	mkdir -p "$d"
	if [ "$tool" = ioqos ]; then
		(cd "$d" && "$IOQOS" run --output-format=json,normal "$@" >out 2>err)
	else
		(cd "$d" && "$FIO" --output-format=json,normal "$@" >out 2>err)
	fi || { bad "$name: $tool exit non-zero:"; cat "$d/err"; return 1; }
	figs "$d/out" >"$d/figs"
}

# counts NAME JOBFILE WANT WHAT FIELDS: ioqos's figures of JOBFILE are WANT
# and fio's the same, reported as WHAT with the figures' FIELDS (cut -f);
# fails only when ioqos did not run (the checks after it need its output)
counts() {
	run ioqos "$1" "$2" || return 1
	q=$(cat "$TMP/ioqos.$1/figs")
	f="(no fio)"
	[ -n "$FIO" ] && run fio "$1" "$2" && f=$(cat "$TMP/fio.$1/figs")
	if [ "$q" = "$3" ] && { [ -z "$FIO" ] || [ "$q" = "$f" ]; }; then
		ok "$4: $(echo "$q" | cut -d' ' -f"$5" | tr '\n' ' ')"
	else
		bad "$4: ioqos"; echo "$q"; echo "fio"; echo "$f"; echo "want"; echo "$3"
	fi
}

# 256 writes of 4 KiB: fsync=32 syncs after writes 32..224 (7), fdatasync=16
# after 16..240 (15: in lat_ns's N; fio's total_ios counts fsyncs only);
# a job that only reads syncs nothing
cat >"$TMP/c.fio" <<'EOF'
[global]
filename=f.dat
size=1m
bs=4k
rw=write

[fsync32]
ioengine=psync
fsync=32

[fdatasync16]
stonewall
ioengine=psync
fdatasync=16

[uring8]
stonewall
ioengine=io_uring
iodepth=1
fdatasync=8

[reader]
stonewall
ioengine=psync
rw=read
fsync=4
EOF
want="fsync32 0 256 7 7
fdatasync16 0 256 0 15
uring8 0 256 0 31
reader 0 0 0 0"
if counts c "$TMP/c.fio" "$want" "syncs counted as fio's" 1,4; then
	# the text: the fourth figure of issued rwts (fsyncs), and fio's sync block
	q=$(grep -o "issued rwts: total=[0-9,]*" "$TMP/ioqos.c/out" | cut -d= -f2 | tr '\n' ' ')
	f="(no fio)"
	[ -n "$FIO" ] && f=$(grep -o "issued rwts: total=[0-9,]*" "$TMP/fio.c/out" | cut -d= -f2 | tr '\n' ' ')
	if [ "$q" = "0,256,0,7 0,256,0,0 0,256,0,0 256,0,0,0 " ] && { [ -z "$FIO" ] || [ "$q" = "$f" ]; }; then
		ok "text: issued rwts $q as fio's"
	else
		bad "text: issued rwts: ioqos $q, fio $f"
	fi
	blk=$(grep -c "^  fsync/fdatasync/sync_file_range:$" "$TMP/ioqos.c/out")
	lat=$(grep -Ec "^    sync \((n|u|m)sec\): min=[0-9]+, max=[0-9]+, avg=" "$TMP/ioqos.c/out")
	pct=$(grep -Ec "^    sync percentiles \((n|u|m)sec\):$" "$TMP/ioqos.c/out")
	if [ "$blk $lat $pct" = "3 3 3" ]; then
		ok "text: fio's fsync/fdatasync/sync_file_range block for the 3 jobs that sync"
	else
		bad "text: sync blocks $blk, lat lines $lat, percentile lines $pct (want 3 3 3)"
	fi
fi

# libaio: fio's engine syncs in the job's thread and the job reaps one
# completion at a time, only when it is full, so each write after a sync
# waits for a reap and the next multiple of N finds the last completion a
# write: one sync per N writes once the job is full.  Measured, 256 writes
# of 4 KiB with direct=1, three runs each of fio 3.33 and of ioqos, the
# syncs (lat_ns's N): iodepth=8 fsync=4 63 63 63 (ioqos before: 32, one
# per 2N), iodepth=8 fsync=2 125 125 125, iodepth=4 fdatasync=3 85 85 85,
# iodepth=32 fsync=5 46 46 46 (the syncs due before the job is first full
# find the last completion a sync: skipped), the same in every run of
# either; io_uring's count is the device's timing, not tested here
cat >"$TMP/l.fio" <<'EOF'
[global]
filename=l.dat
size=1m
bs=4k
rw=write
direct=1
ioengine=libaio

[la8f4]
iodepth=8
fsync=4

[la4d3]
stonewall
iodepth=4
fdatasync=3

[la32f5]
stonewall
iodepth=32
fsync=5
EOF
want="la8f4 0 256 63 63
la4d3 0 256 0 85
la32f5 0 256 46 46"
counts l "$TMP/l.fio" "$want" "libaio: a sync per N writes once full, as fio's" 1,5

# the system calls: fsync=8 on 64 writes makes 7 fsyncs, end_fsync=1 one
# more, fdatasync=8 7 fdatasyncs and fsync_on_close=1 an fsync at the end;
# sync=1 opens the file O_SYNC, sync=dsync O_DSYNC
if strace -f -o /dev/null true 2>/dev/null; then
	for c in "fsync=8:end_fsync=1:8:0" "fdatasync=8:fsync_on_close=1:1:7" \
		 "fsync=8:end_fsync=0:7:0"; do
		o1=$(echo "$c" | cut -d: -f1) o2=$(echo "$c" | cut -d: -f2)
		wf=$(echo "$c" | cut -d: -f3) wd=$(echo "$c" | cut -d: -f4)
		printf '[s]\nioengine=psync\nrw=write\nsize=256k\nbs=4k\nfilename=%s/s.dat\n%s\n%s\n' \
			"$TMP" "$o1" "$o2" >"$TMP/s.fio"
		# laid out before: neither lays it out (ioqos's layout syncs it)
		head -c 262144 /dev/zero >"$TMP/s.dat"
		strace -f -qq -e trace=fsync,fdatasync -o "$TMP/st" "$IOQOS" run "$TMP/s.fio" \
			>/dev/null 2>"$TMP/err" || bad "$o1 $o2: exit non-zero"
		q="$(grep -c '^[0-9]* *fsync(' "$TMP/st") $(grep -c '^[0-9]* *fdatasync(' "$TMP/st")"
		f="(no fio)"
		if [ -n "$FIO" ]; then
			head -c 262144 /dev/zero >"$TMP/s.dat"
			strace -f -qq -e trace=fsync,fdatasync -o "$TMP/st" "$FIO" "$TMP/s.fio" \
				>/dev/null 2>&1
			f="$(grep -c '^[0-9]* *fsync(' "$TMP/st") $(grep -c '^[0-9]* *fdatasync(' "$TMP/st")"
		fi
		if [ "$q" = "$wf $wd" ] && { [ -z "$FIO" ] || [ "$q" = "$f" ]; }; then
			ok "$o1 $o2: $wf fsync and $wd fdatasync calls, as fio's"
		else
			bad "$o1 $o2: fsync fdatasync: ioqos $q, fio $f, want $wf $wd"
		fi
	done
	# end_fsync=1 however the job's I/O ended, as fio's do_io(): SIGINT,
	# SIGTERM or --stop-after (ioqos's own, as a runtime end) stop job a,
	# and b (after a stonewall) never runs: a's one sync; a runtime end:
	# each job's; after an error only fsync_on_close=1's, as fio closes
	# the file (a trim on a regular file fails: ENOTTY)
	for c in "SIGINT:30:1:128" "SIGTERM:30:1:128" "--stop-after:30:1:0" "its runtime:1:2:0"; do
		how=${c%%:*} c=${c#*:} rt=${c%%:*} c=${c#*:} want=${c%%:*} rc=${c#*:}
		printf '[global]\nioengine=psync\nrw=write\nsize=256k\nbs=4k\nend_fsync=1\ntime_based\nruntime=%s\n[a]\nfilename=%s/a.dat\n[b]\nstonewall\nfilename=%s/b.dat\n' \
			"$rt" "$TMP" "$TMP" >"$TMP/e.fio"
		for tool in ioqos fio; do
			# --stop-after is ioqos's: fio's figure is its runtime end's
			[ $tool = fio ] && { [ -z "$FIO" ] || [ "$how" = --stop-after ]; } &&
				{ f="(no fio)"; continue; }
			head -c 262144 /dev/zero >"$TMP/a.dat"
			head -c 262144 /dev/zero >"$TMP/b.dat"
			rm -f "$TMP/st"
			set -- "$FIO"
			[ $tool = ioqos ] && set -- "$IOQOS" run
			[ $tool = ioqos ] && [ "$how" = --stop-after ] && set -- "$@" --stop-after 1
			strace -f -qq -e trace=fsync,fdatasync,pwrite64 -o "$TMP/st" "$@" "$TMP/e.fio" \
				>/dev/null 2>&1 &
			sp=$!
			case $how in SIG*)
				# the signal once the job writes (no layout: the files are
				# there), however late a loaded machine starts it
				while ! grep -q pwrite64 "$TMP/st" 2>/dev/null && kill -0 $sp 2>/dev/null; do
					sleep 0.1
				done
				kill -${how#SIG} $(children $sp)
			esac
			wait $sp
			r="$? $(grep -c '^[0-9]* *fsync(' "$TMP/st")"
			[ $tool = ioqos ] && q=$r || f=$r
		done
		[ "$f" = "$q" ] && f=", as fio's"
		if [ "$q" = "$rc $want" ] && { [ "$f" = "(no fio)" ] || [ "$f" = ", as fio's" ]; }; then
			ok "end_fsync=1 after $how: status and fsync calls $q${f#(no fio)}"
		else
			bad "end_fsync=1 after $how: status and fsync calls: ioqos $q, fio $f, want $rc $want"
		fi
	done
	for c in "end_fsync=1:0" "fsync_on_close=1:1" "fsync_on_close=1 end_fsync=1:1"; do
		o=${c%:*} want=${c##*:}
		printf '[e]\nioengine=psync\nrw=trimwrite\nsize=64k\nbs=4k\nfilename=%s/t.dat\n%s\n' \
			"$TMP" "$(echo "$o" | tr ' ' '\n')" >"$TMP/e.fio"
		f="(no fio)"
		for tool in ioqos fio; do
			[ $tool = fio ] && [ -z "$FIO" ] && continue
			head -c 65536 /dev/zero >"$TMP/t.dat"
			set -- "$FIO"
			[ $tool = ioqos ] && set -- "$IOQOS" run
			strace -f -qq -e trace=fsync,fdatasync -o "$TMP/st" "$@" "$TMP/e.fio" >/dev/null 2>&1
			r="$? $(grep -c '^[0-9]* *fsync(' "$TMP/st")"
			[ $tool = ioqos ] && q=$r || f=$r
		done
		if [ "$q" = "1 $want" ] && { [ -z "$FIO" ] || [ "$q" = "$f" ]; }; then
			ok "$o after an I/O error: $want fsync calls, as fio's"
		else
			bad "$o after an I/O error: status and fsync calls: ioqos $q, fio $f, want 1 $want"
		fi
	done
	for c in "sync=1:O_SYNC" "sync=sync:O_SYNC" "sync=dsync:O_DSYNC" "sync=0:" "sync=none:"; do
		o=${c%%:*} flag=${c#*:}
		printf '[s]\nioengine=psync\nrw=write\nsize=64k\nbs=4k\nfilename=%s/o.dat\n%s\n' \
			"$TMP" "$o" >"$TMP/o.fio"
		: >"$TMP/o.dat"
		strace -f -qq -e trace=openat -o "$TMP/st" "$IOQOS" run "$TMP/o.fio" >/dev/null 2>&1
		got=$(grep 'o\.dat' "$TMP/st" | grep -v 'O_WRONLY|O_CLOEXEC)' |
		      grep -o 'O_D\{0,1\}SYNC' | sort -u | tr '\n' ' ')
		if [ "$got" = "${flag:+$flag }" ]; then
			ok "$o: the file opened with ${flag:-neither O_SYNC nor O_DSYNC}"
		else
			bad "$o: open flags '$got', want '$flag'"; grep 'o\.dat' "$TMP/st"
		fi
	done
else
	skip_part "the system calls: strace cannot trace here"
fi

# the controller: 100 writes under wiops=100 take a second of virtual
# time, with a sync after each write or without; the group has their bytes
printf '/t wiops=100\n' >"$TMP/w.qos"
for fs in 0 1; do
	printf '[t]\nioengine=sim\nrw=write\nsize=400k\nbs=4k\ncgroup=t\nfsync=%s\n' "$fs" \
		>"$TMP/t$fs.fio"
	"$IOQOS" run --output-format=json --qos "$TMP/w.qos" "$TMP/t$fs.fio" >"$TMP/t$fs.json" ||
		bad "sim fsync=$fs: exit non-zero"
done
if python3 - "$TMP" <<'PY'
import json, sys
def job(n):
    r = json.load(open(f"{sys.argv[1]}/{n}.json"))
    return r["jobs"][0], {g["path"]: g for g in r["ioqos"]["groups"]}["/t"]
(j0, g0), (j1, g1) = job("t0"), job("t1")
assert j0["sync"]["total_ios"] == 0 and j1["sync"]["total_ios"] == 99, (j0["sync"], j1["sync"])
assert j0["write"]["runtime"] == j1["write"]["runtime"] == 1000, (j0["write"], j1["write"])
for g in (g0, g1):
    assert g["write"]["io_bytes"] == 409600 and g["read"]["io_bytes"] == 0, g
PY
then
	ok "syncs pass outside the controller: 100 writes at wiops=100 take 1 s with 99 syncs as without"
else
	bad "syncs and the controller"
fi

# sync= takes fio's values only
printf '[s]\nsync=always\n' >"$TMP/bad.fio"
expect_fail "sync=always refused" "bad.fio:2: sync=always: expected none, 0, sync, 1 or dsync" \
	"$IOQOS" check "$TMP/bad.fio"
finish
