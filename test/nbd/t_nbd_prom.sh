#!/bin/sh
# The stats file in Prometheus' text format and in JSON, read by real
# parsers (python3-prometheus-client's, python3's json), against what real
# clients did: nbdcopy writes 4 MiB to /a/b and reads them back from /a-b;
# fio's nbd engine writes 1 MiB to /c.  A group's figures are its
# subtree's: /a and / count /a/b's writes, and /a does not count /a-b
# (a name that sorts between /a and /a/b).  The lanes' figures count
# every request once back and its submit and done applied.
#
# Removed groups are in no form: a reload drops /b and /c (both written
# to), and /d, made on demand for a client that wrote and left, goes with
# it.  Then the Prometheus file still parses, with no sample twice and
# none without a group; the text and JSON files name only / and /a.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
$PY -c 'import prometheus_client.parser' 2>/dev/null ||
	skip "python3-prometheus-client is not installed (sh scripts/deps.sh nbdkit)"

printf '/a\n/a/b\n/a-b\n/c latency=5ms\n' >"$TMP/qos.conf"
head -c 4194304 /dev/urandom >"$TMP/data.bin"
t0=$(date +%s)

start p --filter="$FILTER" memory 4M ioqos-config="$TMP/qos.conf" \
	ioqos-stats="$TMP/p.prom" ioqos-stats-format=prometheus ioqos-poll=0 || exit 1
check "nbdcopy writes 4 MiB to /a/b" nbdcopy "$TMP/data.bin" "$(uri p a/b)"
check "nbdcopy reads them from /a-b" nbdcopy "$(uri p a-b)" "$TMP/back.bin"
check "the same bytes" cmp -s "$TMP/data.bin" "$TMP/back.bin"
check "nbdkit stops" stop p

check "prometheus: parsed, values as the clients did" $PY - "$TMP/p.prom" "$t0" "$(date +%s)" <<'PYEOF'
import sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
t0, t1 = float(sys.argv[2]), float(sys.argv[3]) + 1
fams = {f.name: f for f in text_string_to_metric_families(text)}
v = {}
for f in fams.values():
    assert f.documentation, f.name + ": no HELP"
    assert f.type in ("counter", "gauge"), f.name + ": " + f.type
    for s in f.samples:
        if f.type == "counter":
            assert s.name.endswith("_total"), s.name
        v[(s.name, s.labels.get("group"), s.labels.get("dir"))] = s.value
for line in text.splitlines():
    if line.startswith("# HELP ioqos_dispatched"):
        assert "subtree" in line, line
def want(name, group, d, value):
    got = v.get((name, group, d))
    assert got == value, "%s{group=%s,dir=%s} = %r, want %r" % (name, group, d, got, value)
M = 4194304
B = "ioqos_dispatched_bytes_total"
want(B, "/a/b", "write", M); want(B, "/a", "write", M); want(B, "/", "write", M)
want(B, "/a-b", "write", 0); want(B, "/c", "write", 0)
want(B, "/a-b", "read", M); want(B, "/", "read", M)
want(B, "/a", "read", 0); want(B, "/a/b", "read", 0)
R = "ioqos_dispatched_requests_total"
ios = v[(R, "/", "read")] + v[(R, "/", "write")]
assert ios > 0 and ios == v[(R, "/a-b", "read")] + v[(R, "/a/b", "write")], ios
want("ioqos_completed_requests_total", "/", None, ios)
# each request back on its lane once, its submit and its done applied; no
# lane open once every thread that served one has ended
want("ioqos_lane_back_total", None, None, ios)
want("ioqos_lane_posts_total", None, None, 2 * ios)
want("ioqos_lane_refused_total", None, None, 0)
want("ioqos_lane_bad_done_total", None, None, 0)
want("ioqos_lanes", None, None, 0)
assert v[("ioqos_lane_batches_total", None, None)] >= 1
for g in ("/", "/a", "/a/b", "/a-b", "/c"):
    want("ioqos_inflight_requests", g, None, 0)
    for d in ("read", "write"):
        want("ioqos_queued_requests", g, d, 0)
want("ioqos_device_depth", None, None, float("inf"))
# no depth written, four groups and no weight: the rule says max
rule = {x.labels["rule"]: x.value for x in fams["ioqos_device_depth_rule"].samples}
assert rule == {"written": 0, "share": 0, "none": 1}, rule
want("ioqos_device_rule_groups", None, None, 4)
# /c's latency target, the only one: its figures, none for the others
want("ioqos_latency_target_seconds", "/c", None, 0.005)
want("ioqos_latency_completed_total", "/c", None, 0)
want("ioqos_latency_bound", "/c", None, float("inf"))
assert [s.labels["group"] for s in fams["ioqos_latency_target_seconds"].samples] == ["/c"], \
    fams["ioqos_latency_target_seconds"].samples
want("ioqos_device_latency_bound", None, None, float("inf"))
want("ioqos_device_rule_sharing", None, None, 0)
want("ioqos_connections", None, None, 0)
ts = v[("ioqos_stats_timestamp_seconds", None, None)]
assert t0 <= ts <= t1, (t0, ts, t1)
PYEOF

