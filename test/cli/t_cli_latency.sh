#!/bin/sh
# Latency targets through ioqos run, on the simulated SSD: a light job L at
# iodepth 1 beside A (weight 300) and B (100) at 64 out each.  Without a
# target L waits behind what A and B keep out; with "/L latency=300us" its
# p99 (fio's lat_ns, submit to done) is within 10% of the target, A:B stays
# 3:1, the report says what the target held (text and JSON), and the depth
# goes back to auto's once L is gone.  io.latency's "MAJ:MIN target=N" gives
# the same run; bad values are refused with the file, line, key and value.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
cd "$TMP" || exit 1

cat >l.fio <<'E'
[global]
ioengine=sim
rw=randread
bs=4k
runtime=3
time_based
lat_percentiles=1
[A]
cgroup=A
cgroup_weight=300
iodepth=16
numjobs=4
[B]
cgroup=B
cgroup_weight=100
iodepth=16
numjobs=4
[L]
cgroup=L
iodepth=1
runtime=2
E
printf '/L latency=300us\n' >t.qos
printf '/ device=8:16\n/L 8:16 target=300\n' >cg.qos
: >none.qos
for k in none t cg; do
	"$IOQOS" run l.fio --qos $k.qos --output-format=json,normal >$k.out 2>$k.err ||
		{ bad "run with $k.qos: $(cat $k.err)"; finish; }
	sed -n '/^{/,/^}/p' $k.out >$k.json
done
if python3 - <<'PY'
import json
def load(k):
    r = json.load(open(k + ".json"))
    jobs = {j["jobname"]: j for j in r["jobs"]}
    g = {x["path"]: x for x in r["ioqos"]["groups"]}
    return r, jobs, g
r0, j0, g0 = load("none")
r1, j1, g1 = load("t")
p99 = lambda j: j["L"]["read"]["lat_ns"]["percentile"]["99.000000"]
assert p99(j0) > 600000, p99(j0)          # behind 128 out
assert p99(j1) <= 330000, p99(j1)         # within 10% of 300 us
a, b = g1["/A"]["read"]["iops"], g1["/B"]["read"]["iops"]
assert abs(100 * a / (a + b) - 75) <= 3, (a, b)
lat = g1["/L"]["latency"]
# the library counts the one completion past the runtime that fio does not
assert lat["target_ns"] == 300000 and 0 <= lat["done"] - j1["L"]["read"]["total_ios"] <= 1, lat
assert lat["misses"] < lat["done"] / 50 and isinstance(lat["bound"], int), lat
assert "latency" not in g1["/A"] and "latency" not in g0["/L"]
# L ran 2 s of 3: at the end its grace is over and the depth is auto's
dev = r1["ioqos"]["device"]
assert dev["latency_bound"] == "max" and dev["depth"] == "auto", dev
# io.latency's form gives the same run, byte for byte in the JSON's figures
r2, j2, g2 = load("cg")
assert p99(j2) == p99(j1) and g2["/L"]["latency"] == lat, (p99(j2), g2["/L"]["latency"])
PY
then ok "latency=300us: L's p99 within 10%, A:B 3:1, the figures in the JSON; io.latency the same"
else bad "latency target in the reports"; fi
grep -Eq '^  latency: /L target 300 us; p99 of its last window [0-9]+ us \(mean [0-9]+ us\), [0-9]+ of [0-9]+ over; the depth held to [0-9]+ while it is active$' t.out &&
	ok "the text report's latency line" || bad "the text report's latency line: $(grep latency: t.out)"

# bad values: file, line, key, value
printf '/L weight=2\n/L2 latency=5\n' >bad1.qos
printf '/L latency=11s\n' >bad2.qos
printf '/ device=8:16\n/L 8:16 target=1ms\n' >bad3.qos
for f in bad1 bad2 bad3; do
	"$IOQOS" run l.fio --qos $f.qos >$f.out 2>&1 && bad "$f.qos was taken"
done
grep -q "bad1.qos:2: key 'latency': bad value '5' (missing unit" bad1.out &&
grep -q "bad2.qos:1: key 'latency': bad value '11s' (longer than 10s)" bad2.out &&
grep -q "bad3.qos:2: key '8:16': bad value 'target=1ms' (io.latency's target=N is a whole number of microseconds)" bad3.out &&
	ok "bad latency values refused with file, line, key and value" ||
	bad "refusals: $(cat bad1.out bad2.out bad3.out)"
finish
