#!/usr/bin/env python3
"""Fails when the modules of one crate, or its rooms, import each other in a cycle.

For every crate of the workspace (a folder with Cargo.toml and src/), each .rs file under src/
is one module (`foo/mod.rs` and `foo.rs` are `foo`). A module depends on another when its text
names `crate::a::b…` (a `use` or a path in code) or, inside `a/`, `super::b`. Tests are left out:
a test may reach anywhere (a `#[cfg(test)]` item, and a module file declared `#[cfg(test)] mod x;`
with everything under it). A module's dependency on its own submodules or its parent is not an
edge. Two levels are checked:

- files: the strongly connected components of the module graph;
- rooms: inside every folder (the crate's root, `evaluate/`, `invoke/`, …), each child module
  with everything under it is one room, and a dependency of anything in room A on anything in
  room B is an edge A -> B. The rooms of a folder must form layers: arrows one way.

Each cycle is printed and the exit code is 1.
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


TEST_ITEM = re.compile(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*")
TEST_MOD_FILE = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;")


def strip_tests(text):
    """The text without comments and `#[cfg(test)]` items; and the names of the child modules
    declared `#[cfg(test)] mod x;` (files of tests)."""
    text = re.sub(r"//[^\n]*", "", text)
    test_children = set(TEST_MOD_FILE.findall(text))
    out, pos = [], 0
    for m in TEST_ITEM.finditer(text):
        if m.start() < pos:
            continue
        out.append(text[pos : m.start()])
        # The item ends at its `;` or at the brace closing its first `{`, whichever comes first.
        i = m.end()
        depth = 0
        while i < len(text):
            c = text[i]
            if c == ";" and depth == 0:
                break
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        pos = i + 1
    out.append(text[pos:])
    return "".join(out), test_children


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


def module_graph(crate):
    """The crate's modules (tests left out) and their dependencies."""
    src = os.path.join(crate, "src")
    files = {}
    for dirpath, _, names in os.walk(src):
        for n in names:
            if n.endswith(".rs"):
                p = os.path.join(dirpath, n)
                files[module_path(src, p)] = p
    texts, tests = {}, set()
    for me, p in files.items():
        with open(p, encoding="utf-8") as f:
            texts[me], children = strip_tests(f.read())
        tests |= {me + (c,) for c in children}
    modules = {m for m in files if not any(m[: len(t)] == t for t in tests)}
    return {me: edges_of(modules, me, texts[me]) for me in modules}


def room_graphs(graph):
    """Per folder (a module with children): its child rooms and the edges between them."""
    folders = {m[:-1] for m in graph if m}
    for folder in sorted(folders):
        d = len(folder)
        rooms = {}
        for me, targets in graph.items():
            if len(me) <= d or me[:d] != folder:
                continue
            rooms.setdefault(me[d], set())
            for t in targets:
                if len(t) > d and t[:d] == folder and t[d] != me[d]:
                    rooms[me[d]].add(t[d])
        yield folder, rooms


def main():
    failed = False
    modules = rooms = 0
    for crate in crate_dirs():
        name = os.path.relpath(crate, ROOT)
        graph = module_graph(crate)
        modules += len(graph)
        for comp in sccs(graph):
            if len(comp) > 1:
                failed = True
                names = sorted("::".join(c) or "(root)" for c in comp)
                print(f"cycle in {name}: {' <-> '.join(names)}")
        for folder, g in room_graphs(graph):
            rooms += len(g)
            for comp in sccs(g):
                if len(comp) > 1:
                    failed = True
                    where = "::".join(folder) or "the crate's root"
                    print(f"room cycle in {name}, {where}: {' <-> '.join(sorted(comp))}")
    if failed:
        return 1
    print(f"module cycles: none ({modules} modules, {rooms} rooms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
