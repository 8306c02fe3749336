#!/bin/sh
# --log-interval CSV and the --plot SVG: parsed (python's csv and XML
# parsers), per-interval figures add up, the SVG has axes, units, a legend
# and each limit as a dashed line.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
cd "$ROOT" || exit 1

"$IOQOS" run test/cli/jobs/hier.fio --qos test/cli/jobs/hier.qos --device hdd \
	--log-interval 1000 --log "$TMP/h.csv" --plot "$TMP/h.svg" >"$TMP/out" 2>"$TMP/err" ||
	{ bad "run: $(cat "$TMP/err")"; finish; }
grep -q 'Per-interval log' "$TMP/out" && bad "CSV went to the report too" || ok "CSV only in --log FILE"
if python3 - "$TMP/h.csv" "$TMP/h.svg" <<'PY'
import csv, sys, xml.etree.ElementTree as ET
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and set(rows[0]) == {"time_ms", "group", "read_bw_bytes", "write_bw_bytes",
                                 "read_iops", "write_iops", "depth", "depth_found"}, rows[:1]
# no depth in the --qos file: "max" on every row, nothing found
assert {(r["depth"], r["depth_found"]) for r in rows} == {("max", "0")}
groups = {r["group"] for r in rows}
assert groups == {"/", "/1", "/1/2", "/1/2/3", "/4"}, groups
t = sorted({float(r["time_ms"]) for r in rows})
assert t[0] == 1000.0 and t[-1] == 20000.0 and len(t) == 20, t
# after the first seconds every interval of /1 is at its 200 KiB/s limit
late = [float(r["read_bw_bytes"]) for r in rows if r["group"] == "/1" and float(r["time_ms"]) > 2000]
assert all(abs(v - 204800) <= 4096 for v in late), late
svg = ET.parse(sys.argv[2]).getroot()
ns = "{http://www.w3.org/2000/svg}"
texts = " ".join(e.text or "" for e in svg.iter(ns + "text"))
assert "time (s)" in texts and "bandwidth (KiB/s)" in texts, texts
legend = [e.text for e in svg.iter(ns + "text")]
for g in ("/1", "/1/2", "/1/2/3", "/4"):
    assert g in legend, g
assert texts.count("limit read") == 4, texts
lines = list(svg.iter(ns + "polyline"))
assert len(lines) == 4
# drawn widest first, so that a line on top never hides one below
w = [float(e.get("stroke-width")) for e in lines]
assert w == sorted(w, reverse=True) and w[0] > w[-1], w
# each limit dashed in its colour, over a white dash, after every line
dashed = [e for e in svg.iter(ns + "line") if e.get("stroke-dasharray")]
assert len([e for e in dashed if e.get("stroke") != "white"]) == 4
assert len([e for e in dashed if e.get("stroke") == "white"]) == 4
order = [e.tag for e in svg.iter() if e.tag in (ns + "polyline", ns + "line") and
         (e.tag == ns + "polyline" or e.get("stroke-dasharray"))]
assert order[:4] == [ns + "polyline"] * 4, order
# no point above 1.1 times the largest limit: the partial last interval is
# not drawn as a spike
ph_top = 50.0
ys = [float(p.split(",")[1]) for e in lines for p in e.get("points").split()]
lim_y = min(float(e.get("y1")) for e in dashed)
assert min(ys) >= lim_y - (float(svg.get("height")) - 60 - ph_top) * 0.1, (min(ys), lim_y)
PY
then ok "CSV and SVG"; else bad "CSV and SVG"; fi

# a run that ends 0.3 ms after a tick: that sliver holds one 64k read of a
# paced job (its bucket full), 20 times its limit if drawn as a rate; the
# CSV keeps the row, the plot leaves it out
printf '[paced]\nioengine=sim\ncgroup=paced\nsize=1g\nbs=64k\nrw=read\nrate=5m\nruntime=2000300us\ntime_based\n' >"$TMP/sp.fio"
printf '/paced rbps=10m\n' >"$TMP/sp.qos"
"$IOQOS" run "$TMP/sp.fio" --qos "$TMP/sp.qos" --log-interval 100 --log "$TMP/sp.csv" --plot "$TMP/sp.svg" >/dev/null 2>"$TMP/err" ||
	bad "sliver run: $(cat "$TMP/err")"
