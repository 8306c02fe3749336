#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layers of the tree, checked.

Each folder has one job and may use only the folders named for it in
LAYERS below (the README's Layout section is the same map in words).  Two
things are checked:

  includes  every `#include "..."` line of every .c and .h file is
            resolved as the compiler resolves it (the including file's
            folder first, then the folder's -I paths); a header from a
            folder the file may not use is an error naming both files, and
            so is a circle of headers within one folder (a.h includes b.h,
            which includes a.h), and a header that resolves nowhere;

  calls     where the objects are built (build/lib, build/cluster,
            build/tools/ioqos), which file calls which: a call into a
            folder the caller may not use is an error, and so is a circle
            of calls between files of one folder (a.c calls b.c, which
            calls a.c), named file by file with the functions that close
            it, in the folders of CIRCLE_FREE (elsewhere it is listed as a
            note).  A folder whose objects are not built says so ("skip",
            which the test runner counts) and is not counted as checked.

Exit 0 when nothing is wrong, 1 otherwise.  `--list` prints, per folder,
its files by size: the largest files, as the layers' shape shows them.
"""
import collections
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# folder: (what it may use besides itself, its -I paths besides itself).
# A folder uses a header of another folder only through those paths.
TOOL_I = ("include", "cluster", "tools/ioqos")
BELOW_RUN = ("tools/ioqos/sim", "tools/ioqos/job", "tools/ioqos/lib", "include",
             "cluster")
LAYERS = {
    "include":              ((), ()),
    "src":                  (("include",), ("include",)),
    "src/parse":            (("src", "include"), ("include", "src")),
    "cluster":              (("include", "build/cluster"),
                             ("include", "build/cluster")),
    "nbdkit":               (("include", "cluster"), ("include", "cluster")),
    # the command, lowest first; main.c on top uses every one of them
    "tools/ioqos/lib":      ((), TOOL_I),
    "tools/ioqos/job":      (("tools/ioqos/lib", "include"), TOOL_I),
    "tools/ioqos/sim":      (("tools/ioqos/job", "tools/ioqos/lib", "include"), TOOL_I),
    # the loop: it reaches the features and the engines through their
    # tables of hooks (run/feat.h, struct engine_ops), given by main.c
    "tools/ioqos/run":      (BELOW_RUN, TOOL_I),
    "tools/ioqos/feat":     (("tools/ioqos/run",) + BELOW_RUN, TOOL_I),
    # an engine's thread takes its job's priority and CPUs (feat/)
    "tools/ioqos/engines":  (("tools/ioqos/feat", "tools/ioqos/run") + BELOW_RUN, TOOL_I),
    "tools/ioqos/report":   (("tools/ioqos/feat", "tools/ioqos/run") + BELOW_RUN, TOOL_I),
    "tools/ioqos":          (("tools/ioqos/report", "tools/ioqos/engines",
                              "tools/ioqos/feat", "tools/ioqos/run") + BELOW_RUN, TOOL_I),
    "examples":             (("include",), ("include",)),
    "bench":                (("include", "src"), ("include", "src")),
}

# folders where a circle of calls between files is an error; elsewhere a
# circle is listed, not failed (run/: the loop's files call round as an
# event loop does, a completion refilling its stream, a sync's completing
# the completions it held).  An include or a call across folders the wrong
# way fails everywhere
CIRCLE_FREE = {"src", "src/parse", "cluster", "nbdkit", "tools/ioqos/lib",
               "tools/ioqos/job", "tools/ioqos/feat", "tools/ioqos/engines",
               "tools/ioqos/report"}

# generated while building: resolved by name, nowhere to read
GENERATED = {"lease_lua.h"}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# the library's public functions (include/ioqos.h): ioqos_ and a letter;
# its internal ones are ioqos__
PUBLIC_RE = re.compile(r"^ioqos_[a-z]")

# where a folder's objects are built, and the prefix of its sources there
OBJECTS = [
    ("build/lib", "src"),
    ("build/cluster", "cluster"),
    ("build/nbdkit", "nbdkit"),
    ("build/tools/ioqos", "tools/ioqos"),
]


def rel(p):
    return os.path.relpath(p, ROOT)


def folder_of(path):
    """the layer a file belongs to: the deepest folder of LAYERS holding it"""
    d = os.path.dirname(path)
    while d:
        if d in LAYERS:
            return d
        d = os.path.dirname(d)
    return None


def sources(folder):
    """the .c and .h files of @folder and of its subfolders that are no
    layer of their own"""
    out = []
    base = os.path.join(ROOT, folder)
    for dirpath, dirnames, files in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames
                             if rel(os.path.join(dirpath, d)) not in LAYERS)
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                out.append(rel(os.path.join(dirpath, f)))
    return out


def resolve(path, name):
    """the file that `#include "name"` in @path means, or None"""
    cand = [os.path.join(os.path.dirname(path), name)]
    for inc in LAYERS[folder_of(path)][1]:
        cand.append(os.path.join(inc, name))
    for c in cand:
        c = os.path.normpath(c)
        if os.path.isfile(os.path.join(ROOT, c)):
            return c
    if os.path.basename(name) in GENERATED:
        return "build/cluster/" + os.path.basename(name)
    return None


def may_use(src_folder, dst_folder):
    return dst_folder == src_folder or dst_folder in LAYERS[src_folder][0]


def circles(graph):
    """the strongly connected components of more than one node"""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(100000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check_includes(errors):
    nfiles = 0
    for folder in LAYERS:
        graph = collections.defaultdict(set)
        for path in sources(folder):
            nfiles += 1
            with open(os.path.join(ROOT, path), errors="replace") as f:
                text = f.read()
            for name in INCLUDE_RE.findall(text):
                got = resolve(path, name)
                if got is None:
                    errors.append(f"{path}: includes \"{name}\", found nowhere "
                                  f"it may look ({folder}, "
                                  f"{', '.join(LAYERS[folder][1]) or 'nothing else'})")
                    continue
                dst = folder_of(got) or os.path.dirname(got)
                if got.startswith("build/"):
                    dst = "build/cluster"
                if not may_use(folder, dst):
                    errors.append(f"{path} includes {got}: {folder}/ may not use "
                                  f"{dst}/ (it may use: "
                                  f"{', '.join(LAYERS[folder][0]) or 'nothing'})")
                elif dst == folder:
                    graph[path].add(got)
        for comp in circles(graph):
            pairs = [f"{a} includes {b}" for a in comp for b in sorted(graph[a])
                     if b in comp]
            errors.append(f"a circle of includes in {folder}/: " + "; ".join(pairs))
    return nfiles


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True,
                         check=True).stdout
    defs, uses = set(), set()
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "TDBRC":
            defs.add(p[2])
        elif len(p) == 2 and p[0] == "U":
            uses.add(p[1])
    return defs, uses


def check_calls(errors, notes):
    defined, used = {}, {}
    checked = []
    for objdir, srcdir in OBJECTS:
        base = os.path.join(ROOT, objdir)
        found = 0
        for dirpath, dirnames, files in os.walk(base):
            # sanitizer and thread-sanitizer builds of the same sources
            dirnames[:] = [d for d in dirnames if d not in ("san", "tsan", "fuzz")]
            for f in files:
                if not f.endswith(".o"):
                    continue
                src = os.path.join(srcdir, os.path.relpath(
                    os.path.join(dirpath, f[:-2] + ".c"), base))
                src = os.path.normpath(src)
                if not os.path.isfile(os.path.join(ROOT, src)):
                    continue   # a stale object: its source has moved
                d, u = symbols(os.path.join(dirpath, f))
                for s in d:
                    defined[s] = src
                used[src] = u
                found += 1
        if found:
            checked.append(f"{srcdir}/ ({found} objects)")
        else:
            notes.append(f"skip calls of {srcdir}/: no objects in {objdir}/ (build it first)")
    graph = collections.defaultdict(set)
    why = collections.defaultdict(set)
    for src, us in used.items():
        for s in us:
            dst = defined.get(s)
            if dst is None or dst == src:
                continue
            fs, fd = folder_of(src), folder_of(dst)
            if (fd in ("src", "src/parse") and fs not in ("src", "src/parse")
                    and PUBLIC_RE.match(s)):
                fd = "include"   # the library's API: its contract is include/
            if not may_use(fs, fd):
                errors.append(f"{src} calls {s} of {dst}: {fs}/ may not use {fd}/")
            graph[src].add(dst)
            why[(src, dst)].add(s)
    for comp in circles(graph):
        pairs = []
        for a in comp:
            for b in sorted(graph[a]):
                if b in comp:
                    syms = sorted(why[(a, b)])
                    more = f" and {len(syms) - 3} more" if len(syms) > 3 else ""
                    pairs.append(f"{a} -> {b} ({', '.join(syms[:3])}{more})")
        line = f"a circle of calls ({len(comp)} files): " + "; ".join(pairs)
        if any(folder_of(f) in CIRCLE_FREE for f in comp):
            errors.append(line)
        else:
            notes.append("note: " + line)
    return checked


def list_sizes():
    for folder in LAYERS:
        files = []
        for path in sources(folder):
            with open(os.path.join(ROOT, path), errors="replace") as f:
                files.append((sum(1 for _ in f), path))
        if not files:
            continue
        files.sort(reverse=True)
        total = sum(n for n, _ in files)
        print(f"{folder}/: {len(files)} files, {total} lines; largest: " +
              ", ".join(f"{os.path.basename(p)} {n}" for n, p in files[:5]))


def main():
    if "--list" in sys.argv[1:]:
        list_sizes()
        return 0
    errors, notes = [], []
    nfiles = check_includes(errors)
    checked = check_calls(errors, notes)
    for n in notes:
        print(n)
    for e in errors:
        print("FAIL " + e)
    print(f"layers: {nfiles} files' includes, calls of "
          f"{', '.join(checked) or 'nothing'}: {len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