start j --filter="$FILTER" memory 4M ioqos-config="$TMP/qos.conf" \
	ioqos-stats="$TMP/j.json" ioqos-stats-format=json ioqos-poll=0 || exit 1
check "fio's nbd engine writes 1 MiB to /c" fio --name=w --ioengine=nbd --uri="$(uri j c)" \
	--rw=write --bs=64k --size=1M --output-format=json --output="$TMP/fio.json"
check "nbdkit stops" stop j
check "json: parsed, values as fio did" $PY - "$TMP/j.json" "$TMP/fio.json" "$t0" "$(date +%s)" <<'PYEOF'
import json, sys
st = json.load(open(sys.argv[1]))
fio = json.load(open(sys.argv[2]))
t0, t1 = float(sys.argv[3]), float(sys.argv[4]) + 1
assert t0 <= st["timestamp"] <= t1, st["timestamp"]
wrote = fio["jobs"][0]["write"]["io_bytes"]
assert wrote == 1048576, wrote
grp = {x["path"]: x for x in st["groups"]}
assert sorted(grp) == ["/", "/a", "/a-b", "/a/b", "/c"], sorted(grp)
assert grp["/c"]["write"]["bytes"] == wrote and grp["/c"]["own"]["write"]["bytes"] == wrote
assert grp["/"]["write"]["bytes"] == wrote, grp["/"]
assert grp["/"]["own"]["write"]["bytes"] == 0, grp["/"]["own"]
assert grp["/"]["write"]["ios"] == fio["jobs"][0]["write"]["total_ios"], grp["/"]
n = fio["jobs"][0]["write"]["total_ios"]
ln = st["lanes"]
assert (ln["open"], ln["back"], ln["posts"], ln["refused"], ln["bad_done"]) == (0, n, 2 * n, 0, 0), ln
assert ln["batches"] >= 1, ln
assert grp["/a"]["write"]["bytes"] == 0
assert st["device"]["depth"] == "max" and st["queued"] == 0 and st["inflight"] == 0
assert (st["device"]["depth_rule"], st["device"]["rule_groups"], st["device"]["rule_sharing"]) \
    == ("none", 4, 0), st["device"]
# /c's latency target counted fio's writes; a client alone never bounds the depth
# beyond what it meets (5 ms on memory)
lat = grp["/c"]["latency"]
assert lat["target_s"] == 0.005 and lat["done"] == fio["jobs"][0]["write"]["total_ios"], lat
assert "latency" not in grp["/a"] and st["device"]["latency_bound"] == "max", st["device"]
PYEOF

# removals FORMAT FILE: groups a reload drops and one made on demand whose
# client left, under ioqos-stats-format=FORMAT; the stats file is FILE
removals() {
	n=r_$1
	printf '/a\n/b\n/c\n' >"$TMP/$n.conf"
	start $n -v --filter="$FILTER" memory 4M ioqos-config="$TMP/$n.conf" ioqos-exports=any \
		ioqos-stats="$TMP/$2" ioqos-stats-format="$1" ioqos-poll=100ms || return 1
	for e in a b c d; do
		check "$1: a write to /$e" sh -c "qemu-io -f raw '$(uri $n $e)' -c 'write 0 64k' >/dev/null 2>&1"
	done
	check "$1: /d, made on demand, goes with its client" \
		wait_for 10 grep -q 'ioqos: group /d removed$' "$TMP/$n.log"
	printf '/a\n' >"$TMP/$n.new" && mv "$TMP/$n.new" "$TMP/$n.conf"
	check "$1: a reload drops /b and /c" \
		wait_for 10 grep -q 'ioqos: group /c removed: the config no longer names it' "$TMP/$n.log"
	check "$1: nbdkit stops" stop $n
}

removals prometheus r.prom
check "prometheus after removals: parsed, each sample once, only / and /a" $PY - "$TMP/r.prom" <<'PYEOF'
import sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
seen, groups = set(), set()
for f in text_string_to_metric_families(text):
    for s in f.samples:
        key = (s.name, tuple(sorted(s.labels.items())))
        assert key not in seen, "twice: %s%s" % key
        seen.add(key)
        if "group" in s.labels:
            groups.add(s.labels["group"])
assert groups == {"/", "/a"}, sorted(groups)
for line in text.splitlines():
    assert 'group=""' not in line, line
PYEOF

removals json r.json
check "json after removals: only / and /a" $PY - "$TMP/r.json" <<'PYEOF'
import json, sys
st = json.load(open(sys.argv[1]))
paths = [x["path"] for x in st["groups"]]
assert paths == ["/", "/a"], paths
PYEOF

removals text r.stats
check "text after removals: only / and /a" \
	test "$(grep -v '^#' "$TMP/r.stats" | awk '{ printf "%s,", $1 }')" = "/,/a,"
check "text after removals: no line without a group" sh -c "! grep -q '^ ' '$TMP/r.stats'"
finish
