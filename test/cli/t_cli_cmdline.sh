#!/bin/sh
# fio's jobs on the command line (--name=... starts a job, the options
# before the first --name are global ones), alone and beside job files,
# run by ioqos and by fio 3.33 on the null engine: the same jobs, I/O
# counts and "job options" / "global options" as fio prints them; the
# jobs of the command line described by `ioqos check` as those of the
# equivalent job file; errors at "command line".
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skipped: python3 is needed"; exit 77; }
find_fio

# figs FILE: per job its name, error, I/O counts and options; then fio's
# global options, in order (a key may come twice: fio lists what it read)
figs() {
	python3 - "$1" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
try:
    j = json.loads(t[t.index("{"):], object_pairs_hook=lambda p: p)
except ValueError:
    print("no-json"); sys.exit()
d = dict(j)
for x in dict(j)["jobs"]:
    x = dict(x)
    s = [x["jobname"], "err=%d" % x["error"]]
    for k in ("read", "write"):
        r = dict(x[k])
        if r["total_ios"]:
            s.append("%s:%d/%d" % (k, r["total_ios"], r["io_bytes"]))
    s.append("opts=" + ",".join("%s=%s" % kv for kv in x.get("job options", [])))
    print(" ".join(s))
print("global " + ",".join("%s=%s" % kv for kv in d.get("global options", [])))
PY
}

# both NAME ARGS...: ioqos and fio on the same command line, each in a
# directory of its own
both() {
	name=$1
	shift
	mkdir -p "$TMP/q.$name" "$TMP/f.$name"
	for f in "$TMP"/*.fio; do
		[ -e "$f" ] && cp "$f" "$TMP/q.$name/" && cp "$f" "$TMP/f.$name/"
	done
	run_pair "$name" "$@" || return
	if cmp -s "$TMP/f.$name/figs" "$TMP/q.$name/figs"; then
		ok "$name: $(($(wc -l <"$TMP/q.$name/figs") - 1)) jobs as fio's"
		sed 's/^/     /' "$TMP/q.$name/figs"
	else
		bad "$name: fio and ioqos differ:"; diff "$TMP/f.$name/figs" "$TMP/q.$name/figs"
	fi
}

# a one-line job as fio users type it, and two jobs with global options before them
both one --name=a --rw=randread --bs=4k --size=4m --iodepth=8 --ioengine=null
both two --ioengine=null --size=1m --name=a --rw=write --bs=8k --name=b --bs 16k \
	--rw randrw --rwmixread=25 --number_ios 40 --name=c --size=256k --thread \
	--rw randread --norandommap --stonewall --number_ios 16
# --name=global goes back to the global options, for the jobs after it
both global --name=a --ioengine=null --size=1m --name=global --bs=64k --name=b \
	--ioengine=null --size=2m
# a job file beside them: the command line's jobs first; its global
# options are the file's defaults, which the file's [global] overrides
cat >"$TMP/g.fio" <<'E'
[global]
ioengine=null
size=1m
bs=8k

[fa]
rw=read

[fb]
bs=32k
E
both file --bs=16k --iodepth=2 g.fio --name=c --ioengine=null --size=2m
# ... of the first job file only: fio starts each later one anew
cat >"$TMP/h.fio" <<'E'
[fh]
ioengine=null
size=512k
E
both files --bs=64k g.fio h.fio
# --section takes the command line's jobs of that name; the options of a
# job left out are global ones until the next --name (fio's own way)
both section --section=b --ioengine=null --size=1m --name=a --bs=128k --name=b \
	--rw=write

# `ioqos check`: the jobs of a command line as those of its job file
cat >"$TMP/eq.fio" <<'E'
[global]
ioengine=io_uring
direct=0
size=64m

[a]
rw=randread
bs=4k
iodepth=8
filename=f

[b]
rw=write
bs=1m
numjobs=2
runtime=5
time_based
E
"$IOQOS" check "$TMP/eq.fio" | sed 1d | sed 's/ (.*:[0-9]*)$//' >"$TMP/eq.file"
"$IOQOS" check --ioengine=io_uring --direct=0 --size=64m --name=a --rw=randread --bs=4k \
	--iodepth=8 --filename=f --name=b --rw=write --bs=1m --numjobs=2 --runtime=5 \
	--time_based | sed 1d | sed 's/ (command line)$//' >"$TMP/eq.cmd"
if [ -s "$TMP/eq.file" ] && cmp -s "$TMP/eq.file" "$TMP/eq.cmd"; then
	ok "check: the command line's jobs as the job file's"
else
	bad "check: the command line's jobs differ from the job file's:"
	diff "$TMP/eq.file" "$TMP/eq.cmd"
fi

# errors name the command line, and nothing runs
expect_fail "unknown option" "^ioqos: command line: unknown or unsupported option 'xyz'$" \
	"$IOQOS" run --name=a --ioengine=null --size=1m --xyz=1
expect_fail "bad value" "^ioqos: command line: bs=4q: " \
	"$IOQOS" check --name=a --bs=4q
expect_fail "job check" "^ioqos: command line: job 'a': bs=8192 is larger than size=4096$" \
	"$IOQOS" check --name=a --bs=8k --size=4k
expect_fail "global options, no job" "no jobs" "$IOQOS" run --ioengine=null --size=1m
# an option that needs a value takes the next argument, whatever it is,
# as fio's getopt_long; at the end it has none
expect_fail "value from the next argument" "^ioqos: command line: direct=--size=1m: " \
	"$IOQOS" check --name=a --direct --size=1m
expect_fail "no value at the end" "^ioqos: command line: direct needs a value" \
	"$IOQOS" check --name=a --direct
# fio takes no \${VAR} on the command line: the shell expands
expect_fail "no \${VAR}" "^ioqos: command line: bs=\\$\\{BS\\}: " \
	env BS=4k "$IOQOS" check --name=a "--bs=\${BS}"
finish
