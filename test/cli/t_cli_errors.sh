#!/bin/sh
# continue_on_error=, ignore_error= and error_dump= as fio 3.33 applies
# them, on a device that fails every write with ENOSPC (/dev/full, psync):
# forgiven, the job writes on to its size, err=28 with total_err and
# first_error in the JSON, the text and the terse line, exit status 0, and
# fio says the same of the same job; not forgiven (another type, or an
# error not in the list), the run ends with the error.  A block that
# fails its verify is forgiven by continue_on_error=verify.  Character
# devices are used as they are, without O_DIRECT.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
[ -c /dev/full ] || { echo "no /dev/full"; exit 77; }
cd "$TMP" || exit 1

ejob() {   # ejob FILE OPTION...: 16 writes of 4k to /dev/full
	out=$1
	shift
	printf '[w]\nioengine=psync\nfilename=/dev/full\ndirect=0\nsize=64k\nbs=4k\nrw=write\n' >"$out"
	for x in "$@"; do printf '%s\n' "$x" >>"$out"; done
}
errs() {   # "error total_err first_error" of the JSON's job
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(j["error"], j.get("total_err", "-"), j.get("first_error", "-"), j["write"]["total_ios"])' "$1" 2>/dev/null
}

for v in "continue_on_error=write|ignore_error=,ENOSPC" "ignore_error=,ENOSPC" \
	 "continue_on_error=all|ignore_error=EIO,28:5" "continue_on_error=io|ignore_error=:,ENOSPC:EIO"; do
	ejob e.fio $(echo "$v" | tr '|' ' ')
	"$IOQOS" run e.fio --output-format=json >e.json 2>err
	rc=$?
	if [ $rc = 0 ] && [ "$(errs e.json)" = "28 16 28 16" ] && [ ! -s err ]; then
		ok "$v: forgiven (err=28, total_err=16)"
	else
		bad "$v: exit $rc, $(errs e.json)"; cat err
	fi
	if command -v fio >/dev/null; then
		fio e.fio --output-format=json >f.json 2>/dev/null
		[ "$(errs f.json)" = "28 16 28 16" ] && ok "$v: fio says the same" ||
			bad "$v: fio says $(errs f.json)"
	fi
done

# the text and terse reports
ejob e.fio ignore_error=,ENOSPC
"$IOQOS" run e.fio --output-format=normal,terse >out 2>err
grep -q '^w: (groupid=0, jobs=1): err=28:' out &&
	grep -qx '     errors    : total=16, first_error=28/<No space left on device>' out &&
	grep -q '^3;.*;16;28$' out && ok "text and terse: err=28, the errors line" ||
	{ bad "text and terse"; cat out err; }

# error_dump=1: each forgiven error printed as fio prints it
ejob e.fio ignore_error=,ENOSPC error_dump=1
"$IOQOS" run e.fio >out 2>err
[ "$(grep -c '^ioqos: io_u error on file /dev/full: No space left on device: write offset=[0-9]*, buflen=4096$' err)" = 16 ] &&
	grep -q 'offset=61440, buflen=4096' err && ok "error_dump=1: every error" ||
	{ bad "error_dump=1"; cat err; }

# not forgiven: fio's default list is EIO and EILSEQ; read is not write
for v in "continue_on_error=write" "continue_on_error=read|ignore_error=ENOSPC" "continue_on_error=none"; do
	ejob e.fio $(echo "$v" | tr '|' ' ')
	"$IOQOS" run e.fio --output-format=json >e.json 2>err
	rc=$?
	if [ $rc = 1 ] && grep -q "No space left on device" err && [ "$(errs e.json | cut -d' ' -f1)" = 28 ]; then
		ok "$v: ENOSPC ends the run"
	else
		bad "$v: exit $rc, $(errs e.json)"; cat err
	fi
done

# verify: a file written with crc32c, one block spoilt, read back
printf '[v]\nioengine=psync\nfilename=%s/v.dat\nsize=256k\nbs=4k\nrw=write\nverify=crc32c\n' "$TMP" >v.fio
"$IOQOS" run v.fio >/dev/null 2>err || bad "verify write: $(cat err)"
printf 'spoilt' | dd of=v.dat bs=1 seek=8292 conv=notrunc status=none
printf 'verify_only=1\ncontinue_on_error=verify\n' >>v.fio
"$IOQOS" run v.fio --output-format=json >v.json 2>err
rc=$?
if [ $rc = 0 ] && python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
assert (j["error"], j["total_err"], j["first_error"]) == (84, 1, 84), j["error"]' v.json; then
	ok "continue_on_error=verify: one bad block forgiven, err=84"
else
	bad "verify: exit $rc"; cat err
fi
if command -v fio >/dev/null; then
	fio v.fio --output-format=json >f.json 2>/dev/null
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
assert (j["error"], j["total_err"], j["first_error"], j["read"]["total_ios"]) == (84, 1, 84, 64)' f.json &&
		[ "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["total_ios"])' v.json)" = 64 ] &&
		ok "continue_on_error=verify: fio says the same" || bad "verify: fio differs"
fi

# a character device is opened without O_DIRECT (ioqos's default), which
# it has no page cache for: fio's examples read /dev/zero, write /dev/null
printf '[z]\nioengine=psync\nfilename=/dev/zero\nsize=64k\nbs=4k\nrw=read\n[n]\nioengine=psync\nfilename=/dev/null\nsize=64k\nbs=4k\nrw=write\n' >z.fio
"$IOQOS" run z.fio --output-format=json >z.json 2>err &&
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"]
assert (j[0]["read"]["total_ios"], j[1]["write"]["total_ios"]) == (16, 16)' z.json &&
	ok "/dev/zero and /dev/null with direct's default" || { bad "/dev/zero, /dev/null"; cat err; }

expect_fail "an unknown error name" "ignore_error=,EBOGUS: expected READ,WRITE,VERIFY" \
	sh -c 'printf "[x]\nsize=1m\nignore_error=,EBOGUS\n" >x.fio && "$0" check x.fio' "$IOQOS"
expect_fail "a bad continue_on_error" "continue_on_error=maybe: expected none, read" \
	sh -c 'printf "[x]\nsize=1m\ncontinue_on_error=maybe\n" >x.fio && "$0" check x.fio' "$IOQOS"
finish
