#!/bin/sh
# Steady state (ss=, ss_dur=, ss_ramp=) on the sim engine, in virtual
# time: a job paced at 1000 IOPS is steady by every criterion at the end of
# its first window (3 s); ss_ramp=2 moves that to 5 s (the first sample
# one second after the ramp, at 3 s); an unpaced job's
# criterion is fio's, recomputed from the samples in the report; a limit
# that cannot hold runs the job to its runtime with attained=0; with
# group_reporting the group's samples add up and every job ends together.
# The "steadystate" object has fio 3.33's members (fio's own run beside).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
cd "$TMP" || exit 1

sjob() {   # sjob FILE OPTION...
	out=$1
	shift
	printf '[s]\nioengine=sim\nrw=randread\nbs=4k\nsize=1g\niodepth=8\nruntime=10s\ntime_based\n' >"$out"
	for x in "$@"; do printf '%s\n' "$x" >>"$out"; done
}
check() {   # check NAME JSON PYTHON-ASSERTIONS (on j, the first job, and ss)
	if python3 - "$2" "$3" <<'PY'
import json, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
j = jobs[0]
ss = j["steadystate"]
exec(sys.argv[2])
PY
	then ok "$1"; else bad "$1"; fi
}

sjob a.fio rate_iops=1000 ss=iops_slope:0.1% ss_dur=3
"$IOQOS" run a.fio --device ssd --output-format=json >a.json 2>err || bad "run: $(cat err)"
check "paced, iops_slope: steady at 3 s" a.json '
assert j["job_runtime"] == 3000, j["job_runtime"]
assert (ss["ss"], ss["duration"], ss["attained"], ss["criterion"]) == ("iops_slope:0.100000%", 3, 1, "0.000000%"), ss
assert ss["data"]["iops"] == [1000] * 3 and ss["data"]["bw"] == [4096000] * 3, ss
assert (ss["data"]["iops_mean"], ss["data"]["bw_mean"], ss["slope"]) == (1000, 4096000, 0.0)'

sjob b.fio rate_iops=1000 ss=bw:1000 ss_dur=3s ss_ramp=2s
"$IOQOS" run b.fio --device ssd --output-format=json >b.json 2>err || bad "run: $(cat err)"
check "ss_ramp=2: sampled from 3 s, steady at 5 s" b.json '
assert j["job_runtime"] == 5000 and ss["attained"] == 1 and ss["ss"] == "bw:1000.000000", (j["job_runtime"], ss)'

sjob c.fio ss=iops:5% ss_dur=5 ss_ramp=1
"$IOQOS" run c.fio --device ssd --output-format=json,normal >c.out 2>err || bad "run: $(cat err)"
sed -n '1,/^}$/p' c.out >c.json
check "unpaced, iops: fio's criterion from the samples" c.json '
v = ss["data"]["iops"]
m = sum(v) / len(v)
dev = max(abs(x - m) for x in v)
assert j["job_runtime"] == 6000 and ss["attained"] == 1, (j["job_runtime"], ss)
assert abs(ss["max_deviation"] - dev) < 1e-6, (ss, dev)
assert ss["criterion"] == "%f%%" % (100 * dev / m), ss
assert ss["data"]["iops_mean"] == sum(v) // len(v) and len(v) == 5'
grep -q '^  steadystate  : attained=yes, bw=.*, iops=.*, iops mean dev=[0-9.]*%$' c.out &&
	ok "the text line" || bad "text line: $(grep steadystate c.out)"

sjob d.fio ss=iops:0 ss_dur=4
"$IOQOS" run d.fio --device ssd --output-format=json >d.json 2>err || bad "run: $(cat err)"
check "a limit of 0 never holds: the runtime, attained=0" d.json '
assert j["job_runtime"] == 10000 and ss["attained"] == 0 and len(ss["data"]["iops"]) == 4, ss'

sjob e.fio rate_iops=500 numjobs=2 group_reporting ss=iops:1% ss_dur=2
"$IOQOS" run e.fio --device ssd --output-format=json >e.json 2>err || bad "run: $(cat err)"
check "group_reporting: the group's sum, one end" e.json '
assert len(jobs) == 1 and j["job_runtime"] == 2000, (len(jobs), j["job_runtime"])
assert ss["data"]["iops"] == [1000, 1000] and j["read"]["total_ios"] == 2000, ss'

if command -v fio >/dev/null; then
	printf '[s]\nioengine=null\nrw=read\nbs=4k\nsize=1g\nruntime=20s\ntime_based\nss=iops:100%%\nss_dur=2s\n' >f.fio
	fio f.fio --output-format=json >f.json 2>/dev/null
	sed 's/ioengine=null/ioengine=sim/' f.fio >g.fio
	"$IOQOS" run g.fio --output-format=json >g.json 2>err || bad "run: $(cat err)"
	if python3 - f.json g.json <<'PY'
import json, sys
def load(p):
    # fio may print a notice on stdout before its JSON
    t = open(p).read()
    return json.loads(t[t.index("{"):] if "{" in t else t)
f, g = (load(p)["jobs"][0]["steadystate"] for p in sys.argv[1:3])
def shape(x):
    return {k: shape(v) for k, v in x.items()} if isinstance(x, dict) else type(x).__name__
assert shape(f) == shape(g), (f, g)
assert (f["ss"], f["duration"], f["attained"]) == (g["ss"], g["duration"], g["attained"]), (f, g)
PY
	then ok "the steadystate object as fio's"; else bad "steadystate against fio's"; fi
fi

expect_fail "a steady state of latency" "ss=lat:5%: a steady state of latency is newer than fio 3.33" \
	sh -c 'printf "[x]\nsize=1m\nss=lat:5%%\n" >x.fio && "$0" check x.fio' "$IOQOS"
expect_fail "ss_dur in whole seconds" "ss_dur= is a whole number of seconds" \
	sh -c 'printf "[x]\nsize=1m\nss_dur=1500ms\n" >x.fio && "$0" check x.fio' "$IOQOS"
finish
