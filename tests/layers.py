#!/usr/bin/env python3
"""make layers: the layers' direction (docs/architecture.md).

Each folder is a layer; a file may include headers of its own layer and of
the layers below it, never above.  Only glhost/ includes GL, EGL or GLFW
headers or calls gl*/egl*/glfw* functions.  The include graph of the
project's own headers has no cycle.  Prints one line per violation and
exits 1 if there is any; else one summary line.
"""
import os
import re
import sys

LAYERS = ["gen", "base", "glhost", "store", "lib", "search", "eval", "report", "cli"]
RANK = {name: i for i, name in enumerate(LAYERS)}
ROOT_HEADERS = {"glgemm.h": RANK["lib"]}  # the public header is the library's

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
GL_HEADER = re.compile(r'^(GL|GLES\d*|EGL|KHR|GLFW)/')
GL_CALL = re.compile(r'\b(gl[A-Z]\w*|egl[A-Z]\w*|glfw[A-Z]\w*|glew[A-Z]\w*)\s*\(')


def strip_comments_and_strings(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


def rank_of(path):
    top = path.split('/', 1)[0]
    if '/' not in path:
        return ROOT_HEADERS.get(path)
    return RANK.get(top)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    bad = []
    files = []
    for layer in LAYERS:
        for name in sorted(os.listdir(layer)) if os.path.isdir(layer) else []:
            if name.endswith(('.c', '.h')):
                files.append(f"{layer}/{name}")
    graph = {}
    for f in files:
        text = open(f, encoding='utf-8', errors='replace').read()
        own = RANK[f.split('/', 1)[0]]
        graph[f] = []
        for kind, inc in INCLUDE.findall(text):
            if kind == '<':
                if GL_HEADER.match(inc) and not f.startswith('glhost/'):
                    bad.append(f"{f}: includes <{inc}>: GL headers belong in glhost/")
                continue
            r = rank_of(inc)
            if r is None:
                bad.append(f"{f}: includes \"{inc}\", which is in no layer")
                continue
            if r > own:
                bad.append(f"{f}: includes \"{inc}\" ({LAYERS[r]}, above {LAYERS[own]})")
            if inc.endswith('.h') and os.path.exists(inc):
                graph[f].append(inc)
        if not f.startswith('glhost/'):
            code = strip_comments_and_strings(text)
            for m in GL_CALL.finditer(code):
                line = code.count('\n', 0, m.start()) + 1
                bad.append(f"{f}:{line}: calls {m.group(1)}: GL calls belong in glhost/")
    # cycles among the project's headers
    state = {}

    def visit(node, stack):
        state[node] = 1
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                cyc = stack[stack.index(nxt):] + [nxt] if nxt in stack else [node, nxt]
                bad.append("include cycle: " + " -> ".join(cyc))
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for f in files:
        if f not in state:
            visit(f, [f])
    for line in bad:
        print(line)
    if bad:
        print(f"layers: {len(bad)} violation(s) of the order {' < '.join(LAYERS)}", file=sys.stderr)
        return 1
    print(f"layers: {len(files)} files in {len(LAYERS)} layers ({' < '.join(LAYERS)}): "
          "no include upward, GL only in glhost/, no include cycle")
    return 0


if __name__ == '__main__':
    sys.exit(main())
