#!/bin/sh
# The sim engine is deterministic for a seed: its reports are checked
# byte for byte against test/cli/golden/ (UPDATE_GOLDEN=1 rewrites them),
# and the figures that the scenarios are about are checked by reading the
# JSON report with python's json module.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }

# name | arguments (relative to the repository root)
cases="two_groups|run test/cli/jobs/two_groups.fio
two_groups_depth8|run test/cli/jobs/two_groups.fio --qos test/cli/jobs/depth8.qos
hier_hdd|run test/cli/jobs/hier.fio --qos test/cli/jobs/hier.qos --device hdd --seed 3
mixed|run test/cli/jobs/mixed.fio --seed 9
mixed_json|run test/cli/jobs/mixed.fio --seed 9 --output-format=json
hier_log|run test/cli/jobs/hier.fio --qos test/cli/jobs/hier.qos --device hdd --log-interval 5000
prio25_hdd|run examples/2008-prio-25.fio --device hdd --runtime-all 30
qd8x8_json|run examples/2016-qd8x8.fio --device ssd --runtime-all 1 --output-format=json+
qd8x8_nvme|run examples/2016-qd8x8.fio --device nvme --runtime-all 1 --seed 4 --log-interval 100"

cd "$ROOT" || exit 1
echo "$cases" | while IFS='|' read -r name args; do
	# shellcheck disable=SC2086
	"$IOQOS" $args >"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
	# the version is not part of what is checked
	sed -i 's/^ioqos [0-9][0-9.]*: /ioqos VERSION: /; s/"ioqos-[0-9][0-9.]*"/"ioqos-VERSION"/' "$TMP/$name.out"
	if [ "$rc" != 0 ]; then
		echo "FAIL $name: exit $rc"; cat "$TMP/$name.err"; echo x >>"$TMP/failed"
		continue
	fi
	# shellcheck disable=SC2086
	"$IOQOS" $args >"$TMP/$name.again" 2>/dev/null
	sed -i 's/^ioqos [0-9][0-9.]*: /ioqos VERSION: /; s/"ioqos-[0-9][0-9.]*"/"ioqos-VERSION"/' "$TMP/$name.again"
	if ! cmp -s "$TMP/$name.out" "$TMP/$name.again"; then
		echo "FAIL $name: two runs with one seed differ"; echo x >>"$TMP/failed"
		continue
	fi
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$TMP/$name.out" "$GOLDEN/$name.out"
		echo "ok   $name (golden rewritten)"
	elif ! diff -u "$GOLDEN/$name.out" "$TMP/$name.out" >"$TMP/$name.diff"; then
		echo "FAIL $name: differs from $GOLDEN/$name.out:"; head -40 "$TMP/$name.diff"
		echo x >>"$TMP/failed"
	else
		echo "ok   $name"
	fi
done
[ -e "$TMP/failed" ] && fails=$((fails + $(wc -l <"$TMP/failed")))

# a different seed gives a different run
"$IOQOS" run test/cli/jobs/mixed.fio --seed 10 >"$TMP/seed10.out" 2>&1
sed -i 's/^ioqos [0-9][0-9.]*: /ioqos VERSION: /' "$TMP/seed10.out"
cmp -s "$TMP/seed10.out" "$TMP/mixed.out" && bad "seed changes nothing" || ok "seed matters"

# a device that slows down: the ssd preset, every service time doubled
# from 1 s on.  Two jobs at iodepth 8 keep 16 out, so each interval's IOPS
# after the change is half what it was before, and the report says so
# (depth=max: the two groups' weights would have the depth follow them)
printf '# the ssd preset, twice as slow after a second\nslowdown_at=1s\nslowdown=2\n' >"$TMP/slow.dev"
printf '/ depth=max\n' >"$TMP/max.qos"
if "$IOQOS" run test/cli/jobs/two_groups.fio --device "$TMP/slow.dev" --qos "$TMP/max.qos" --log-interval 250 \
	--log "$TMP/slow.csv" >"$TMP/slow.out" 2>"$TMP/slow.err" &&
   grep -q 'slowdown_at=1000000000ns slowdown=2.000, seed 1$' "$TMP/slow.out" &&
   python3 - "$TMP/slow.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["group"] == "/"]
before = [float(r["read_iops"]) for r in rows if float(r["time_ms"]) <= 1000]
after = [float(r["read_iops"]) for r in rows if float(r["time_ms"]) > 1250]
assert len(before) == 4 and len(after) == 3, rows
b, a = sum(before) / len(before), sum(after) / len(after)
assert abs(a / b - 0.5) < 0.01, (b, a)
PY
then ok "slowdown=2 from 1 s halves the IOPS"; else bad "slowdown: $(cat "$TMP/slow.err")"; fi

