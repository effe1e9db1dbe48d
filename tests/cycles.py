#!/usr/bin/env python3
"""make cycles: no circle of files among the core's objects (issue 28).

Usage: tests/cycles.py [BUILD]   (BUILD defaults to build)

Reads every object file under BUILD/{gen,base,glhost,store,lib,search,eval,
report,cli}/ (lib/blas.o, the drop-in's, included) with nm, and draws the
graph "A uses a global symbol that B defines".  A strongly connected
component of more than one file is a circle: files that call each other's
functions or use each other's data, directly or through a chain.  Prints
one line per circle (its files, then each edge inside it with the symbols
it uses) and exits 1; else one summary line and exits 0.  An object whose
source file is gone (left behind in BUILD by a rename) is skipped.
Needs python3 and nm (binutils) only.
"""
import os
import subprocess
import sys

FOLDERS = ["gen", "base", "glhost", "store", "lib", "search", "eval", "report", "cli"]
# The BLAS names the drop-in (lib/blas.o) defines: a core object that calls
# one (base/cpublas.c cblas_sgemm, base/reference.c cblas_dgemm) means the
# CPU BLAS, and inside libglgemm_blas.so lib/blas.c sends such a call from
# its own object straight there (from_self), never into glgemm: no edge.
DROP_IN = "lib/blas.o"
DROP_IN_NAMES = {"sgemm_", "cblas_sgemm", "dgemm_", "cblas_dgemm"}
UNDEFINED = {"U", "w", "v"}


def objects(build, root):
    found = []
    for folder in FOLDERS:
        top = os.path.join(build, folder)
        for dirpath, _, names in os.walk(top):
            for name in names:
                if not name.endswith(".o"):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, build)
                if os.path.exists(os.path.join(root, rel[:-2] + ".c")):
                    found.append(rel)
    return sorted(found)


def symbols(build, objs):
    """{obj: (defined set, undefined set)} from one nm run."""
    table = {o: (set(), set()) for o in objs}
    out = subprocess.run(["nm", "-P", "-g", "-A"] + objs, cwd=build, check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        head, sep, rest = line.partition(": ")
        fields = rest.split()
        if not sep or len(fields) < 2 or head not in table:
            continue
        name, kind = fields[0], fields[1]
        table[head][1 if kind in UNDEFINED else 0].add(name)
    return table


def circles(graph):
    """Tarjan's strongly connected components of more than one node."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build")
    objs = objects(build, root)
    if not objs:
        print(f"cycles: no object files under {build}/{{{','.join(FOLDERS)}}}/: build first", file=sys.stderr)
        return 2
    table = symbols(build, objs)
    owner = {}
    for o in objs:
        for name in table[o][0]:
            owner.setdefault(name, set()).add(o)
    graph = {o: {} for o in objs}  # user -> {definer: symbols}
    for o in objs:
        for name in table[o][1]:
            for d in owner.get(name, ()):
                if d == DROP_IN and name in DROP_IN_NAMES:
                    continue
                if d != o:
                    graph[o].setdefault(d, set()).add(name)
    found = circles(graph)
    for comp in found:
        inside = set(comp)
        edges = []
        for a in comp:
            for b in sorted(graph[a]):
                if b in inside:
                    edges.append(f"{a} -> {b}: {' '.join(sorted(graph[a][b]))}")
        print(f"circle of {len(comp)} files: {' '.join(comp)} ({'; '.join(edges)})")
    if found:
        return 1
    edges = sum(len(g) for g in graph.values())
    print(f"cycles: {len(objs)} objects, {edges} edges between files, no circle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
