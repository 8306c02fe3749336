# Shared by the CLI tests: a scratch directory removed on exit, the binary
# under test, and small assertions.  Source it from a test script.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
IOQOS=${IOQOS:-$ROOT/build/ioqos-san}
JOBS=$ROOT/test/cli/jobs
GOLDEN=$ROOT/test/cli/golden
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ioqos-cli.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
# ASan's leak checker needs ptrace, which some containers forbid
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
fails=0

[ -x "$IOQOS" ] || { echo "no $IOQOS: build it first"; exit 1; }

ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

# expect_fail NAME PATTERN CMD...: CMD exits non-zero with one line on
# stderr that matches PATTERN (grep -E), and nothing on stdout
expect_fail() {
	name=$1 pat=$2
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" = 0 ]; then
		bad "$name: exit 0"
	elif [ "$(wc -l <"$TMP/err")" != 1 ]; then
		bad "$name: stderr is not one line:"; cat "$TMP/err"
	elif ! grep -Eq -- "$pat" "$TMP/err"; then
		bad "$name: stderr does not match '$pat':"; cat "$TMP/err"
	elif [ -s "$TMP/out" ]; then
		bad "$name: wrote to stdout"
	else
		ok "$name"
	fi
}

finish() {
	if [ "$fails" != 0 ]; then
		echo "$fails check(s) failed"
		exit 1
	fi
	exit 0
}
