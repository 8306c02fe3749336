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
                                 "read_iops", "write_iops"}, rows[:1]
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
for g in ("/1 ", "/1/2 ", "/1/2/3 ", "/4 "):
    assert g in texts, g
assert texts.count("limit read") == 4, texts
assert len(list(svg.iter(ns + "polyline"))) == 4
dashed = [e for e in svg.iter(ns + "line") if e.get("stroke-dasharray")]
assert len(dashed) == 4
PY
then ok "CSV and SVG"; else bad "CSV and SVG"; fi

# without --log the CSV follows the report; JSON carries the intervals
"$IOQOS" run test/cli/jobs/two_groups.fio --log-interval 500 >"$TMP/o2" 2>&1 &&
	grep -q '^Per-interval log (CSV):' "$TMP/o2" && grep -q '^2000.000,/groupB,' "$TMP/o2" &&
	ok "CSV after the report" || bad "CSV after the report"
"$IOQOS" run test/cli/jobs/two_groups.fio --log-interval 500 --output-format json >"$TMP/o3.json" &&
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); iv=r["ioqos"]["intervals"]; assert len(iv)==4*3, len(iv)' "$TMP/o3.json" &&
	ok "JSON intervals" || bad "JSON intervals"
expect_fail "--log without interval" "--log needs --log-interval" "$IOQOS" run test/cli/jobs/two_groups.fio --log "$TMP/x.csv"
expect_fail "plot to a bad path" "nodir/p.svg" "$IOQOS" run test/cli/jobs/hier.fio --plot "$TMP/nodir/p.svg"
finish
