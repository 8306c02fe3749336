#!/bin/sh
# fio's flow= on the sim engine, in virtual time: jobs sharing a flow_id
# keep their I/O counts in the ratio of their weights, to the bound the
# rule gives; without flow= the same jobs split the device evenly.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }

# a (flow=2) and b (flow=1) share flow 7; c is alone in flow 8
cat >"$TMP/flow.fio" <<'E'
[global]
ioengine=sim
rw=randread
bs=4k
size=1g
runtime=2s
time_based
iodepth=4
flow_id=7
[a]
flow=2
[b]
flow=1
[c]
flow_id=8
flow=5
E
counts() {
	python3 -c 'import json, sys
print(" ".join(str(j["read"]["total_ios"]) for j in json.load(open(sys.argv[1]))["jobs"]))' "$1"
}
# fio's rule lets a through while c_a <= 2 + 2 c_b and b while 2 c_b <=
# 1 + c_a, so |c_a - 2 c_b| <= 3 for the I/Os let through; the report
# counts completions, which trail by at most the I/Os in flight (4 each,
# b's counting twice): |a - 2b| <= 3 + 4 + 2 * 4
within() {   # within A B: |A - 2B| <= 15
	d=$(($1 - 2 * $2))
	[ "${d#-}" -le 15 ]
}

"$IOQOS" run "$TMP/flow.fio" --output-format=json >"$TMP/r.json" 2>"$TMP/err" || cat "$TMP/err"
set -- $(counts "$TMP/r.json")
a=$1 b=$2 c=$3
if [ "$b" -gt 10000 ] && within "$a" "$b"; then
	ok "flow=2:1: $a and $b I/Os"
else
	bad "flow=2:1: $a and $b I/Os"
fi
# alone in its flow, c is never held back: it runs as a job without flow=
sed -e '/^flow=/d' -e '/^flow_id=/d' "$TMP/flow.fio" >"$TMP/noflow.fio"
"$IOQOS" run "$TMP/noflow.fio" --output-format=json >"$TMP/n.json" 2>"$TMP/err" || cat "$TMP/err"
set -- $(counts "$TMP/n.json")
if ! within "$1" "$2" && [ $(($1 - $2)) -le 100 ] && [ $(($2 - $1)) -le 100 ]; then
	ok "without flow= the two split evenly: $1 and $2"
else
	bad "without flow=: $1 and $2"
fi
[ "$c" -gt 10000 ] && ok "a flow of one job is never held back ($c I/Os)" || bad "flow of one: $c"

# flow_sleep: held back, b waits for its I/Os and sleeps 10 ms of virtual
# time; the ratio holds, and the flow does less than without the sleep
sed 's/^\[b\]$/[b]\nflow_sleep=10000/' "$TMP/flow.fio" >"$TMP/sleep.fio"
"$IOQOS" run "$TMP/sleep.fio" --output-format=json >"$TMP/s.json" 2>"$TMP/err" || cat "$TMP/err"
set -- $(counts "$TMP/s.json")
if within "$1" "$2" && [ $(($1 + $2)) -lt $((a + b)) ] && [ "$2" -gt 100 ]; then
	ok "flow_sleep=10000: $1 and $2 I/Os, fewer than $((a + b))"
else
	bad "flow_sleep: $1 and $2 (without: $a and $b)"
fi

# the same seed gives the same counts
"$IOQOS" run "$TMP/flow.fio" --output-format=json >"$TMP/r2.json" 2>"$TMP/err"
[ "$(counts "$TMP/r2.json")" = "$a $b $c" ] && ok "flow runs repeat" || bad "flow runs differ"

printf '[a]\nflow=1001\n' >"$TMP/bad.fio"
expect_fail "flow weight above fio's 1000" "flow=1001: expected an integer 0..1000" \
	"$IOQOS" check "$TMP/bad.fio"
finish