if python3 - "$TMP/sp.csv" "$TMP/sp.svg" <<'PY'
import csv, sys, xml.etree.ElementTree as ET
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["group"] == "/paced"]
assert rows[-1]["time_ms"] == "2000.300" and float(rows[-1]["read_bw_bytes"]) > 20 * 10485760, rows[-1]
ns = "{http://www.w3.org/2000/svg}"
svg = ET.parse(sys.argv[2]).getroot()
line = next(svg.iter(ns + "polyline"))
pts = [tuple(map(float, p.split(","))) for p in line.get("points").split()]
assert len(pts) == len(rows) - 1, (len(pts), len(rows))
lim = [float(e.get("y1")) for e in svg.iter(ns + "line")
       if e.get("stroke-dasharray") and e.get("stroke") == line.get("stroke")]
base = float(svg.get("height")) - 60
top = max(base - y for x, y in pts)
assert top <= 1.01 * (base - lim[0]), (top, base - lim[0])
PY
then ok "the last sliver of a run is not drawn as a spike"; else bad "sliver"; fi

# 20 groups with long paths: the legend fits (the picture grows), paths
# are cut at the front
{
	printf '[global]\nioengine=sim\nsize=1m\n'
	for i in $(seq 1 20); do printf '[j%d]\ncgroup=a-rather-long-tenant-name/with-a-subgroup-%02d\n' $i $i; done
} >"$TMP/many.fio"
: >"$TMP/many.qos"
for i in 1 2 3 4 5; do printf '/a-rather-long-tenant-name/with-a-subgroup-%02d rbps=%dm\n' $i $i >>"$TMP/many.qos"; done
"$IOQOS" run "$TMP/many.fio" --qos "$TMP/many.qos" --plot "$TMP/many.svg" >/dev/null 2>"$TMP/err" || bad "many: $(cat "$TMP/err")"
if python3 - "$TMP/many.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
svg = ET.parse(sys.argv[1]).getroot()
W, H = float(svg.get("width")), float(svg.get("height"))
texts = list(svg.iter(ns + "text"))
paths = [t.text for t in texts if t.text and "with-a-subgroup" in t.text]
assert len(paths) == 20, len(paths)
assert all(len(p) <= 26 and p.startswith("\u2026") for p in paths), paths
for t in texts:
    size = float(t.get("font-size", "13"))
    assert float(t.get("y", "0")) <= H - 4, (t.text, t.get("y"), H)
    if t.get("x") and float(t.get("x")) > W * 0.6:         # the legend
        assert float(t.get("x")) + 0.6 * size * len(t.text) <= W, t.text
assert H > 540                                              # it grew
PY
then ok "the legend of 20 groups fits"; else bad "legend"; fi

# bench/plot.py (the core benchmark's curve): its legend fits too, and its
# lines are drawn widest first
printf '  groups depth=max    cpu   ratio  depth=32    cpu   ratio  FIFO setup B/grp\n      10      32.4   32.4   21.8x      37.4   37.5   28.4x   1.5  3347   941\n     100      28.1   28.1   15.5x     115.4  115.5   78.7x   1.8  1714 21371\n\n' |
	python3 "$ROOT/bench/plot.py" >"$TMP/bench.svg" 2>"$TMP/err" || bad "plot.py: $(cat "$TMP/err")"
if python3 - "$TMP/bench.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
svg = ET.parse(sys.argv[1]).getroot()
W = float(svg.get("width"))
for t in svg.iter(ns + "text"):
    assert float(t.get("x")) + 0.6 * 12 * len(t.text) <= W or t.get("text-anchor"), t.text
w = [float(e.get("stroke-width")) for e in svg.iter(ns + "polyline")]
assert len(w) == 3 and w == sorted(w, reverse=True) and w[0] > w[-1], w
PY
then ok "bench/plot.py legend fits"; else bad "bench/plot.py"; fi

# without --log the CSV follows the report; JSON carries the intervals
"$IOQOS" run test/cli/jobs/two_groups.fio --log-interval 500 >"$TMP/o2" 2>&1 &&
	grep -q '^Per-interval log (CSV):' "$TMP/o2" && grep -q '^2000.000,/groupB,' "$TMP/o2" &&
	ok "CSV after the report" || bad "CSV after the report"
"$IOQOS" run test/cli/jobs/two_groups.fio --log-interval 500 --output-format json >"$TMP/o3.json" &&
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); iv=r["ioqos"]["intervals"]; assert len(iv)==4*3, len(iv)' "$TMP/o3.json" &&
	ok "JSON intervals" || bad "JSON intervals"

