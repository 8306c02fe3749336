#!/bin/sh
# Inputs a hostile user writes: every value bounded (an I/O's size, file
# offsets, run times, I/Os in flight, buffer memory), device files parsed
# as strictly as job files, and control bytes never echoed raw.  Each case
# is one error line naming file:line, key and value.
. "$(dirname "$0")/lib.sh"

# job FILE LINE...: a job file of those lines under [j]
job() {
	f=$1
	shift
	printf '[j]\n' >"$f"
	printf '%s\n' "$@" >>"$f"
}

job "$TMP/bs.fio" ioengine=sim size=8g bs=4g
expect_fail "bs=4g" "bs.fio:4: bs=4g: larger than 2147479552 bytes" \
	"$IOQOS" check "$TMP/bs.fio"
job "$TMP/bsw.fio" ioengine=sim size=8g bs=4k,2147483648
expect_fail "bs=4k,2g (write side)" "bsw.fio:4: bs=4k,2147483648: larger than" \
	"$IOQOS" run "$TMP/bsw.fio"
job "$TMP/bsr.fio" ioengine=sim bsrange=4k-4g
expect_fail "bsrange=4k-4g" "bsr.fio:3: bsrange=4k-4g: larger than" \
	"$IOQOS" check "$TMP/bsr.fio"
job "$TMP/bss.fio" ioengine=sim bssplit=4k/50:8g/50
expect_fail "bssplit=...8g" "bss.fio:3: bssplit=4k/50:8g/50: larger than" \
	"$IOQOS" check "$TMP/bss.fio"
# the largest I/O that is allowed still runs
job "$TMP/bsmax.fio" ioengine=sim size=4g bs=2147479552 number_ios=1
if "$IOQOS" run "$TMP/bsmax.fio" --output-format=terse >"$TMP/out" 2>&1 &&
   [ "$(cut -d';' -f6 "$TMP/out")" = 2097148 ]; then
	ok "bs=2g-4k runs one I/O of 2097148 KiB"
else
	bad "bs=2g-4k:"; cat "$TMP/out"
fi

job "$TMP/off.fio" ioengine=sim size=1m offset=18446744073709551615
expect_fail "offset=2^64-1" "off.fio:4: offset=18446744073709551615: more than 9223372036854775807" \
	"$IOQOS" check "$TMP/off.fio"
job "$TMP/offsz.fio" ioengine=sim size=1m offset=9223372036854775807
expect_fail "offset + size past 2^63-1" "job 'j': offset=9223372036854775807 \+ size=1048576 is past" \
	"$IOQOS" check "$TMP/offsz.fio"
job "$TMP/offdev.fio" ioengine=sim offset=1t
expect_fail "offset past the sim device" "job 'j': offset=1099511627776 is past the end of .* \(274877906944 bytes\)" \
	"$IOQOS" run "$TMP/offdev.fio"
printf 'x' >"$TMP/small"
job "$TMP/offfile.fio" ioengine=psync "filename=$TMP/small" offset=4k
expect_fail "offset past a file" "job 'j': offset=4096 is past the end of .*small \(1 bytes\)" \
	"$IOQOS" run "$TMP/offfile.fio"

job "$TMP/rt.fio" ioengine=sim size=1m time_based runtime=18446744073709551615ns
expect_fail "runtime=2^64-1ns" "rt.fio:5: runtime=18446744073709551615ns: longer than 365d" \
	"$IOQOS" check "$TMP/rt.fio"
job "$TMP/ramp.fio" ioengine=sim size=1m ramp_time=366d
expect_fail "ramp_time=366d" "ramp.fio:4: ramp_time=366d: longer than 365d" \
	"$IOQOS" check "$TMP/ramp.fio"
job "$TMP/ok.fio" ioengine=sim size=1m
expect_fail "--runtime 9999999h" "command line: runtime=9999999h: expected a time" \
	"$IOQOS" run "$TMP/ok.fio" --runtime 9999999h
expect_fail "--runtime-all 9999999h" "--runtime-all: expected a time up to 365d" \
	"$IOQOS" run "$TMP/ok.fio" --runtime-all 9999999h

job "$TMP/ios.fio" ioengine=sim size=1m numjobs=65536 iodepth=64
expect_fail "numjobs x iodepth" "numjobs x iodepth over all jobs is 4194304 I/Os in flight, more than the 1048576" \
	"$IOQOS" check "$TMP/ios.fio"
# buffers larger than the memory: refused before the file is made
job "$TMP/mem.fio" ioengine=io_uring "filename=$TMP/mem.dat" size=2g bs=2000m \
	iodepth=1024 numjobs=4
expect_fail "buffers past the memory" "the I/O buffers \(numjobs x iodepth x bs\) take 8192000 MiB, more than the [0-9]+ MiB of memory" \
	"$IOQOS" run "$TMP/mem.fio"
