#!/bin/bash
# The CLI's side-by-side runs against fio (its targets): null
# engine, io_uring, limits on a real file, and requests held at the device
# by a depth (bench/cli_depth.sh).  The same scripts run from
# `make cli-bench`.
#   bench/cli.sh           (QUICK=1 for a smoke test)
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
top=$(cd "$(dirname "$0")/.." && pwd)
rc=0
for s in "$top"/tools/ioqos/bench/cli_*.sh "$top"/bench/cli_depth.sh; do
	bash "$s" || rc=1
done
exit $rc
