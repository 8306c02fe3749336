#!/bin/sh
# fallocate= and create_on_open= (falloc.c), and fio's
# examples/enospc-pressure.fio, on tmpfs mounts the test makes: a file
# that its jobs only write is laid out by fallocate= as fio lays it out
# (size and blocks after one write of 4 KiB, each mode beside fio);
# create_on_open=1 leaves the file to the job; ENOSPC forgiven by
# continue_on_error=write and ignore_error=,ENOSPC is counted as fio
# counts it; and a copy of enospc-pressure.fio (its directory and sizes
# small) ends as fio's does: the trim job's BLKDISCARD fails on a regular
# file (err=25, counted once), exitall stops the others without an error,
# exit 1.  Needs root (mount); skipped otherwise.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skipped: python3 is needed"; exit 77; }
find_fio
MNT=$TMP/mnt SMALL=$TMP/small
mkdir -p "$MNT" "$SMALL"
mount -t tmpfs -o size=64m ioqos-falloc "$MNT" 2>/dev/null ||
	{ echo "skipped: cannot mount a tmpfs (not root?)"; exit 77; }
trap 'umount "$MNT" 2>/dev/null; umount "$SMALL" 2>/dev/null; rm -rf "$TMP"' EXIT INT TERM
mount -t tmpfs -o size=1m ioqos-falloc1 "$SMALL" ||
	{ bad "cannot mount a second tmpfs"; finish; }

# per job: name error total_err first_error read write trim total_ios
figs() {
	python3 - "$1" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
for j in json.loads(t[t.index("{"):])["jobs"]:
    print(j["jobname"], j["error"], j.get("total_err", "-"), j.get("first_error", "-"),
          *[j[d]["total_ios"] for d in ("read", "write", "trim")], end="; ")
PY
}

# fallocate= on a file its job only writes: size and blocks after one write
for m in none native posix keep truncate 0 1; do
	printf '[w]\nioengine=psync\nrw=write\nbs=4k\nfilesize=1m\nnumber_ios=1\nfallocate=%s\nfilename=%s/f\n' \
		"$m" "$MNT" >"$TMP/fa.fio"
	rm -f "$MNT/f"
	"$IOQOS" run "$TMP/fa.fio" >/dev/null 2>"$TMP/err" || { bad "fallocate=$m:"; cat "$TMP/err"; }
	q=$(stat -c '%s %b' "$MNT/f")
	f="$q"
	if [ -n "$FIO" ]; then
		rm -f "$MNT/f"
		"$FIO" "$TMP/fa.fio" >/dev/null 2>&1
		f=$(stat -c '%s %b' "$MNT/f")
	fi
	case $m in none|0) want="4096 8" ;; native|posix|1) want="1048576 2048" ;;
		   keep) want="4096 2048" ;; truncate) want="1048576 8" ;; esac
	if [ "$q" = "$want" ] && [ "$q" = "$f" ]; then
		ok "fallocate=$m: size and 512-byte blocks $q, as fio's"
	else
		bad "fallocate=$m: ioqos $q, fio $f, want $want"
	fi
done
# a file that a job reads is laid out with data whatever fallocate= says
printf '[r]\nioengine=psync\nrw=read\nbs=64k\nfilesize=1m\nfallocate=none\nfilename=%s/f\n' \
	"$MNT" >"$TMP/fr.fio"
rm -f "$MNT/f"
if "$IOQOS" run "$TMP/fr.fio" >/dev/null 2>"$TMP/err" && [ "$(stat -c '%s %b' "$MNT/f")" = "1048576 2048" ]; then
	ok "fallocate=none with a reading job: laid out with data"
else
	bad "fallocate=none, rw=read:"; cat "$TMP/err"
fi

# create_on_open=1: no layout, the file made when the job opens it
printf '[w]\nioengine=psync\nrw=write\nbs=4k\nfilesize=1m\nnumber_ios=4\ncreate_on_open=1\nfilename=%s/f\n' \
	"$MNT" >"$TMP/co.fio"
rm -f "$MNT/f"
"$IOQOS" run "$TMP/co.fio" >/dev/null 2>"$TMP/err"
q="$? $(stat -c '%s %b' "$MNT/f")"
f="$q"
if [ -n "$FIO" ]; then
	rm -f "$MNT/f"
	"$FIO" "$TMP/co.fio" >/dev/null 2>&1
	f="$? $(stat -c '%s %b' "$MNT/f")"
fi
if [ "$q" = "0 16384 32" ] && [ "$q" = "$f" ]; then
	ok "create_on_open=1: the file made by the job, 16 KiB written, nothing laid out, as fio"
else
	bad "create_on_open=1: ioqos $q, fio $f"; cat "$TMP/err"
