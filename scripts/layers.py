#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layers of a source tree: circles and includes that go up.

    python3 scripts/layers.py [--top N] [ROOT [FOLDER=RANK ...]]

ROOT (default tools/ioqos) is a folder of .c and .h files, perhaps in
subfolders; each FOLDER=RANK gives a subfolder of ROOT its layer (the files
directly in ROOT are "."; a folder given no rank is above every ranked one).
The default map is the one of tools/ioqos: lib=0 job=1 sim=2 run=3 engines=4
feat=4 report=5 .=6.

The graph has an edge from a file to each header it includes with
#include "..." (resolved beside the file, then against ROOT), and one from a
header to each .c file that defines a function or variable the header
declares (extern): a file
that includes a header depends on the files that implement it.  A .c file
and the .h of the same name are one part; a circle is a strongly connected
set of two or more parts, printed as their files.  A file may include
headers of its own folder or of a folder of a lower rank; a circle is an
error wherever it is.  Prints the circles, the includes that go up (both
files named) and the largest files by lines; exits 1 on any circle or
include that goes up.
"""
import os
import re
import sys

DEFAULT_ROOT = "tools/ioqos"
DEFAULT_RANKS = {"lib": 0, "job": 1, "sim": 2, "run": 3, "engines": 4, "feat": 4,
                 "report": 5, ".": 6}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# a declaration in a header: a name followed by "(" outside any body
DECL = re.compile(r'\b([A-Za-z_]\w*)\s*\(')
# a definition in a .c file: at the start of a line, not static, the name
# followed by "(" and the line (or the prototype) ending without ";"
DEFN = re.compile(r'^(?!static\b)(?![ \t#/*}])[^;{}()]*?\b([A-Za-z_]\w*)\s*\(',
                  re.M)


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', lambda m: "\n" * m.group(0).count("\n"),
                  text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def sources(root):
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                out.append(os.path.relpath(os.path.join(d, f), root))
    return out


def folder(path):
    d = os.path.dirname(path)
    return d if d else "."


EXTERN = re.compile(r'^extern\b(.*?);', re.M | re.S)
VARDEF = re.compile(r'^(?!static\b)(?![ \t#/*}])[A-Za-z_][^;(){}=]*?\b([A-Za-z_]\w*)'
                    r'\s*(?:\[[^\]]*\])?\s*=', re.M)


def header_decls(text):
    """names of functions and extern variables a header declares (at
    depth 0)"""
    names = set()
    for m in EXTERN.finditer(text):
        if "(" not in m.group(1):
            for part in m.group(1).split(","):
                v = re.findall(r'([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*$', part)
                if v:
                    names.add(v[0])
    depth = 0
    for line in text.splitlines():
        if depth == 0 and not line.lstrip().startswith("#"):
            for m in DECL.finditer(line):
                if m.group(1) not in ("sizeof", "__attribute__", "typeof"):
                    names.add(m.group(1))
        depth += line.count("{") - line.count("}")
    return names


def c_defs(text):
    """names of the non-static functions and variables a .c file defines"""
    names = set(VARDEF.findall(text))
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = DEFN.match(line)
        if not m:
            continue
        # the definition's body follows: the prototype ends with ")" and
        # the next non-empty line that is not a continuation opens "{"
        rest = line[m.end():]
        j = i
        while ")" not in rest and j + 1 < len(lines):
            j += 1
            rest += lines[j]
        k = j + 1
        tail = rest.rstrip()
        if tail.endswith(";"):
            continue
        if tail.endswith("{") or (k < len(lines) and lines[k].startswith("{")):
            names.add(m.group(1))
    return names


def build(root):
    files = sources(root)
    text = {}
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8",
                  errors="replace") as fh:
            text[f] = strip_comments(fh.read())
    known = set(files)
    inc = {f: [] for f in files}
    for f in files:
        for name in INCLUDE.findall(text[f]):
            cand = os.path.normpath(os.path.join(folder(f), name))
            if cand not in known:
                cand = os.path.normpath(name)
            if cand in known:
                inc[f].append(cand)
    defs = {}
    for f in files:
        if f.endswith(".c"):
            for n in c_defs(text[f]):
                defs.setdefault(n, set()).add(f)
    impl = {f: [] for f in files}
    for f in files:
        if f.endswith(".h"):
            got = set()
            for n in header_decls(text[f]):
                got |= defs.get(n, set())
            impl[f] = sorted(got - {f})
    return files, text, inc, impl


def sccs(nodes, edges):
    """Tarjan's strongly connected components, iteratively"""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(edges[w])))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    out.append(sorted(comp))
    return out


def main(argv):
    top = 10
    args = list(argv)
    if len(args) >= 2 and args[0] == "--top":
        top = int(args[1])
        args = args[2:]
    root = args[0] if args else DEFAULT_ROOT
    ranks = dict(DEFAULT_RANKS) if len(args) <= 1 else {}
    for a in args[1:]:
        k, _, v = a.partition("=")
        ranks[k.strip("/") or "."] = int(v)
    unranked = max(ranks.values(), default=0) + 1

    def rank(f):
        return ranks.get(folder(f).split(os.sep)[0] if folder(f) != "."
                         else ".", unranked)

    files, text, inc, impl = build(root)
    # a .c file and the .h of the same name are one part: the nodes are
    # the parts, a circle is printed as the files of its parts
    def part(f):
        return os.path.splitext(f)[0]
    parts = sorted({part(f) for f in files})
    members = {p: [f for f in files if part(f) == p] for p in parts}
    edges = {p: set() for p in parts}
    for f in files:
        for g in inc[f] + impl[f]:
            if part(g) != part(f):
                edges[part(f)].add(part(g))
    edges = {p: sorted(e) for p, e in edges.items()}
    bad = 0

    circles = [sorted(f for p in c for f in members[p])
               for c in sccs(parts, edges) if len(c) > 1]
    circles.sort(key=len, reverse=True)
    print("%s: %d files, %d .c, %d .h, %d lines" % (
        root, len(files), sum(f.endswith(".c") for f in files),
        sum(f.endswith(".h") for f in files),
        sum(t.count("\n") for t in text.values())))
    for c in circles:
        bad += 1
        print("circle of %d files: %s" % (len(c), " ".join(c)))
    if not circles:
        print("no circles")

    ups = 0
    for f in files:
        for h in inc[f]:
            if rank(h) > rank(f):
                ups += 1
                print("up: %s (%s) includes %s (%s)" % (
                    f, folder(f), h, folder(h)))
    bad += ups
    if not ups:
        print("no include goes up")

    sizes = []
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8",
                  errors="replace") as fh:
            sizes.append((sum(1 for _ in fh), f))
    sizes.sort(reverse=True)
    print("largest files: " + ", ".join("%s %d" % (f, n)
                                        for n, f in sizes[:top]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
