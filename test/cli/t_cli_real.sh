#!/bin/sh
# Real time: the null engine, psync and a short io_uring run on a file in a
# scratch directory, checked for sanity (what was asked was done, limits
# are never exceeded, nothing is written but the named file).  Stopping a
# run is t_cli_stop.sh.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }

# null: no files, the controller in the loop; a read cap of 2000 IOPS
cat >"$TMP/null.fio" <<E
[global]
ioengine=null
size=64m
bs=4k
runtime=500ms
time_based
[capped]
rw=randread
iodepth=16
cgroup=capped
[free]
rw=write
iodepth=4
cgroup=free
E
printf '/capped riops=2000\n' >"$TMP/null.qos"
if "$IOQOS" run "$TMP/null.fio" --qos "$TMP/null.qos" --output-format=json >"$TMP/null.json" 2>"$TMP/err" &&
   python3 - "$TMP/null.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["engine"] == "null" and not r["interrupted"]
j = {x["jobname"]: x for x in r["jobs"]}
c, f = j["capped"], j["free"]
assert c["write"]["total_ios"] == 0 and f["read"]["total_ios"] == 0
assert f["write"]["total_ios"] > 1000, f["write"]
assert f["write"]["io_bytes"] == 4096 * f["write"]["total_ios"]
secs = c["job_runtime"] / 1000.0
# never above the limit: R*T plus the bucket's depth (the larger of 8 I/Os
# and 10 ms of the rate: 20) and one request
assert 0 < c["read"]["total_ios"] <= 2000 * secs + max(8, 2000 * 0.010) + 1, (c["read"], secs)
g = {x["path"]: x for x in r["ioqos"]["groups"]}
assert g["/capped"]["limits"]["riops"] == 2000
assert g["/free"]["limits"]["wiops"] == "max"
PY
then ok "null engine with a limit"; else bad "null engine"; cat "$TMP/err"; fi
[ -z "$(ls "$TMP" | grep -v -e '^null\.' -e '^err$')" ] && ok "null writes no files" || bad "null wrote files: $(ls "$TMP")"

# a file engine on a temp file: laid out, read and written, nothing else
# touched.  O_DIRECT first; a filesystem without it (tmpfs) gets direct=0.
# 64 I/Os each, not a time: on a loaded machine's disk the first I/O may
# take longer than a run of 300 ms, which then counted none
file_run() {
	eng=$1 direct=$2
	mkdir -p "$TMP/d"
	cat >"$TMP/f.fio" <<E
[global]
directory=$TMP/d
filename=data.bin
size=8m
bs=4k
direct=$direct
number_ios=64
[reader]
rw=randread
iodepth=8
[writer]
rw=randwrite
iodepth=2
cgroup=w
E
	"$IOQOS" run "$TMP/f.fio" --engine "$eng" --output-format=json >"$TMP/f.json" 2>"$TMP/ferr"
}
for eng in io_uring psync; do
	rm -rf "$TMP/d"
	direct=1
	if ! file_run $eng 1; then
		if grep -q 'Invalid argument' "$TMP/ferr"; then
			direct=0
			rm -rf "$TMP/d"
			file_run $eng 0 || { bad "$eng: $(cat "$TMP/ferr")"; continue; }
		elif [ $eng = io_uring ] && grep -Eq 'io_uring: (Function not implemented|Operation not permitted)' "$TMP/ferr"; then
			skip_part "io_uring: not available here"
			continue
		else
			bad "$eng: $(cat "$TMP/ferr")"
			continue
		fi
	fi
	if python3 - "$TMP/f.json" "$eng" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["engine"] == sys.argv[2]
j = {x["jobname"]: x for x in r["jobs"]}
assert j["reader"]["read"]["total_ios"] == 64 and j["writer"]["write"]["total_ios"] == 64
for x in r["jobs"]:
    for d in ("read", "write"):
        assert x[d]["io_bytes"] == 4096 * x[d]["total_ios"]
        if x[d]["total_ios"]:
            c = x[d]["clat_ns"]
            assert 0 < c["min"] <= c["percentile"]["50.000000"] <= c["max"]
PY
	then ok "$eng on a temp file (direct=$direct)"; else bad "$eng json"; fi
	size=$(stat -c %s "$TMP/d/data.bin" 2>/dev/null)
	[ "$size" = 8388608 ] && ok "$eng laid the file out" || bad "$eng file size '$size'"
	[ "$(ls "$TMP/d")" = data.bin ] && ok "$eng wrote only the named file" || bad "$eng wrote: $(ls "$TMP/d")"
done

# a file too small is laid out to size; an existing larger one is kept
rm -rf "$TMP/d"; mkdir -p "$TMP/d"
head -c 4096 /dev/zero >"$TMP/d/small.bin"
printf '[a]\nfilename=%s/d/small.bin\nsize=1m\ndirect=0\nrw=read\n' "$TMP" >"$TMP/s.fio"
"$IOQOS" run "$TMP/s.fio" --engine psync >/dev/null 2>"$TMP/err" &&
	[ "$(stat -c %s "$TMP/d/small.bin")" = 1048576 ] && ok "small file grown" || bad "small file: $(cat "$TMP/err")"

finish
