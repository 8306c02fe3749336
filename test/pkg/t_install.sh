#!/bin/sh
# `make install` into a scratch root (DESTDIR), with the default PREFIX and
# with another one: every file in its place, the .pc file's libdir in
# Debian's multiarch directory, a program built through pkg-config against
# the installed library, the `ioqos` command, the man pages (also from the
# source tree, where the per-function pages are links to ioqos.3), the
# filter in nbdkit's own filter directory and loaded by nbdkit from there;
# then `make uninstall` leaves no file behind.
. "$(dirname "$0")/lib.sh"

command -v pkg-config >/dev/null 2>&1 || skip "no pkg-config (sh scripts/deps.sh pkg)"
command -v man >/dev/null 2>&1 || skip "no man (sh scripts/deps.sh pkg)"
[ -x "$ROOT/build/ioqos" ] || { echo "no build/ioqos: run make first"; exit 1; }
api_want

# the pages as they are in the source tree
for f in "$ROOT"/man/*.1 "$ROOT"/man/*.3; do
	n=$(basename "$f" | sed 's/\.[13]$//')
	check "man -l man/$(basename "$f") renders $n" man_ok "$f" "$n"
done
for f in "$ROOT"/man/*.3; do
	[ "$(basename "$f")" = ioqos.3 ] && continue
	check "man/$(basename "$f") is a link to ioqos.3 (if not: ln -sf ioqos.3 man/$(basename "$f"))" \
		link_ok "$f" "$(basename "$f" .3)"
done
for s in $SYMS; do
	check "man/$s.3 is in the source tree (if not: ln -s ioqos.3 man/$s.3)" [ -e "$ROOT/man/$s.3" ]
done

filterdir=$(nbdkit --dump-config 2>/dev/null | sed -n 's/^filterdir=//p')

for prefix in /usr/local /opt/ioqos; do
	D=$TMP/root$(echo "$prefix" | tr / _)
	if [ "$prefix" = /usr/local ]; then set --; else set -- PREFIX="$prefix"; fi
	echo "== make install $* DESTDIR=..."
	make -s -C "$ROOT" install DESTDIR="$D" "$@" >"$TMP/install.log" 2>&1
	check "make install $* exits 0" [ $? = 0 ] || cat "$TMP/install.log"
	libdir=$prefix/$LIBSUB
	for f in "$libdir/libioqos.so.0.1.0" "$libdir/libioqos.a" \
		"$libdir/pkgconfig/ioqos.pc" "$prefix/bin/ioqos"; do
		check "installed: $f" [ -f "$D$f" ]
	done
	check "libioqos.so.0 -> libioqos.so.0.1.0" \
		[ "$(readlink "$D$libdir/libioqos.so.0")" = libioqos.so.0.1.0 ]
	check "libioqos.so -> libioqos.so.0" \
		[ "$(readlink "$D$libdir/libioqos.so")" = libioqos.so.0 ]
	check "the shared library is not executable" [ ! -x "$D$libdir/libioqos.so.0.1.0" ]
	check_lib "$libdir" "$prefix/include" "$libdir/pkgconfig" "$D"
	got=$("$D$prefix/bin/ioqos" --version 2>&1)
	check "installed ioqos --version: $got" sh -c 'echo "$1" | grep -q "0\.1\.0"' - "$got"
	check_manpages "$D$prefix/share/man"
	if [ -n "$filterdir" ] && [ -f "$ROOT/build/nbdkit-ioqos-filter.so" ]; then
		so=$D$filterdir/nbdkit-ioqos-filter.so
		check "filter in nbdkit's filterdir ($filterdir), whatever the prefix" [ -f "$so" ]
		check_filter "$so"
	else
		echo "no nbdkit or no filter built: the filter is not checked (sh scripts/deps.sh nbdkit)"
	fi

	make -s -C "$ROOT" uninstall DESTDIR="$D" "$@" >"$TMP/uninstall.log" 2>&1
	check "make uninstall $* exits 0" [ $? = 0 ] || cat "$TMP/uninstall.log"
	left=$(find "$D" ! -type d)
	check "make uninstall leaves no file${left:+: $left}" [ -z "$left" ]
done
finish
