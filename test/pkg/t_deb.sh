#!/bin/sh
# The Debian packages: dpkg-buildpackage -us -uc -b on a copy of the source
# tree builds libioqos0, libioqos-dev, ioqos and nbdkit-ioqos-filter;
# lintian finds no error in them; unpacked into a scratch root, the
# installed `ioqos --version` runs, pkg-config finds the library, a program
# builds and runs against it, every man page is there, and nbdkit loads the
# installed filter.  The library's own tests are left to `make check`
# (DEB_BUILD_OPTIONS=nocheck), which runs this.
. "$(dirname "$0")/lib.sh"

for tool in dpkg-buildpackage dh dpkg-checkbuilddeps pkg-config man nbdkit nbdinfo; do
	command -v "$tool" >/dev/null 2>&1 ||
		skip "$tool is not installed (as root: sh scripts/deps.sh deb)"
done
dpkg-checkbuilddeps "$ROOT/debian/control" 2>"$TMP/bdeps" ||
	skip "$(cat "$TMP/bdeps") (as root: sh scripts/deps.sh deb)"
api_want

version=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
arch=$(dpkg --print-architecture)
nbdkit_version=$(nbdkit --version | sed -n 's/^nbdkit //p')

# dpkg-buildpackage writes the packages beside the source tree and its
# state into debian/: build a copy, in the scratch directory
src=$TMP/src/ioqos-${version%-*}
mkdir -p "$src"
(cd "$ROOT" && tar --exclude=./build --exclude=./.git -cf - .) | tar -C "$src" -xf -
echo "== dpkg-buildpackage -us -uc -b (version $version)"
start=$(date +%s)
(cd "$src" && DEB_BUILD_OPTIONS="nocheck parallel=2" \
	dpkg-buildpackage -us -uc -b) >"$TMP/build.log" 2>&1
rc=$?
echo "     $(( $(date +%s) - start )) s"
if [ $rc != 0 ]; then
	bad "dpkg-buildpackage exits $rc:"
	tail -n 30 "$TMP/build.log"
	finish
fi
ok "dpkg-buildpackage -us -uc -b"
grep -q 'dpkg-gensymbols: warning' "$TMP/build.log" &&
	bad "dpkg-gensymbols: the library's symbols differ from debian/libioqos0.symbols (list each new function there with the version that first has it):" &&
	sed -n '/dpkg-gensymbols: warning/,/^ dh_/p' "$TMP/build.log"

for p in libioqos0 libioqos-dev ioqos nbdkit-ioqos-filter; do
	deb=$TMP/src/${p}_${version}_$arch.deb
	if [ -f "$deb" ]; then
		ok "built $(basename "$deb")"
		dpkg -x "$deb" "$TMP/root" || bad "dpkg -x $(basename "$deb")"
	else
		bad "no $(basename "$deb")"
	fi
done

if command -v lintian >/dev/null 2>&1; then
	lintian --fail-on error "$TMP/src/ioqos_${version}_$arch.changes" \
		>"$TMP/lintian.out" 2>&1
	rc=$?
	sed 's/^/     /' "$TMP/lintian.out" | grep -v 'running with root privileges'
	check "lintian: no error" [ $rc = 0 ]
else
	echo "no lintian: the packages are not checked by it (sh scripts/deps.sh deb)"
fi

# what the packages say they need
dep() { dpkg-deb -f "$TMP/src/${1}_${version}_$arch.deb" Depends; }
case "$(dep nbdkit-ioqos-filter)" in
*"nbdkit (>= $nbdkit_version), nbdkit (<< $nbdkit_version.~)"*)
	ok "nbdkit-ioqos-filter depends on nbdkit $nbdkit_version exactly" ;;
*)	bad "nbdkit-ioqos-filter: Depends: $(dep nbdkit-ioqos-filter)" ;;
esac
case "$(dep libioqos-dev)" in
*"libioqos0 (= $version)"*) ok "libioqos-dev depends on libioqos0 (= $version)" ;;
*)	bad "libioqos-dev: Depends: $(dep libioqos-dev)" ;;
esac
case "$(dep ioqos)" in
*liburing*libjson-c*|*libjson-c*liburing*) ok "ioqos depends on liburing and json-c" ;;
*)	bad "ioqos: Depends: $(dep ioqos)" ;;
esac
# both link the cluster module (global limits through Redis)
for p in ioqos nbdkit-ioqos-filter; do
	case "$(dep $p)" in
	*libhiredis*) ok "$p depends on hiredis" ;;
	*)	bad "$p: Depends: $(dep $p)" ;;
	esac
done
check "libioqos0 has a symbols file" sh -c \
	'dpkg-deb -I "$1" symbols | grep -q "^libioqos.so.0 libioqos0"' - \
	"$TMP/src/libioqos0_${version}_$arch.deb"

R=$TMP/root
got=$("$R/usr/bin/ioqos" --version 2>&1)
check "installed ioqos --version: $got" sh -c 'echo "$1" | grep -q "ioqos ${2%-*}"' - "$got" "$version"
check_lib "/usr/$LIBSUB" /usr/include "/usr/$LIBSUB/pkgconfig" "$R"
check_manpages "$R/usr/share/man"
filterdir=$(nbdkit --dump-config | sed -n 's/^filterdir=//p')
so=$R$filterdir/nbdkit-ioqos-filter.so
check "the filter is in nbdkit's filterdir ($filterdir)" [ -f "$so" ]
check_filter "$so"
finish