# depth=auto: the header says what the depth is now and what it works from
printf '/ depth=auto\n' >"$TMP/auto.qos"
"$IOQOS" run test/cli/jobs/two_groups.fio --qos "$TMP/auto.qos" >"$TMP/auto.out" 2>&1 &&
"$IOQOS" run test/cli/jobs/two_groups.fio --qos "$TMP/auto.qos" --output-format=json >"$TMP/auto.json" 2>&1
if grep -Eq '^ioqos groups \(depth auto \(now [0-9]+, least latency [0-9.]+ us\), window' "$TMP/auto.out" &&
   grep -Eq '^  depth=auto: [0-9]+ blocks' "$TMP/auto.out" &&
   ! grep -q 18446744073709551614 "$TMP/auto.out" "$TMP/auto.json" &&
   python3 - "$TMP/auto.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
dev = r["ioqos"]["device"]
assert dev["depth"] == "auto" and r["ioqos"]["groups"][0]["limits"]["depth"] == "auto"
assert isinstance(dev["depth_now"], int) and 1 <= dev["depth_now"] <= 16, dev
assert dev["lat_min_ns"] > 0 and dev["rounds"] > 0, dev
PY
then ok "depth=auto in the report"; else bad "depth=auto in the report:"; cat "$TMP/auto.out"; fi

# what the scenarios are about, from the JSON reports
for args in "test/cli/jobs/two_groups.fio" \
	    "test/cli/jobs/two_groups.fio --qos test/cli/jobs/depth8.qos" \
	    "test/cli/jobs/hier.fio --qos test/cli/jobs/hier.qos --device hdd"; do
	# shellcheck disable=SC2086
	"$IOQOS" run $args --output-format json >"$TMP/r.json" || bad "json run $args"
	if python3 - "$TMP/r.json" "$args" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
args = sys.argv[2]
g = {x["path"]: x for x in r["ioqos"]["groups"]}
jobs = {j["jobname"]: j for j in r["jobs"]}
for j in r["jobs"]:
    for d in ("read", "write"):
        assert set(j[d]) >= {"io_bytes", "bw_bytes", "iops", "clat_ns"}, j[d]
        if not j[d]["total_ios"]:
            assert "percentile" not in j[d]["clat_ns"]    # as fio leaves it out
            continue
        p = j[d]["clat_ns"]["percentile"]
        assert "50.000000" in p and "99.900000" in p
        v = [p[k] for k in sorted(p, key=float)]
        assert v == sorted(v), v
def bw(path):
    return g[path]["read"]["bw_bytes"]
# the device over the window: Little's law ties the mean number out to the
# completions and their mean time on the device
dev = r["ioqos"]["device"]
win = r["ioqos"]["window_ns"]
little = dev["done"] / win * dev["lat_mean_ns"]
assert abs(dev["inflight_mean"] - little) <= 0.01 * little, (dev, little)
if "hier" in args:
    for path, lim in (("/1", 200 << 10), ("/1/2", 100 << 10),
                      ("/1/2/3", 50 << 10), ("/4", 50 << 10)):
        # a limit holds to within one 4 KiB request over the window
        assert lim * 0.98 <= bw(path) <= lim * 1.005, (path, bw(path), lim)
    # limits only: nothing asks for sharing, nothing is held back
    assert (dev["depth"], dev["depth_rule"], dev["depth_rule_groups"]) == ("max", "none", 4), dev
elif "depth8" in args:
    a, b = bw("/groupA"), bw("/groupB")
    share = a / (a + b)
    assert abs(share - 0.75) < 0.01, share       # prio 2:6 = weights 150:50
    assert abs(g["/groupA"]["expected_share"] - 75.0) < 1e-6
    # 16 requests want to go: the 8 slots are never left empty
    assert dev["depth"] == 8 and dev["depth_now"] == 8, dev
    assert dev["depth_rule"] == "written", dev
    assert 7.99 <= dev["inflight_mean"] <= 8.0 and dev["full_pct"] >= 99.9, dev
else:
    a, b = bw("/groupA"), bw("/groupB")
    # no depth written and two groups given weights: depth=auto.  The
    # SSD works on 32 at once and the load keeps 16 out: holding any of
    # them back would idle it to force 3:1, so the weights give way and
    # each job gets what its 8 requests get
    assert dev["depth"] == "auto" and dev["depth_found"] == 16, dev
    assert (dev["depth_rule"], dev["depth_rule_groups"], dev["depth_rule_sharing"]) \
        == ("share", 2, 2), dev
    assert abs(a / (a + b) - 0.5) < 0.01, a / (a + b)
    assert 15.5 <= dev["inflight_mean"] <= 16.0, dev
    # the sim SSD: about 205-210 MiB/s per QD8 job, as in the 2016 test
    assert 190 << 20 <= a <= 230 << 20, a
PY
	then ok "json figures: $args"; else bad "json figures: $args"; fi
done
finish
