#!/bin/sh
# Seed 001's benchmark as bench/seed001.sh runs it, on the simulator (this
# machine's disk as a device file): examples/seed001.fio runs with the
# weights alone and with examples/seed001-latency.qos, and
# bench/seed001.py finds in each run what the table needs (six phases of
# g1, six start-ups, the frames of 30 s at 25 a second, a bandwidth for
# every group); and every trace of bench/traces/ replays whole, read for
# read, under ioqos run.  No figure is asserted: they are the benchmark's.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
EX=$ROOT/examples
DEV=$EX/sim/vmdisk.dev
cd "$TMP" || exit 1
cp "$ROOT/bench/traces/python3-import.iolog" startup.iolog

for row in weights targets; do
	case $row in
	weights) qos= ;;
	targets) qos="--qos $EX/seed001-latency.qos" ;;
	esac
	rm -f ./*.log
	# shellcheck disable=SC2086
	if ! "$IOQOS" run "$EX/seed001.fio" --engine sim --device "$DEV" --output-format=json $qos >out.json 2>err; then
		bad "$row: ioqos run failed: $(tail -3 err)"
		continue
	fi
	line=$(python3 "$ROOT/bench/seed001.py" row .) || { bad "$row: seed001.py could not read the run"; continue; }
	echo "$line" | python3 -c '
import sys
kv = dict(w.split("=", 1) for w in sys.stdin.read().split())
ok = (len(kv["rand_ms"].split(",")) == 3 and len(kv["seq_ms"].split(",")) == 3
      and len(kv["startup_ms"].split(",")) == 6 and int(kv["frames"]) == 750
      and 0 <= int(kv["dropped"]) <= 750
      and all(float(kv[g + "_mbs"]) > 0 for g in ("g1", "g2", "g3", "g4")))
sys.exit(0 if ok else 1)' && ok "$row: three cycles of g1, six start-ups, 750 frames, every group's bandwidth" ||
		bad "$row: $line"
done

for t in "$ROOT"/bench/traces/*.iolog; do
	n=$(grep -vc '^#' "${t%.iolog}.reads")
	name=$(basename "$t" .iolog)
	if "$IOQOS" run --name=r --read_iolog="$t" --replay_redirect=x --engine sim --device "$DEV" \
		--output-format=json >r.json 2>err &&
		[ "$(python3 -c 'import json; print(json.load(open("r.json"))["jobs"][0]["read"]["total_ios"])')" = "$n" ]; then
		ok "$name replays its $n reads"
	else
		bad "$name: $(tail -2 err)"
	fi
done
finish
