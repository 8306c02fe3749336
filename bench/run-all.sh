#!/bin/bash
# Every benchmark, one after the other, into one Markdown report on
# stdout (progress on stderr): what docs/BENCHMARKS.md is pasted from.
#   bench/run-all.sh > report.md      (QUICK=1 for a smoke test)
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
rc=0
# overhead.sh runs cli_null.sh after bench_core
for s in "$here/overhead.sh" "$top/tools/ioqos/bench/cli_uring.sh" "$top/tools/ioqos/bench/cli_rate.sh" \
	 "$here/cli_depth.sh" "$here/accuracy.sh" "$here/fairness.sh" "$here/auto_disk.sh" \
	 "$here/scaling.sh" "$here/sim_speed.sh"; do
	echo "== ${s#$top/}" >&2
	bash "$s" || rc=1
done
exit $rc
