# Shared by the nbdkit benchmarks (POSIX sh; source it): nbd_scratch NAME
# makes $TMP (ioqos-NAME.XXXXXX), removed on exit with the server stopped,
# and enters it; the server started in the background sets SRV, which
# stop_srv stops.
SRV=""
stop_srv() {
	[ -n "$SRV" ] || return 0
	kill -TERM "$SRV" 2>/dev/null
	wait "$SRV" 2>/dev/null
	SRV=""
}
nbd_scratch() {
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/ioqos-$1.XXXXXX") || exit 1
	trap 'stop_srv; rm -rf "$TMP"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	cd "$TMP" || exit 1
}
