#!/bin/sh
# What `ioqos check` and `ioqos run` read as a job file or a qos config
# (--qos too, which the library reads, or with --redis the cluster
# module), and the simulator's device files (--device) and the speed logs
# they name (speed_log=): regular files only.  A device (/dev/zero,
# /dev/urandom, /dev/null), a FIFO with no writer, a directory, a link to
# a device and a file larger than either reads (a sparse one, refused on
# its size before a byte is read) each end at once with one line naming
# the file; each case runs under a timeout, so a command that reads for
# ever, or waits on a FIFO, fails here instead.
. "$(dirname "$0")/lib.sh"
command -v timeout >/dev/null || { echo "timeout is needed"; exit 77; }

# refused NAME PATTERN FILE: check and run both refuse FILE with PATTERN
refused() {
	expect_fail "check $1" "$2" timeout 20 "$IOQOS" check "$3"
	expect_fail "run $1" "$2" timeout 20 "$IOQOS" run "$3"
}

refused "/dev/zero" "^ioqos: /dev/zero: not a regular file$" /dev/zero
refused "/dev/urandom" "^ioqos: /dev/urandom: not a regular file$" /dev/urandom
refused "/dev/null" "^ioqos: /dev/null: not a regular file$" /dev/null
mkfifo "$TMP/fifo" || { echo "mkfifo failed"; exit 1; }
refused "a FIFO with no writer" "^ioqos: $TMP/fifo: not a regular file$" "$TMP/fifo"
mkdir "$TMP/dir"
refused "a directory" "^ioqos: $TMP/dir: not a regular file$" "$TMP/dir"
ln -s /dev/zero "$TMP/zero"
refused "a link to /dev/zero" "^ioqos: $TMP/zero: not a regular file$" "$TMP/zero"

# a sparse file of a terabyte (a gigabyte where the file system allows no
# more): refused on its size, not read through
truncate -s 1T "$TMP/sparse" 2>/dev/null || truncate -s 1G "$TMP/sparse" ||
	{ echo "truncate failed"; exit 1; }
expect_fail "check a huge sparse file" "^ioqos: $TMP/sparse: larger than 268435456 bytes$" \
	timeout 20 "$IOQOS" check "$TMP/sparse"
expect_fail "run a huge sparse file" "^ioqos: $TMP/sparse: larger than 4194304 bytes$" \
	timeout 20 "$IOQOS" run "$TMP/sparse"
# a job file past a job file's limit but within a config's: check holds it
# to the job file's, as run does
printf '[j]\nioengine=null\nsize=1m\n' >"$TMP/big.fio"
truncate -s 5M "$TMP/big.fio"
expect_fail "check a job file of 5 MiB" "^ioqos: $TMP/big.fio: larger than 4194304 bytes$" \
	timeout 20 "$IOQOS" check "$TMP/big.fio"
# zeros within the limits: a config with a NUL byte, named at its line
truncate -s 1M "$TMP/zeros"
expect_fail "check a file of zeros" "^ioqos: $TMP/zeros:1: NUL byte" \
	timeout 20 "$IOQOS" check "$TMP/zeros"

# include= of a device or a FIFO: the job file's line names it
printf '[j]\nioengine=null\nsize=1m\ninclude /dev/zero\n' >"$TMP/inc.fio"
expect_fail "include /dev/zero" "^ioqos: $TMP/inc.fio:4: include /dev/zero: not a regular file$" \
	timeout 20 "$IOQOS" check "$TMP/inc.fio"
printf '[j]\nioengine=null\nsize=1m\ninclude %s\n' "$TMP/fifo" >"$TMP/incf.fio"
expect_fail "include a FIFO" "^ioqos: $TMP/incf.fio:4: include $TMP/fifo: not a regular file$" \
	timeout 20 "$IOQOS" run "$TMP/incf.fio"

# --qos, read by the library: a FIFO is not waited on, /dev/zero not read
printf '[j]\nioengine=sim\nsize=1m\ncgroup=a\n' >"$TMP/q.fio"
expect_fail "--qos a FIFO" "^ioqos: $TMP/fifo: not a regular file \(a FIFO\)$" \
	timeout 20 "$IOQOS" run "$TMP/q.fio" --qos "$TMP/fifo"
expect_fail "--qos /dev/zero" "^ioqos: /dev/zero: not a regular file \(a device\)$" \
	timeout 20 "$IOQOS" run "$TMP/q.fio" --qos /dev/zero
expect_fail "--qos a directory" "^ioqos: $TMP/dir: not a regular file \(a directory\)$" \
	timeout 20 "$IOQOS" run "$TMP/q.fio" --qos "$TMP/dir"
# with --redis the cluster module reads it (refused before Redis is asked)
expect_fail "--qos a FIFO, --redis" "^ioqos: $TMP/fifo: not a regular file$" \
	timeout 20 "$IOQOS" run "$TMP/q.fio" --engine null --qos "$TMP/fifo" \
	--redis "unix:$TMP/none.sock"
expect_fail "--qos /dev/zero, --redis" "^ioqos: /dev/zero: not a regular file$" \
	timeout 20 "$IOQOS" run "$TMP/q.fio" --engine null --qos /dev/zero \
	--redis "unix:$TMP/none.sock"

# --device and a device file's speed_log=: the same, named at their line
printf 'speed_log=%s\n' "$TMP/fifo" >"$TMP/fifo.dev"
printf 'speed_log=/dev/zero\n' >"$TMP/zero.dev"
for dev in "$TMP/fifo" /dev/zero; do
	expect_fail "--device $dev" "^ioqos: $dev: not a regular file$" \
		timeout 20 "$IOQOS" run "$TMP/q.fio" --device "$dev"
done
expect_fail "speed_log= a FIFO" \
	"^ioqos: $TMP/fifo.dev:1: bad value speed_log=$TMP/fifo: $TMP/fifo: not a regular file$" \
	timeout 20 "$IOQOS" run "$TMP/q.fio" --device "$TMP/fifo.dev"
expect_fail "speed_log=/dev/zero" \
	"^ioqos: $TMP/zero.dev:1: bad value speed_log=/dev/zero: /dev/zero: not a regular file$" \
	timeout 20 "$IOQOS" run "$TMP/q.fio" --device "$TMP/zero.dev"

# several files: each bad one said, the good ones still checked
printf '[j]\nioengine=null\nsize=1m\n' >"$TMP/good.fio"
printf '/ riops=100\n' >"$TMP/good.qos"
timeout 20 "$IOQOS" check /dev/zero "$TMP/good.fio" "$TMP/fifo" "$TMP/good.qos" \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" = 1 ] && [ "$(wc -l <"$TMP/err")" = 2 ] &&
   grep -q "^$TMP/good.fio: job file, 1 job$" "$TMP/out" &&
   grep -q "^$TMP/good.qos: ioqos config, 1 group$" "$TMP/out" &&
   grep -q "^  /: .*riops=100 " "$TMP/out"; then
	ok "bad files among good ones: exit 1, the good ones described"
else
	bad "bad files among good ones: exit $rc"; cat "$TMP/out" "$TMP/err"
fi
finish
