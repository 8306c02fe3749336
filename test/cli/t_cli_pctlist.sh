#!/bin/sh
# percentile_list= and slat_percentiles= (jobopts_pct.c), beside fio 3.33:
# the same percentiles, sorted, cut at a 0, with fio's precision, in the
# JSON's percentile keys, the text's percentile lines (the values left
# out: they are the device's) and the terse line's; slat_percentiles=1
# adds slat's percentiles to the JSON and the text, as fio's io_uring.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skipped: python3 is needed"; exit 77; }
find_fio

# shape FILE: the JSON's percentile keys of write's slat, clat and lat,
# the text's percentile lines with each [value] as [], and the terse
# line's percentile fields without their values (the text's entries one a
# line)
shape() {
	python3 - "$1" <<'PY'
import json, re, sys
t = open(sys.argv[1]).read()
i = t.index("{")
depth = 0
for k, c in enumerate(t[i:]):
    depth += {"{": 1, "}": -1}.get(c, 0)
    if depth == 0:
        break
j = json.loads(t[i:i + k + 1])["jobs"][0]["write"]
for lat in ("slat_ns", "clat_ns", "lat_ns"):
    print(lat, " ".join(j[lat].get("percentile", {}).keys()))
rest = t[i + k + 1:]
for line in rest.splitlines():
    # one entry a line: how many fit on a line depends on the values'
    # digits, which differ between the two runs
    if "percentiles (" in line:
        print(re.sub(r"\((n|u|m)sec\)", "(unit)", line))
    if line.startswith("     |"):
        for e in line.strip(" |").split(","):
            if e.strip():
                print(re.sub(r"\[ *[0-9]+\]", "[]", e.strip()))
    if line.startswith("3;"):
        print(" ".join(f.split("=")[0] for f in line.split(";") if "%=" in f)[:400])
PY
}

for c in "percentile_list=99.999:50:99" "percentile_list=10:0:99" \
	 "percentile_list=1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:19:20" \
	 "slat_percentiles=1" "slat_percentiles=1:percentile_list=99.5:99.9"; do
	# the list's own ':' stay: split only at the names
	body=$(echo "$c" | sed 's/:\([a-z_]*=\)/\n\1/g')
	printf '[p]\nioengine=io_uring\nrw=write\nsize=256k\nbs=4k\niodepth=4\nfilename=%s/p.dat\n%s\n' \
		"$TMP" "$body" >"$TMP/p.fio"
	if ! "$IOQOS" run --output-format=terse,json,normal "$TMP/p.fio" >"$TMP/q.out" 2>"$TMP/err"; then
		bad "$c: ioqos exit non-zero:"; cat "$TMP/err"; continue
	fi
	shape "$TMP/q.out" >"$TMP/q.shape"
	if [ -z "$FIO" ]; then
		ok "$c: accepted"
		skip_part "$c: the comparison with fio: no fio here"; continue
	fi
	"$FIO" --output-format=terse,json,normal "$TMP/p.fio" >"$TMP/f.out" 2>/dev/null
	shape "$TMP/f.out" >"$TMP/f.shape"
	if cmp -s "$TMP/q.shape" "$TMP/f.shape" && grep -q "clat_ns .*[0-9]" "$TMP/q.shape"; then
		ok "$c: percentiles as fio's: $(grep clat_ns "$TMP/q.shape" | cut -c1-70)"
	else
		bad "$c: fio and ioqos differ:"; diff "$TMP/f.shape" "$TMP/q.shape"
	fi
done

printf '[p]\npercentile_list=50:101\n' >"$TMP/bad.fio"
expect_fail "percentile_list=50:101 refused" \
	"bad.fio:2: percentile_list=50:101: expected percentages 0..100" "$IOQOS" check "$TMP/bad.fio"
printf '[p]\npercentile_list=1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:19:20:21\n' >"$TMP/bad.fio"
expect_fail "21 percentiles refused" "more than 20 percentiles" "$IOQOS" check "$TMP/bad.fio"
finish