if [ -e "$TMP/mem.dat" ]; then bad "the refused run made its file"; else ok "no file made"; fi

# device files: whole lines, NUL, directories, keys unknown or twice
job "$TMP/s.fio" ioengine=sim size=1m
{ printf '# '; head -c 600 /dev/zero | tr '\0' a; printf 'lat=1h\n'; } >"$TMP/long.dev"
printf 'lat=1ms\n' >>"$TMP/long.dev"
"$IOQOS" check "$TMP/s.fio" >/dev/null
if "$IOQOS" run "$TMP/s.fio" --device "$TMP/long.dev" --output-format=terse >"$TMP/out" 2>&1 &&
   [ "$(cut -d';' -f6 "$TMP/out")" = 1024 ]; then
	# 1 MiB at QD1 of 1 ms reads: 256 I/Os, over a quarter of a second (not 1 h each)
	lat=$(cut -d';' -f40 "$TMP/out")
	case $lat in 10[0-9][0-9].*) ok "a 600-byte comment stays a comment (clat $lat us)";;
	*) bad "long comment: clat mean $lat us";; esac
else
	bad "long comment:"; cat "$TMP/out"
fi
printf 'lat=1ms\0junk\nchannels=4\n' >"$TMP/nul.dev"
expect_fail "NUL in a device file" "nul.dev:1: NUL byte in line" \
	"$IOQOS" run "$TMP/s.fio" --device "$TMP/nul.dev"
mkdir "$TMP/dir.dev"
expect_fail "a directory as a device" "dir.dev: not a regular file" \
	"$IOQOS" run "$TMP/s.fio" --device "$TMP/dir.dev"
# a device at every extreme of its keys: a thousandth of an I/O per
# second, writes a thousand times dearer, charged per byte, its speed
# changing every millisecond and stepping down a thousandfold, beside 4096
# of the largest writes switching on and off every 100 us.  It runs, and
# --stop-after ends it on time, the request it holds given back
printf 'curve=1:0.001\nwrite_cost=1000\nsize_cost=1\ndrift=100\ndrift_tau=1us\nsteps=1000\nstep_every=1ms\nstep_len=10us\nneighbour_depth=4096\nneighbour_bs=2147479552\nneighbour_on=100us\nneighbour_off=100us\n' >"$TMP/slow.dev"
printf '[a]\nrw=write\nbs=1m\nsize=4m\n' >"$TMP/slow.fio"
if timeout 60 "$IOQOS" run "$TMP/slow.fio" --engine sim --device "$TMP/slow.dev" --stop-after 2 \
	>"$TMP/out" 2>&1 && grep -q 'stopped by --stop-after' "$TMP/out"; then
	ok "a device at its keys' extremes stops with --stop-after"
else
	bad "extreme device:"; tail -5 "$TMP/out"
fi
# a key given twice: refused as in a config, not the last kept silently
printf 'lat=1ms\n# the same key again, further down\nchannels=4\nlat=2ms\n' >"$TMP/dup.dev"
expect_fail "a key twice in a device file" \
	"dup.dev:4: lat=2ms: lat= is given already, on line 1$" \
	"$IOQOS" run "$TMP/s.fio" --device "$TMP/dup.dev"
printf 'channels=4\nlatency=1ms\n' >"$TMP/key.dev"
expect_fail "unknown device key" "key.dev:2: unknown key 'latency'" \
	"$IOQOS" run "$TMP/s.fio" --device "$TMP/key.dev"

# control bytes: escaped in job files, device files and the command line
esc=$(printf '\033')
job "$TMP/esc.fio" "rw=${esc}[31mred"
expect_fail "escape in a job value" 'esc.fio:2: rw=\\x1b\[31mred: expected' \
	"$IOQOS" check "$TMP/esc.fio"
printf 'lat=\033[2J\n' >"$TMP/esc.dev"
expect_fail "escape in a device value" 'esc.dev:1: bad value lat=\\x1b\[2J' \
	"$IOQOS" run "$TMP/s.fio" --device "$TMP/esc.dev"
printf 'bogus\033]0;x=1\n' >"$TMP/esc2.dev"
expect_fail "escape in a device key" "esc2.dev:1: unknown key 'bogus\\\\x1b\]0;x'" \
	"$IOQOS" run "$TMP/s.fio" --device "$TMP/esc2.dev"
expect_fail "escape on the command line" '--seed: bad number a\\x1bb' \
	"$IOQOS" run "$TMP/s.fio" --seed "a${esc}b"
expect_fail "escape in a path" 'no\\x07such: No such file' \
	"$IOQOS" check "$TMP/no$(printf '\007')such"
finish