fi
# a job that reads a file create_on_open made reads past its end: EIO
sed 's/rw=write/rw=randread/' "$TMP/co.fio" >"$TMP/cr.fio"
rm -f "$MNT/f"
"$IOQOS" run --output-format=json "$TMP/cr.fio" >"$TMP/q.json" 2>"$TMP/err"
q="$? $(figs "$TMP/q.json")"
f="$q"
if [ -n "$FIO" ]; then
	rm -f "$MNT/f"
	"$FIO" --output-format=json "$TMP/cr.fio" >"$TMP/f.json" 2>/dev/null
	f="$? $(figs "$TMP/f.json")"
fi
if [ "$q" = "1 w 5 - - 1 0 0; " ] && [ "$q" = "$f" ]; then
	ok "create_on_open=1, rw=randread on the new file: err=5, exit 1, as fio's \"full resid\""
else
	bad "create_on_open=1 randread: ioqos $q, fio $f"; cat "$TMP/err"
fi

# ENOSPC forgiven: 2 MiB written on 1 MiB, 16 writes of 64 KiB fail
for m in none native posix; do
	printf '[w]\nioengine=psync\nrw=write\nbs=64k\nsize=2m\ncontinue_on_error=write\nignore_error=,ENOSPC\nerror_dump=0\nfallocate=%s\nfilename=%s/f\n' \
		"$m" "$SMALL" >"$TMP/sp.fio"
	rm -f "$SMALL/f"
	"$IOQOS" run --output-format=json "$TMP/sp.fio" >"$TMP/q.json" 2>"$TMP/err"
	q="$? $(figs "$TMP/q.json")"
	f="$q"
	if [ -n "$FIO" ]; then
		rm -f "$SMALL/f"
		"$FIO" --output-format=json "$TMP/sp.fio" >"$TMP/f.json" 2>/dev/null
		f="$? $(figs "$TMP/f.json")"
	fi
	if [ "$q" = "0 w 28 16 28 0 32 0; " ] && [ "$q" = "$f" ]; then
		ok "fallocate=$m, 2 MiB on 1 MiB: 16 ENOSPC forgiven and counted, exit 0, as fio"
	else
		bad "fallocate=$m on a full tmpfs: ioqos $q, fio $f"; cat "$TMP/err"
	fi
done
rm -f "$SMALL/f"

# fio's examples/enospc-pressure.fio, its directory and sizes small
cat >"$TMP/enospc.fio" <<EOF
[global]
ioengine=libaio
directory=$MNT
filesize=8M
size=16M
iodepth=128
continue_on_error=write
ignore_error=,ENOSPC
error_dump=0
fallocate=none
exitall

[dio-raicer]
bs=128k
direct=1
buffered=0
rw=randwrite
runtime=10
filename=raicer
time_based

[punch_hole-raicer]
bs=4k
rw=randtrim
filename=raicer

[aio-dio-verifier]
create_on_open=1
verify=crc32c-intel
verify_fatal=1
verify_dump=1
verify_backlog=1024
verify_async=4
direct=1
bs=4k
rw=randrw
filename=aio-dio-verifier
EOF
rm -f "$MNT"/*
# in $TMP: a verify job that exitall stops leaves fio's verify state
# file (NAME-N-verify.state) in the current directory
(cd "$TMP" && "$IOQOS" run --output-format=json "$TMP/enospc.fio") >"$TMP/q.json" 2>"$TMP/err"
q="$? $(figs "$TMP/q.json")"
f="$q"
if [ -n "$FIO" ]; then
	rm -f "$MNT"/*
	(cd "$TMP" && "$FIO" --output-format=json "$TMP/enospc.fio") >"$TMP/f.json" 2>/dev/null
	f="$? $(figs "$TMP/f.json")"
fi
want="1 dio-raicer 0 0 0 0 0 0; punch_hole-raicer 25 1 25 0 0 1; aio-dio-verifier 0 0 0 0 0 0; "
# fio's verifier sometimes gets some I/O done before exitall reaches it
# (its threads race), so fio is held to the exit status and the two
# raicers; ioqos, which stops the others before their next I/O, to all
f_fixed=${f%%aio-dio-verifier*}
if [ "$q" = "$want" ] && [ "$f_fixed" = "${want%%aio-dio-verifier*}" ] &&
	grep -q "punch_hole-raicer': trim of 4096 bytes .*Inappropriate ioctl for device" "$TMP/err"; then
	ok "enospc-pressure.fio: the trim's ENOTTY counted once, exitall, exit 1, as fio"
else
	bad "enospc-pressure.fio: ioqos $q, fio $f, want $want"; cat "$TMP/err"
fi

printf '[w]\nrw=write\nsize=1m\nfallocate=sometimes\nfilename=%s/f\n' "$MNT" >"$TMP/c.fio"
expect_fail "check: fallocate=sometimes" "fallocate=sometimes: expected none, native, posix, keep, truncate, 0 or 1" \
	"$IOQOS" check "$TMP/c.fio"
finish
