#!/bin/sh
# iodepth_low= and iodepth_batch_complete_min= (runner_plan.c refill_at):
# a full job waits for completions down to its low mark before it submits
# again, as fio's reap loop; the "IO depths" line (its buckets of 1% or
# more) the same as fio 3.33's on libaio, on the sim (deterministic) and
# on libaio on a scratch file.
. "$(dirname "$0")/lib.sh"
find_fio

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

# iodepth_batch= and iodepth_batch_complete_max= (batch.c): released I/Os
# go to the engine in batches, a reap takes at most the cap; "IO depths",
# "submit" and "complete" as fio 3.33's on libaio on a scratch file
# (buffered: its I/O is done when io_submit() returns, so fio's figures
# are the same run after run), and the same I/O counts.  The last case is
# fio's default, a commit and a reap per I/O
dists() {
	python3 - "$1" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index("{"):])["jobs"][0]
out = ["ios=%d" % (j["read"]["total_ios"] + j["write"]["total_ios"])]
for k in ("iodepth_level", "iodepth_submit", "iodepth_complete"):
    out.append(k[8:] + ":" + ",".join("%s=%.2f" % (b, v) for b, v in j[k].items() if v))
print(" ".join(out))
PY
}
dd if=/dev/zero of="$TMP/b.dat" bs=1M count=16 2>/dev/null
for c in "iodepth_batch=8" "iodepth_batch=8 iodepth_batch_complete_max=8 iodepth_low=4" \
	 "iodepth_batch_submit=0 iodepth_batch_complete_max=32" \
	 "iodepth_batch=6 iodepth_batch_complete_max=5 iodepth_low=20" \
	 "iodepth_batch=4 iodepth_batch_complete_min=3 iodepth_batch_complete_max=6" \
	 "iodepth_batch=1"; do
	printf '[b]\nioengine=libaio\ndirect=0\nfilename=%s/b.dat\nrw=randread\nsize=16m\nbs=4k\niodepth=32\n%s\n' \
		"$TMP" "$(echo "$c" | tr ' ' '\n')" >"$TMP/b.fio"
	"$IOQOS" run --output-format=json "$TMP/b.fio" >"$TMP/qb.json" 2>"$TMP/err" ||
		{ bad "$c: ioqos exit non-zero"; cat "$TMP/err"; continue; }
	q=$(dists "$TMP/qb.json")
	if [ -z "$FIO" ]; then
		ok "$c: $q"
		skip_part "$c: the comparison with fio: no fio here"
		continue
	fi
	"$FIO" --output-format=json "$TMP/b.fio" >"$TMP/fb.json" 2>/dev/null
	f=$(dists "$TMP/fb.json")
	[ "$q" = "$f" ] && ok "$c: $q as fio's" || bad "$c: ioqos '$q', fio '$f'"
done
# on io_uring each batch is one io_uring_submit() (a preloaded wrapper of
# liburing counts the SQEs of each call; the calls of the waits submit
# none): 128 drains to 0, each refill four calls of 8
if cc -shared -fPIC -O1 -o "$TMP/shim.so" "$ROOT/test/cli/helpers/sqe_shim.c" -ldl; then
	printf '[u]\nioengine=io_uring\ndirect=0\nfilename=%s/b.dat\nrw=randread\nsize=16m\nbs=4k\niodepth=32\niodepth_batch=8\niodepth_batch_complete_max=8\niodepth_low=4\n' \
		"$TMP" >"$TMP/u.fio"
	SQE_LOG="$TMP/sqe.log" SQE_CALLS="$TMP/calls.log" LD_PRELOAD="$TMP/shim.so" \
		ASAN_OPTIONS="$ASAN_OPTIONS:verify_asan_link_order=0" \
		"$IOQOS" run "$TMP/u.fio" >/dev/null 2>"$TMP/err" || { bad "io_uring batches: exit non-zero"; cat "$TMP/err"; }
	c=$(grep -v '^0$' "$TMP/calls.log" | sort | uniq -c | tr -s ' ' | tr '\n' ';')
	[ "$c" = " 512 8;" ] && ok "io_uring: 512 io_uring_submit() calls of 8 SQEs" ||
		bad "io_uring: calls by their SQEs (count size): '$c', not ' 512 8;'"
else
	bad "io_uring batches: the SQE wrapper does not build"
fi
# on the sim (deterministic): four commits of 8 fill the job, then it
# reaps 8 at a time down to 0 and refills
printf '[s]\nioengine=sim\nrw=randread\nsize=16m\nbs=4k\niodepth=32\niodepth_batch=8\niodepth_batch_complete_max=8\niodepth_low=4\n' >"$TMP/s.fio"
"$IOQOS" run --output-format=json "$TMP/s.fio" >"$TMP/s.json" 2>"$TMP/err"
q=$(dists "$TMP/s.json")
[ "$q" = "ios=4096 level:8=25.00,16=50.00,32=25.00 submit:8=100.00 complete:8=100.00" ] &&
	ok "sim: $q" || bad "sim: $q"
finish
