#!/bin/sh
# Make sure the Debian packages the targets need are installed: install them
# when running as root (all at once: one apt-get update, one install),
# otherwise stop and name them.
#   scripts/deps.sh [base|check|fuzz|cli|nbdkit|cluster|bench|pkg|deb]...
set -eu
[ $# -gt 0 ] || set -- check

# "command-or-file package" pairs per target
need=""
for what in "$@"; do
	case "$what" in
	base|check)  need="$need cc:gcc make:make ar:binutils" ;;
	fuzz)   need="$need clang:clang /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a:libclang-rt-14-dev" ;;
	cli)    need="$need /usr/include/liburing.h:liburing-dev /usr/include/json-c/json.h:libjson-c-dev /usr/include/hiredis/hiredis.h:libhiredis-dev /usr/include/openssl/evp.h:libssl-dev /usr/include/xxhash.h:libxxhash-dev python3:python3 fio:fio /usr/lib/python3/dist-packages/six.py:python3-six tmux:tmux strace:strace" ;;
	nbdkit) need="$need /usr/include/nbdkit-filter.h:nbdkit-plugin-dev /usr/include/hiredis/hiredis.h:libhiredis-dev redis-server:redis-server nbdkit:nbdkit nbdinfo:libnbd-bin nbdcopy:libnbd-bin qemu-img:qemu-utils fio:fio valgrind:valgrind /usr/lib/python3/dist-packages/prometheus_client/parser.py:python3-prometheus-client" ;;
	cluster) need="$need /usr/include/hiredis/hiredis.h:libhiredis-dev redis-server:redis-server" ;;
	bench)  need="$need fio:fio" ;;
	pkg)    need="$need pkg-config:pkgconf man:man-db readelf:binutils" ;;
	deb)    need="$need dpkg-buildpackage:dpkg-dev dh:debhelper pkg-config:pkgconf /usr/include/liburing.h:liburing-dev /usr/include/json-c/json.h:libjson-c-dev /usr/include/hiredis/hiredis.h:libhiredis-dev /usr/include/openssl/evp.h:libssl-dev /usr/include/xxhash.h:libxxhash-dev /usr/include/nbdkit-filter.h:nbdkit-plugin-dev nbdkit:nbdkit nbdinfo:libnbd-bin man:man-db lintian:lintian" ;;
	*) echo "deps.sh: unknown target '$what'" >&2; exit 2 ;;
	esac
done

missing=""
for pair in $need; do
	thing=${pair%%:*}
	pkg=${pair#*:}
	case "$thing" in
	/*) [ -e "$thing" ] && continue ;;
	*)  command -v "$thing" >/dev/null 2>&1 && continue ;;
	esac
	case " $missing " in *" $pkg "*) ;; *) missing="$missing $pkg" ;; esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq -o DPkg::Lock::Timeout=600 >/dev/null
	# only what the targets name: what Debian recommends beside them
	# (valgrind's debug symbols and gdb, qemu's block drivers of network
	# stores, g++) is much of the download and nothing calls it
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 $missing >/dev/null
	exit 0
fi
echo "missing Debian package(s):$missing — run: apt-get install$missing" >&2
exit 1
