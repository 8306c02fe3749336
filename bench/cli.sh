#!/bin/bash
# The CLI's side-by-side runs against fio (its targets): null
# engine, io_uring, and limits on a real file.  The same scripts run from
# `make cli-bench`.
#   bench/cli.sh           (QUICK=1 for a smoke test)
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
top=$(cd "$(dirname "$0")/.." && pwd)
rc=0
for s in "$top"/tools/ioqos/bench/cli_*.sh; do
	bash "$s" || rc=1
done
exit $rc
