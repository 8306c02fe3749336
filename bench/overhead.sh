#!/bin/bash
# Overhead: what the library costs per request (build/bench/bench_core,
# built by `make bench`: ns per request against a plain FIFO, 1 to 100,000
# groups, flat and 3-level, limits / weights, memory per group), and what
# the CLI's null engine does against fio's (tools/ioqos/bench/cli_null.sh).
#   bench/overhead.sh      (QUICK=1: bench_core --quick and 2 s null runs)
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
bench_init

CORE=${CORE:-$TOP/build/bench/bench_core}
say "### Library overhead: bench_core"
say ""
if [ -x "$CORE" ]; then
	machine
	args=(); [ "$QUICK" = 1 ] && args=(--quick)
	say "command: build/bench/bench_core ${args[*]}"
	say ""
	say '```'
	"$CORE" "${args[@]}" || say "(bench_core exited with status $?)"
	say '```'
	say ""
else
	skip "bench_core: $CORE is not built (make bench)"
fi

bash "$TOP/tools/ioqos/bench/cli_null.sh"
