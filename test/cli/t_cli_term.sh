#!/bin/sh
# The status line on a real terminal: tmux runs ioqos in a pane of 80
# columns with 20 groups, and the screen must show one line that fits:
# the clock and eta first, the totals, as many groups as fit and "+N" for
# the rest, never wrapped onto a second line.
. "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || { echo "tmux is needed (apt-get install tmux)"; exit 77; }
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
SOCK=$TMP/tmux.sock
trap 'tmux -S "$SOCK" kill-server 2>/dev/null; rm -rf "$TMP"' EXIT INT TERM

{
	printf '[global]\nioengine=null\nsize=64m\nruntime=30\ntime_based\nrw=randread\n'
	for i in $(seq 1 20); do printf '[job%02d]\ncgroup=tenant-%02d\n' "$i" "$i"; done
} >"$TMP/p.fio"
for cols in 80 50; do
	tmux -S "$SOCK" new-session -d -x $cols -y 10 \
		"$IOQOS run $TMP/p.fio >/dev/null; sleep 60"
	# the line shows from two seconds into the run until its end: the
	# screen is read once it shows, however late a loaded machine starts
	# the run (a minute at most), and the run, of 30 s, ended then
	n=0
	while tmux -S "$SOCK" capture-pane -p >"$TMP/screen.$cols" 2>/dev/null &&
	      ! grep -q '^\[elapsed ' "$TMP/screen.$cols" && [ $n -lt 600 ]; do
		sleep 0.1; n=$((n + 1))
	done
	tmux -S "$SOCK" kill-server 2>/dev/null
	if python3 - "$TMP/screen.$cols" $cols <<'PY'
import re, sys
screen = open(sys.argv[1]).read().split("\n")
cols = int(sys.argv[2])
at = [i for i, l in enumerate(screen) if l.startswith("[elapsed ")]
assert len(at) == 1, screen
line = screen[at[0]]
assert len(line) < cols, (len(line), line)
assert not screen[at[0] + 1].strip(), screen      # not wrapped
if cols >= 80:
    # everything in its place: clock, totals, groups shown and counted
    assert re.match(r"\[elapsed \d+\.\ds eta \d+s\] 20 groups r=\S+ w=\S+ \| /tenant-01 ", line), line
    shown = len(re.findall(r"/tenant-\d\d ", line))
    more = re.search(r" \+(\d+)$", line)
    assert shown >= 1 and shown + (int(more.group(1)) if more else 0) == 20, line
else:
    # the clock and the totals first (the count of groups if it fits:
    # that depends on how many digits the rates take), no group
    assert re.match(r"\[elapsed \d+\.\ds eta \d+s\]( 20 groups)? r=\S+/s w=\S+/s$", line), line
PY
	then ok "status line in $cols columns: $(grep '^\[elapsed' "$TMP/screen.$cols")"
	else bad "status line in $cols columns"; cat "$TMP/screen.$cols"
	fi
done
finish
