# Shared by the nbdkit benchmarks (POSIX sh; source it): nbd_scratch NAME
# makes $TMP (ioqos-NAME.XXXXXX), removed on exit with the server stopped,
# and enters it; serve CMD... starts a server on $TMP/s.sock in the
# background (SRV, which stop_srv stops) and waits for its socket.
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
serve() {
	rm -f "$TMP/s.sock"
	"$@" >"$TMP/srv.log" 2>&1 &
	SRV=$!
	_i=0
	while [ ! -S "$TMP/s.sock" ]; do
		[ $_i -ge 100 ] && { echo "server did not start:"; cat "$TMP/srv.log"; exit 1; }
		sleep 0.1; _i=$((_i + 1))
	done
}
