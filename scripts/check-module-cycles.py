#!/usr/bin/env python3
"""Fails when the modules of one crate import each other in a cycle.

For every crate of the workspace (a folder with Cargo.toml and src/), each .rs file under src/
is one module (`foo/mod.rs` and `foo.rs` are `foo`). A module depends on another when its text
names `crate::a::b…` (a `use` or a path in code) or, inside `a/`, `super::b`. Tests (`#[cfg(test)]`
modules after their marker) are left out: a test may reach anywhere. The strongly connected
components of that graph with more than one module are cycles; each is printed and the exit code
is 1. A module's dependency on its own submodules or its parent is not an edge.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def crate_dirs():
    for base in [ROOT] + [os.path.join(ROOT, "crates", d) for d in sorted(os.listdir(os.path.join(ROOT, "crates")))]:
        if os.path.isfile(os.path.join(base, "Cargo.toml")) and os.path.isdir(os.path.join(base, "src")):
            yield base


def module_path(src, path):
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return tuple(rel)


def strip_tests(text):
    # Drop everything from the first `#[cfg(test)]` on: test modules sit at the end by habit.
    i = text.find("#[cfg(test)]")
    text = text if i < 0 else text[:i]
    return re.sub(r"//[^\n]*", "", text)


def resolve(modules, parts):
    """The longest known module prefix of `parts`."""
    for n in range(len(parts), 0, -1):
        if tuple(parts[:n]) in modules:
            return tuple(parts[:n])
    return None


def edges_of(modules, me, text):
    out = set()
    for m in re.finditer(r"\bcrate((?:::[a-z_][a-z0-9_]*)+)", text):
        target = resolve(modules, m.group(1).strip(":").split("::"))
        if target:
            out.add(target)
    parent = me[:-1]
    for m in re.finditer(r"\bsuper((?:::[a-z_][a-z0-9_]*)+)", text):
        target = resolve(modules, list(parent) + m.group(1).strip(":").split("::"))
        if target:
            out.add(target)
    # Grouped imports: `use crate::{a, b::c}`.
    for m in re.finditer(r"\bcrate::\{([^}]*)\}", text):
        for item in m.group(1).split(","):
            item = item.strip().split(" as ")[0]
            if item:
                target = resolve(modules, item.split("::"))
                if target:
                    out.add(target)
    # Neither a module's parents nor its own children count.
    return {t for t in out if t != me and t != me[: len(t)] and t[: len(me)] != me}


def sccs(graph):
    index, low, stack, on, result, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
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
            result.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return result


def main():
    failed = False
    total = 0
    for crate in crate_dirs():
        src = os.path.join(crate, "src")
        files = {}
        for dirpath, _, names in os.walk(src):
            for n in names:
                if n.endswith(".rs"):
                    p = os.path.join(dirpath, n)
                    files[module_path(src, p)] = p
        modules = set(files)
        graph = {}
        for me, p in files.items():
            with open(p, encoding="utf-8") as f:
                graph[me] = edges_of(modules, me, strip_tests(f.read()))
        total += len(modules)
        for comp in sccs(graph):
            if len(comp) > 1:
                failed = True
                names = sorted("::".join(c) or "(root)" for c in comp)
                print(f"cycle in {os.path.relpath(crate, ROOT) or '.'}: {' <-> '.join(names)}")
    if failed:
        return 1
    print(f"module cycles: none ({total} modules)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
