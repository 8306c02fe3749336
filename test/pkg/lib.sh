# Shared by the packaging tests: a scratch directory removed on exit, small
# assertions, and the checks that an installed ioqos works, whether it was
# installed by `make install` or from the .debs.  Source it from a test.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ioqos-pkg.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# a make run from a test is a fresh one, not a part of `make check`'s
unset MAKEFLAGS MFLAGS MAKELEVEL
fails=0
# where Debian keeps libraries, as the Makefile finds it
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || ${CC:-cc} -print-multiarch 2>/dev/null)
LIBSUB=lib${MA:+/$MA}
# the functions the shared library exports, each of which has a man page
SYMS=$(sed -n 's/^[[:space:]]*\(ioqos_[a-z0-9_]*\);$/\1/p' "$ROOT/src/libioqos.map")

skip() { echo "skip: $*"; exit 77; }
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
check() { # check NAME CMD...: passes when CMD exits 0
	ck_name=$1; shift
	if "$@"; then ok "$ck_name"; else bad "$ck_name"; fi
}
finish() {
	if [ "$fails" != 0 ]; then
		echo "$fails check(s) failed"
		exit 1
	fi
	exit 0
}

# man_ok FILE NAME: FILE renders without a warning and names NAME
man_ok() {
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 "$1" \
		>"$TMP/man.out" 2>"$TMP/man.err" &&
		[ ! -s "$TMP/man.err" ] && grep -q "$2" "$TMP/man.out"
}

# link_ok FILE NAME: FILE is a link to ioqos.3 (maybe gzipped) beside it,
# and renders naming NAME
link_ok() {
	[ -L "$1" ] || return 1
	case $(readlink "$1") in ioqos.3|ioqos.3.gz) ;; *) return 1 ;; esac
	man_ok "$1" "$2"
}

# check_manpages DIR: ioqos.1, nbdkit-ioqos-filter.1 and ioqos.3 under DIR
# (man1/, man3/, each page maybe gzipped), and every exported function's
# page a link to ioqos.3 that renders it
check_manpages() {
	for p in man1/ioqos.1 man1/nbdkit-ioqos-filter.1 man3/ioqos.3; do
		f=$1/$p
		[ -f "$f" ] || f=$f.gz
		check "man page $p" man_ok "$f" "$(basename "$p" | sed 's/\.[13]$//')"
	done
	for s in $SYMS; do
		f=$1/man3/$s.3
		[ -e "$f" ] || f=$f.gz
		check "man page $s(3) links to ioqos(3) and renders" link_ok "$f" "$s"
	done
}

# check_lib LIBDIR INCLUDEDIR PCDIR SYSROOT: the installed .pc file names
# LIBDIR, and examples/api.c built through pkg-config against the installed
# shared library (not the one in build/) gives the same output as the copy
# the source tree builds
check_lib() {
	libdir=$1 incdir=$2 pcdir=$3 sysroot=$4
	check "libioqos.so.0 has soname libioqos.so.0" \
		sh -c 'readelf -d "$1" | grep -q "SONAME.*\[libioqos\.so\.0\]"' - "$sysroot$libdir/libioqos.so.0"
	check "ioqos.h installed" [ -f "$sysroot$incdir/ioqos.h" ]
	got=$(PKG_CONFIG_PATH=$sysroot$pcdir pkg-config --variable=libdir ioqos)
	check "pkg-config: libdir is $libdir (got $got)" [ "$got" = "$libdir" ]
	flags=$(PKG_CONFIG_PATH=$sysroot$pcdir PKG_CONFIG_SYSROOT_DIR=$sysroot \
		pkg-config --cflags --libs ioqos)
	echo "     pkg-config --cflags --libs ioqos: $flags"
	case " $flags " in
	*" -lioqos "*) ok "pkg-config --libs names -lioqos" ;;
	*) bad "pkg-config --libs does not name -lioqos" ;;
	esac
	# the scratch root's copy and no other: its directory on the command
	# line (pkg-config leaves out the system's own) and at run time
	# shellcheck disable=SC2086
	if ${CC:-cc} -o "$TMP/api" "$ROOT/examples/api.c" -I"$sysroot$incdir" \
		-L"$sysroot$libdir" $flags 2>"$TMP/cc.err"; then
		ok "examples/api.c compiles and links against the installed library"
	else
		bad "examples/api.c does not build against the installed library:"
		cat "$TMP/cc.err"
		return
	fi
	check "api needs libioqos.so.0" \
		sh -c 'readelf -d "$1" | grep -q "NEEDED.*\[libioqos\.so\.0\]"' - "$TMP/api"
	check "api loads the installed libioqos.so.0" sh -c \
		'LD_LIBRARY_PATH=$2 ldd "$1" | grep -q "libioqos\.so\.0 => $2/libioqos\.so\.0"' \
		- "$TMP/api" "$sysroot$libdir"
	LD_LIBRARY_PATH=$sysroot$libdir "$TMP/api" >"$TMP/api.out" 2>&1
	check "api runs on the installed library" [ $? = 0 ]
	check "api gives the output of the source tree's api" \
		cmp -s "$TMP/api.out" "$TMP/api.want"
}

# the source tree's api, built against build/libioqos.a: what the installed
# library must give
api_want() {
	${CC:-cc} -o "$TMP/api-tree" "$ROOT/examples/api.c" -I"$ROOT/include" \
		"$ROOT/build/libioqos.a" && "$TMP/api-tree" >"$TMP/api.want" ||
		{ echo "cannot build examples/api.c in the tree"; exit 1; }
}

# check_filter SO: nbdkit loads the filter at SO and serves through it
check_filter() {
	so=$1
	check "nbdkit --filter=$(basename "$so") null --dump-plugin" \
		sh -c 'timeout 30 nbdkit --filter="$1" null --dump-plugin >/dev/null' - "$so"
	check "nbdkit --filter=... null --version names the ioqos filter" \
		sh -c 'timeout 30 nbdkit --filter="$1" null --version | grep -q "^ioqos "' - "$so"
	printf '/ depth=4\n/e rbps=1M\n/default\n' >"$TMP/qos.conf"
	got=$(timeout 30 nbdkit -U - --filter="$so" memory 1M \
		ioqos-config="$TMP/qos.conf" --run 'nbdinfo --size "$uri"' 2>&1)
	check "an NBD client reads the size through the filter ($got)" [ "$got" = 1048576 ]
}