# the device's depth per interval: fixed, it is the same on every row; under
# depth=auto, with demand (128 out) above the sim SSD's knee, the depth in
# force is what it settled on but where it probes, and the same in the JSON
printf '/ depth=8\n' >"$TMP/d8.qos"
printf '/ depth=auto\n' >"$TMP/auto.qos"
sed 's/^iodepth=8$/iodepth=64/' test/cli/jobs/two_groups.fio >"$TMP/tg64.fio"
if "$IOQOS" run test/cli/jobs/two_groups.fio --qos "$TMP/d8.qos" --log-interval 100 \
	--log "$TMP/d8.csv" >/dev/null 2>"$TMP/err" &&
   "$IOQOS" run "$TMP/tg64.fio" --qos "$TMP/auto.qos" --log-interval 100 \
	--log "$TMP/auto.csv" >/dev/null 2>"$TMP/err" &&
   "$IOQOS" run "$TMP/tg64.fio" --qos "$TMP/auto.qos" --log-interval 100 \
	--output-format json >"$TMP/auto.json" 2>"$TMP/err" &&
   python3 - "$TMP/d8.csv" "$TMP/auto.csv" "$TMP/auto.json" <<'PY'
import csv, json, sys
d8 = list(csv.DictReader(open(sys.argv[1])))
assert d8 and {(r["depth"], r["depth_found"]) for r in d8} == {("8", "0")}, d8[:3]
rows = list(csv.DictReader(open(sys.argv[2])))
by_t = {}
for r in rows:
    by_t.setdefault(r["time_ms"], set()).add((r["depth"], r["depth_found"]))
# one device: every group's row of an interval says the same
assert all(len(v) == 1 for v in by_t.values()), by_t
dev = [next(iter(v)) for _, v in sorted(by_t.items(), key=lambda kv: float(kv[0]))]
depth = [int(d) for d, _ in dev]
found = [int(f) for _, f in dev]
assert all(1 <= d < 128 for d in depth), depth
assert found[-1] > 0 and all(f > 0 for f in found[5:]), found
settled = sum(d == f for d, f in zip(depth, found))
assert settled >= 0.8 * len(dev), (depth, found)
j = json.load(open(sys.argv[3]))
iv = [(x["t_ms"], x["depth"], x["depth_found"]) for x in j["ioqos"]["intervals"] if x["group"] == "/"]
assert [(d, f) for _, d, f in iv] == list(zip(depth, found)), (iv, depth, found)
assert j["ioqos"]["device"]["depth_found"] == found[-1], j["ioqos"]["device"]
PY
then ok "depth per interval (CSV and JSON)"; else bad "depth per interval: $(cat "$TMP/err")"; fi
# bench/plot.py --intervals draws that run: the depth, each group's share
python3 "$ROOT/bench/plot.py" --intervals "$TMP/auto.json" >"$TMP/auto.svg" 2>"$TMP/err" ||
	bad "plot.py --intervals: $(cat "$TMP/err")"
if python3 - "$TMP/auto.svg" "$TMP/auto.json" <<'PY'
import json, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
svg = ET.parse(sys.argv[1]).getroot()
texts = [t.text for t in svg.iter(ns + "text")]
for want in ("depth (requests)", "share of I/Os (%)", "time (s)", "depth in force",
             "depth found", "/groupA (weights: 75.0%)", "/groupB (weights: 25.0%)"):
    assert want in texts, (want, texts)
# one polyline per group's share, with as many points as intervals
j = json.load(open(sys.argv[2]))
n = len([x for x in j["ioqos"]["intervals"] if x["group"] == "/"])
shares = [e for e in svg.iter(ns + "polyline") if e.get("stroke-width") == "2.0"]
assert len(shares) == 2 and all(len(e.get("points").split()) == n for e in shares), n
dashed = [e for e in svg.iter(ns + "line") if e.get("stroke-dasharray")]
assert len(dashed) >= 2
PY
then ok "bench/plot.py --intervals"; else bad "bench/plot.py --intervals"; fi
expect_fail "--log without interval" "--log needs --log-interval" "$IOQOS" run test/cli/jobs/two_groups.fio --log "$TMP/x.csv"
expect_fail "plot to a bad path" "nodir/p.svg" "$IOQOS" run test/cli/jobs/hier.fio --plot "$TMP/nodir/p.svg"
finish
