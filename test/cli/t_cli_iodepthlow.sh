#!/bin/sh
# iodepth_low= and iodepth_batch_complete_min= (runner_plan.c refill_at):
# a full job waits for completions down to its low mark before it submits
# again, as fio's reap loop; the "IO depths" line (its buckets of 1% or
# more) the same as fio 3.33's on libaio, on the sim (deterministic) and
# on libaio on a scratch file.  iodepth_batch= and the rest stay refused,
# naming why.
. "$(dirname "$0")/lib.sh"
FIO=$(command -v fio || true)

# depths FILE: the IO depths buckets of 1% or more
depths() {
	sed -n 's/^  IO depths    : //p' "$1" | tr ',' '\n' | tr -d ' ' |
		sed 's/^>=/ge/' | awk -F'[=%]' '$2 >= 1.0 { printf "%s=%s ", $1, $2 }'
}

for c in "iodepth_low=2:2=16.7 4=66.6 8=16.7 " "iodepth_batch_complete_min=4:4=75.0 8=25.0 " \
	 "iodepth_batch_complete=3:4=66.7 8=33.3 " \
	 "iodepth_low=4 iodepth_batch_complete_min=6:2=16.7 4=66.6 8=16.7 " \
	 "iodepth_low=8:8=99.8 "; do
	o=$(echo "${c%%:*}" | tr ' ' '\n') want=${c#*:}
	for eng in sim libaio; do
		printf '[d]\nioengine=%s\ndirect=1\nfilename=%s/d.dat\nrw=randread\nsize=16m\nbs=4k\niodepth=8\n%s\n' \
			"$eng" "$TMP" "$o" >"$TMP/d.fio"
		"$IOQOS" run "$TMP/d.fio" >"$TMP/q" 2>"$TMP/err" || { bad "$c $eng: exit non-zero"; cat "$TMP/err"; }
		q=$(depths "$TMP/q")
		f="(no fio)"
		if [ "$eng" = libaio ] && [ -n "$FIO" ]; then
			"$FIO" "$TMP/d.fio" >"$TMP/f" 2>/dev/null
			f=$(depths "$TMP/f")
		fi
		if [ "$q" = "$want" ] && { [ "$eng" = sim ] || [ -z "$FIO" ] || [ "$f" = "$want" ]; }; then
			ok "$(echo "$o" | tr '\n' ' ')on $eng: IO depths $q(fio's on libaio)"
		else
			bad "$(echo "$o" | tr '\n' ' ')on $eng: IO depths: ioqos '$q', fio '$f', want '$want'"
		fi
	done
done

for o in iodepth_batch=4 iodepth_batch_submit=4 iodepth_batch_complete_max=4; do
	printf '[d]\n%s\n' "$o" >"$TMP/bad.fio"
	expect_fail "$o refused" "bad.fio:2: $o: ioqos " "$IOQOS" check "$TMP/bad.fio"
done
finish
