#!/bin/sh
# What a job writes, beside fio 3.33 itself on the same job files: the
# share of duplicate 4 KiB blocks with dedupe_percentage=50 (repeat mode:
# within four standard deviations of 50%, for ioqos and for fio), the
# gzip ratio of buffer_compress_percentage=50 (both near a half, within
# 0.02 of fio's), fio's dedupe-global.fio (two files that dedupe against
# each other: their union has more duplicates than each alone, as fio's);
# the defaults (random, scrambled: no two blocks alike) and zero_buffers.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
command -v fio >/dev/null || { echo "fio is needed"; exit 77; }
cd "$TMP" || exit 1
mkdir i f

# JOB: run it with ioqos in i/ and with fio in f/
both() {
	printf "$1" >job.fio
	(cd i && rm -f ./* && "$IOQOS" run ../job.fio >/dev/null 2>../err) ||
		{ bad "$2: ioqos run"; cat err; return 1; }
	(cd f && rm -f ./* && fio ../job.fio >/dev/null 2>../err) ||
		{ bad "$2: fio run"; cat err; return 1; }
}

cat >stat.py <<'PY'
import collections, math, sys, zlib
def blocks(path):
    d = open(path, "rb").read()
    return [d[i:i + 4096] for i in range(0, len(d), 4096)]
def dup(bl):
    return 1 - len(collections.Counter(bl)) / len(bl)
def gz(bl):
    raw = b"".join(bl)
    return len(zlib.compress(raw, 6)) / len(raw)
what = sys.argv[1]
i = {n: blocks("i/" + n) for n in sys.argv[2:]}
f = {n: blocks("f/" + n) for n in sys.argv[2:]}
one = sys.argv[2]
if what == "repeat":
    n = len(i[one])
    sd = math.sqrt(0.25 / n)
    print("dup ioqos %.3f fio %.3f" % (dup(i[one]), dup(f[one])))
    assert abs(dup(i[one]) - 0.5) < 4 * sd and abs(dup(f[one]) - 0.5) < 4 * sd
elif what == "compress":
    print("gzip ioqos %.3f fio %.3f" % (gz(i[one]), gz(f[one])))
    assert abs(gz(i[one]) - gz(f[one])) < 0.02 and 0.45 < gz(i[one]) < 0.55
    assert dup(i[one]) == 0 and dup(f[one]) == 0
elif what == "global":
    a, b = sys.argv[2:4]
    for who, d in (("ioqos", i), ("fio", f)):
        s, u = max(dup(d[a]), dup(d[b])), dup(d[a] + d[b])
        print("%s: alone %.3f %.3f, together %.3f" % (who, dup(d[a]), dup(d[b]), u))
        assert u > s + 0.1, (who, s, u)
    assert abs(dup(i[a] + i[b]) - dup(f[a] + f[b])) < 0.05
elif what == "unique":
    assert dup(i[one]) == 0 and dup(f[one]) == 0, (dup(i[one]), dup(f[one]))
elif what == "zero":
    assert set(i[one]) == {bytes(4096)} and set(f[one]) == {bytes(4096)}
PY

if both '[w]\nfilename=d\nsize=8m\nbs=4k\nrw=write\ndedupe_percentage=50\n' repeat; then
	python3 stat.py repeat d >out 2>&1 && ok "dedupe_percentage=50: $(cat out)" ||
		{ bad "dedupe_percentage=50"; cat out; }
fi
if both '[w]\nfilename=d\nsize=8m\nbs=4k\nrw=write\nbuffer_compress_percentage=50\n' compress; then
	python3 stat.py compress d >out 2>&1 && ok "buffer_compress_percentage=50: $(cat out)" ||
		{ bad "buffer_compress_percentage=50"; cat out; }
fi
if both '[global]\nioengine=libaio\niodepth=16\nsize=8m\nblocksize=4k\nrw=write\ndedupe_mode=working_set\ndedupe_global=1\ndedupe_percentage=50\nbuffer_compress_percentage=50\ndedupe_working_set_percentage=50\n[a]\n[b]\n' global; then
	python3 stat.py global a.0.0 b.0.0 >out 2>&1 && ok "dedupe-global: $(tr '\n' ' ' <out)" ||
		{ bad "dedupe-global"; cat out; }
fi
if both '[w]\nfilename=d\nsize=4m\nbs=4k\nrw=write\n' unique; then
	python3 stat.py unique d >out 2>&1 && ok "default buffers: no two blocks alike" ||
		{ bad "default buffers"; cat out; }
fi
if both '[w]\nfilename=d\nsize=1m\nbs=4k\nrw=write\nzero_buffers\n' zero; then
	python3 stat.py zero d >out 2>&1 && ok "zero_buffers" || { bad "zero_buffers"; cat out; }
fi
printf '[a]\nfilename=x\nsize=1m\ndedupe_percentage=60\ndedupe_mode=working_set\ndedupe_working_set_percentage=50\n' >r.fio
expect_fail "working set too large" "dedupe_percentage=60 cannot be reached" "$IOQOS" check r.fio
finish
