#!/bin/sh
# fio's own layouts, checked against fio itself: one job file run by fio
# and by ioqos (the null engine, no files), the JSON key sets and types
# compared key by key, fio's fio_jsonplus_clat2csv run on ioqos's json+
# output (and its --validate mode), the terse line's field count, several
# formats at once, and fio's nsec/usec/msec unit switching in the text.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
command -v fio >/dev/null || { echo "fio is needed (apt-get install fio)"; exit 77; }

cat >"$TMP/j.fio" <<'E'
[global]
ioengine=null
size=16m
bs=4k
runtime=1200ms
time_based
[mixed]
rw=randrw
iodepth=4
[reader]
rw=read
lat_percentiles=1
E
fio --output-format=json+ "$TMP/j.fio" >"$TMP/fio.json" 2>"$TMP/fio.err" ||
	{ bad "fio run: $(cat "$TMP/fio.err")"; finish; }
"$IOQOS" run --output-format=json+ "$TMP/j.fio" >"$TMP/ioqos.json" 2>"$TMP/err" ||
	{ bad "ioqos run: $(cat "$TMP/err")"; finish; }

if python3 - "$TMP/fio.json" "$TMP/ioqos.json" <<'PY'
import json, sys
fio, ioq = (json.load(open(p)) for p in sys.argv[1:3])
# keys whose names are data (the latency bins): checked for form only
DATA = {"bins"}
missing = []
def walk(a, b, path):
    if isinstance(a, dict):
        if not isinstance(b, dict):
            missing.append("%s: %s in fio, %s here" % (path, "object", type(b).__name__))
            return
        if path.split("/")[-1] in DATA:
            for k, v in b.items():
                assert int(k) >= 0 and isinstance(v, int), (path, k, v)
            return
        for k, v in a.items():
            if k not in b:
                missing.append(path + "/" + k)
            else:
                walk(v, b[k], path + "/" + k)
    elif isinstance(a, list):
        if len(a) != len(b):
            missing.append("%s: %d items in fio, %d here" % (path, len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, "%s[%d]" % (path, i))
    elif type(a) != type(b):
        missing.append("%s: %s in fio, %s here" % (path, type(a).__name__, type(b).__name__))
walk(fio, ioq, "")
assert not missing, "\n".join(missing)
# the same options, read from the same file
assert fio["global options"] == ioq["global options"], (fio["global options"], ioq["global options"])
for f, q in zip(fio["jobs"], ioq["jobs"]):
    assert f["jobname"] == q["jobname"] and f["job options"] == q["job options"], (f, q)
    for d in ("read", "write"):
        x = q[d]
        if not x["total_ios"]:
            assert x["bw_samples"] == 0 and "bins" not in x["clat_ns"], x
            continue
        assert sum(x["clat_ns"]["bins"].values()) == x["clat_ns"]["N"] == x["total_ios"]
        assert x["lat_ns"]["N"] == x["slat_ns"]["N"] == x["total_ios"]
        # 1.2 s of runtime: two full 500 ms samples, as fio takes them
        assert x["bw_samples"] == x["iops_samples"] == 2, x
        assert x["bw_min"] <= x["bw_mean"] <= x["bw_max"], x
        assert x["clat_ns"]["min"] <= x["lat_ns"]["min"] and x["clat_ns"]["max"] <= x["lat_ns"]["max"]
    lat = sum(q[k][b] for k in ("latency_ns", "latency_us", "latency_ms") for b in q[k])
    assert abs(lat - 100.0) < 1e-3, lat
    # fio shows a bucket that is not empty as 0.1 at least (stat_calc_dist)
    lvl = q["iodepth_level"].values()
    raised = sum(1 for v in lvl if v == 0.1)
    assert 100.0 - 1e-3 <= sum(lvl) <= 100.0 + 0.1 * raised + 1e-3, q["iodepth_level"]
assert ioq["jobs"][1]["iodepth_level"]["1"] == 100.0, ioq["jobs"][1]["iodepth_level"]
# lat_percentiles=1 (the reader only): lat's percentiles beside clat's, as
# fio's; each at least clat's, since every I/O's lat includes its clat
assert "percentile" not in ioq["jobs"][0]["read"]["lat_ns"]
lp, cp = (ioq["jobs"][1]["read"][k]["percentile"] for k in ("lat_ns", "clat_ns"))
assert sorted(lp) == sorted(cp) and all(lp[k] >= cp[k] for k in lp), (lp, cp)
assert ioq["jobs"][0]["iodepth_level"]["4"] > 99.9, ioq["jobs"][0]["iodepth_level"]
PY
then ok "json+ keys and types as fio's"; else bad "json+ keys and types"; fi

# fio's own converter reads ioqos's json+ output, and validates what it wrote
py=python3
python3 -c 'import six' 2>/dev/null || py=/usr/bin/python3
conv=$(command -v fio_jsonplus_clat2csv)
if [ -n "$conv" ] && (cd "$TMP" && $py "$conv" ioqos.json lat.csv >conv.out 2>&1 &&
			$py "$conv" --validate ioqos.json lat.csv >>conv.out 2>&1); then
	if [ "$(grep -c validated "$TMP/conv.out")" = 2 ] &&
	   python3 - "$TMP/lat_job0.csv" "$TMP/ioqos.json" <<'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1]), skipinitialspace=True))
head = [h.strip() for h in rows[0]]
j = json.load(open(sys.argv[2]))["jobs"][0]
i = head.index("read_clat_ns_count")
assert sum(int(r[i]) for r in rows[1:] if r[i].strip()) == j["read"]["total_ios"]
PY
	then ok "fio_jsonplus_clat2csv on ioqos json+"; else bad "clat2csv output: $(cat "$TMP/conv.out")"; fi
else
	bad "fio_jsonplus_clat2csv: $(cat "$TMP/conv.out" 2>/dev/null)"
fi

# terse: as many fields as fio's line for the same jobs
fio --output-format=terse "$TMP/j.fio" >"$TMP/fio.terse" 2>/dev/null
"$IOQOS" run --output-format=terse "$TMP/j.fio" >"$TMP/ioqos.terse" 2>"$TMP/err"
if python3 - "$TMP/fio.terse" "$TMP/ioqos.terse" <<'PY'
import sys
f = [l.split(";") for l in open(sys.argv[1]) if l.startswith("3;")]
q = [l.rstrip("\n").split(";") for l in open(sys.argv[2])]
assert len(f) == len(q) == 2, (len(f), len(q))
for a, b in zip(f, q):
    assert len(a) == len(b), (len(a), len(b))
    assert b[0] == "3" and b[2] == a[2]
    # read KiB = io_kbytes, clat percentiles at fio's positions
    assert b[17].startswith("1.000000%=") and b[33].startswith("99.990000%=")
    assert b[34] == b[35] == b[36] == "0%=0" and b[4] == "0" and int(b[5]) > 0
PY
then ok "terse v3 line"; else bad "terse: $(head -c 300 "$TMP/ioqos.terse")"; fi

# several formats at once: the JSON document, then the text
"$IOQOS" run --output-format=json,normal "$TMP/j.fio" >"$TMP/both" 2>"$TMP/err"
if python3 - "$TMP/both" <<'PY'
import json, sys
s = open(sys.argv[1]).read()
doc, end = json.JSONDecoder().raw_decode(s)
assert doc["jobs"][0]["jobname"] == "mixed"
rest = s[end:]
assert "mixed: (groupid=0" in rest and "Run status group 0" in rest and "ioqos groups" in rest
# fio's text: a "lat percentiles" block after clat's for the reader only
assert rest.count("\n    lat percentiles (") == 1, rest
assert rest.index("\n    lat percentiles (") > rest.index("reader: (groupid=")
PY
then ok "json,normal"; else bad "json,normal"; fi
expect_fail "bad format in a list" "--output-format" "$IOQOS" run --output-format=json,xml "$TMP/j.fio"
expect_fail "empty format in a list" "--output-format" "$IOQOS" run --output-format=json, "$TMP/j.fio"

# units: a device of a few hundred ns (sim, so exact) reads in nsec, with
# the latency, cpu and depth lines; on the sim disk under limits the time
# held is in msec, the disk's percentiles in usec (fio's rule: msec only
# from a 2 ms minimum)
printf 'channels=4\nlat=300ns\nchan_bw=40000000000\nlink_lat=0\nlink_bw=40000000000\nseek=0\njitter=10\ncapacity=1g\n' >"$TMP/fast.dev"
printf '[f]\nioengine=sim\nsize=16m\nrw=randread\niodepth=4\n' >"$TMP/f.fio"
"$IOQOS" run "$TMP/f.fio" --device "$TMP/fast.dev" >"$TMP/fast.txt" 2>&1
grep -Eq '^    clat \(nsec\): min=[0-9]{3}, max=[0-9]{3}, ' "$TMP/fast.txt" &&
	grep -q '^    clat percentiles (nsec):' "$TMP/fast.txt" &&
	grep -Eq '^  lat \(nsec\)   : (250|500|750)=' "$TMP/fast.txt" &&
	grep -q '^  cpu          : usr=0.00%, sys=0.00%, ctx=0, majf=0, minf=0 (virtual time)' "$TMP/fast.txt" &&
	grep -Eq '^  IO depths    : 1=0.1%, 2=0.1%, 4=99.9%' "$TMP/fast.txt" &&
	ok "nsec units, latency, cpu and depth lines" || { bad "fast text"; head -30 "$TMP/fast.txt"; }
cd "$ROOT" || exit 1
"$IOQOS" run test/cli/jobs/hier.fio --qos test/cli/jobs/hier.qos --device hdd >"$TMP/hdd.txt" 2>&1
grep -Eq '^    slat \(msec\): min=20, ' "$TMP/hdd.txt" && grep -Eq '^    clat \(msec\): ' "$TMP/hdd.txt" &&
	grep -Eq '^    clat percentiles \(usec\):' "$TMP/hdd.txt" &&
	ok "msec units where the limits hold I/Os" || { bad "hdd text"; head -20 "$TMP/hdd.txt"; }
finish
