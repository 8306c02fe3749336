#!/bin/sh
# Job files as users write them (test/cli/sweep/), each run by ioqos and
# by fio 3.33 on the null engine or small scratch files: accepted by both
# or refused by both; where the I/O is deterministic ("sweep: counts"),
# the same I/O counts, bytes and short counts per job and direction, the
# same count of syncs, and the same error; fio's JSON keys of a job all in ioqos's.  A file marked
# "sweep: refused OPT..." is one fio runs and ioqos refuses, naming each
# option (what ioqos cannot honour, never ignored); "refused-both": both
# refuse it.  ${BS} and ${DEPTH} are set for 13-include.fio's include.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skipped: python3 is needed"; exit 77; }
find_fio
SWEEP=$ROOT/test/cli/sweep
export BS=8k DEPTH=4

# figs FILE: per job its name and error, and for the jobs of "counts"
# files (their names listed in $TMP/counted) the I/O figures; then the
# JSON keys of its first job
figs() {
	python3 - "$1" "$TMP/counted" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
counted = set(open(sys.argv[2]).read().split())
try:
    j = json.loads(t[t.index("{"):])
except ValueError:
    print("no-json"); sys.exit()
for x in j["jobs"]:
    s = [x["jobname"], "err=%d" % x["error"]]
    if x["jobname"] in counted:
        for d in ("read", "write", "trim"):
            r = x[d]
            if r["total_ios"]:
                s.append("%s:%d/%d/%d" % (d, r["total_ios"], r["io_bytes"], r["short_ios"]))
        if x["sync"]["total_ios"]:
            s.append("sync:%d" % x["sync"]["total_ios"])
    print(" ".join(s))
print("keys " + " ".join(sorted(j["jobs"][0].keys())))
print("read-keys " + " ".join(sorted(j["jobs"][0]["read"].keys())))
PY
}

# keys_in A B: every key of fio's output A is in ioqos's B
keys_in() {
	for k in keys read-keys; do
		for w in $(grep "^$k " "$1" | cut -d' ' -f2-); do
			grep "^$k " "$2" | tr ' ' '\n' | grep -qx "$w" || { echo "$k:$w"; return 1; }
		done
	done
}

# both NAME ARGS...: ioqos and fio on the same job files, each in a
# directory of its own; the same jobs, errors and figures
both() {
	name=$1
	shift
	run_pair "$name" "$@" || return
	grep -v keys "$TMP/f.$name/figs" >"$TMP/f.$name/jobs"
	grep -v keys "$TMP/q.$name/figs" >"$TMP/q.$name/jobs"
	if ! cmp -s "$TMP/f.$name/jobs" "$TMP/q.$name/jobs"; then
		bad "$name: fio and ioqos differ:"; diff "$TMP/f.$name/jobs" "$TMP/q.$name/jobs"
	elif ! k=$(keys_in "$TMP/f.$name/figs" "$TMP/q.$name/figs"); then
		bad "$name: ioqos's JSON lacks fio's $k"
	else
		ok "$name: $(wc -l <"$TMP/q.$name/jobs") jobs as fio's"
		sed 's/^/     /' "$TMP/q.$name/jobs"
	fi
}

# the files run together (every job's figures are its own), the refused
# ones each by ioqos, and by fio's --parse-only
: >"$TMP/counted"
run=
for f in "$SWEEP"/*.fio; do
	mode=$(sed -n 's/^; sweep: \([a-z-]*\).*/\1/p' "$f")
	case $mode in
	counts)
		sed -n 's/^\[\(.*\)\]$/\1/p' "$f" | grep -vx global >>"$TMP/counted"
		run="$run $f" ;;
	accept)
		run="$run $f" ;;
	refused*)
		opts=$(sed -n 's/^; sweep: refused[a-z-]* \(.*\)/\1/p' "$f")
		"$IOQOS" check "$f" >/dev/null 2>"$TMP/err"
		qrc=$?
		miss=
		for o in $opts; do
			grep -qF ": $o: " "$TMP/err" || miss="$miss $o"
		done
		frc=
		[ -n "$FIO" ] && { "$FIO" --parse-only "$f" >/dev/null 2>&1; frc=$?; }
		want=0
		[ "$mode" = refused-both ] && want=1
		if [ "$qrc" != 0 ] && [ -z "$miss" ] &&
		   { [ -z "$frc" ] || [ "$([ "$frc" = 0 ] && echo 0 || echo 1)" = $want ]; }; then
			ok "$(basename "$f"): refused by ioqos naming $opts (fio: ${frc:-none})"
		else
			bad "$(basename "$f"): ioqos $qrc (not naming:${miss:- }), fio ${frc:-none}"
			cat "$TMP/err"
		fi ;;
	*)
		bad "$(basename "$f"): no '; sweep:' mode" ;;
	esac
done
# shellcheck disable=SC2086
both all $run
both section-two --section=two "$SWEEP/14-sections.fio"
both section-one-three --section=one --section=three "$SWEEP/14-sections.fio"
finish
