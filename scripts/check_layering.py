#!/usr/bin/env python3
"""Checks every `#include "..."` under src/ against the layer table.

The table is the block between `<!-- layers:begin -->` and `<!-- layers:end -->` in
docs/architecture.md (its grammar is described there). Exit status: 0 when every include
is allowed, 1 when some include breaks a rule (each printed as file:line, the include and
the rule), 2 when the table itself is malformed or inconsistent. Standard library only.

  scripts/check_layering.py [--src DIR] [--table FILE]
"""

import argparse
import os
import posixpath
import re
import sys

BEGIN_MARK = "<!-- layers:begin -->"
END_MARK = "<!-- layers:end -->"
SOURCE_SUFFIXES = (".h", ".hh", ".hpp", ".cc", ".cpp", ".inc")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


class TableError(Exception):
    pass


class Module:
    def __init__(self, level, name, patterns, allowed, where):
        self.level = level
        self.name = name
        self.patterns = patterns  # "dir/*" or "dir/**"
        self.allowed = allowed  # module names or include-path globs
        self.where = where  # "table line N", for messages


def _pattern_matches(pattern, path):
    """Returns the specificity (length of the directory) if `pattern` covers `path`."""
    if pattern.endswith("/**"):
        d = pattern[:-3]
        return len(d) if path.startswith(d + "/") else None
    if pattern.endswith("/*"):
        d = pattern[:-2]
        return len(d) if posixpath.dirname(path) == d else None
    raise TableError(f"file pattern {pattern!r} must end in /* or /**")


def _logical_lines(block):
    """Yields (first line number, text), joining lines that end in a backslash."""
    pending, first = "", 0
    for n, raw in enumerate(block.splitlines(), 1):
        if not pending:
            first = n
        if raw.rstrip().endswith("\\") and "#" not in raw:
            pending += raw.rstrip()[:-1] + " "
            continue
        yield first, pending + raw
        pending = ""
    if pending:
        yield first, pending


def parse_table(text):
    """Returns (modules by name, exceptions {(file, include): comment})."""
    if BEGIN_MARK not in text or END_MARK not in text:
        raise TableError(f"no {BEGIN_MARK} ... {END_MARK} block")
    head, block = text.split(BEGIN_MARK, 1)
    block = block.split(END_MARK, 1)[0]
    offset = head.count("\n")  # block line 1 is the marker's line
    modules, exceptions = {}, {}
    for n, raw in _logical_lines(block):
        n += offset
        line, _, comment = raw.partition("#")
        words = line.split()
        where = f"line {n}"
        if not words or words[0].startswith("```"):
            continue
        if words[0] == "module":
            if len(words) < 6 or ":" not in words:
                raise TableError(f"{where}: expected 'module LEVEL NAME FILES... : ALLOWED...'")
            colon = words.index(":")
            level, name, patterns = words[1], words[2], words[3:colon]
            allowed = [w for w in words[colon + 1:] if w != "-"]
            if not level.isdigit() or not patterns:
                raise TableError(f"{where}: bad level or no file pattern for {name}")
            if name in modules:
                raise TableError(f"{where}: module {name} declared twice")
            for p in patterns:
                _pattern_matches(p, "")  # validates the form
            modules[name] = Module(int(level), name, patterns, allowed, where)
        elif words[0] == "except":
            if len(words) != 3:
                raise TableError(f"{where}: expected 'except FILE INCLUDE # TODO...'")
            if "TODO" not in comment:
                raise TableError(f"{where}: an exception needs a '# TODO...: reason' comment")
            exceptions[(words[1], words[2])] = comment.strip()
        else:
            raise TableError(f"{where}: unknown entry {words[0]!r}")
    if not modules:
        raise TableError("the table declares no module")
    return modules, exceptions


def module_of(modules, path):
    best, best_len = None, -1
    for m in modules.values():
        for p in m.patterns:
            k = _pattern_matches(p, path)
            if k is not None and k > best_len:
                best, best_len = m, k
    return best


def _allows(modules, module, include_path, target):
    if target is module:
        return True
    for entry in module.allowed:
        if entry in modules:
            if modules[entry] is target:
                return True
        elif _glob_match(entry, include_path):
            return True
    return False


def _glob_match(glob, path):
    regex = "".join("[^/]*" if c == "*" else re.escape(c) for c in glob)
    return re.fullmatch(regex, path) is not None


def check_table(modules):
    """The table's own rules: allowed entries exist and point strictly downwards."""
    problems = []
    for m in modules.values():
        for entry in m.allowed:
            target = modules.get(entry)
            if target is None:
                if "/" not in entry or "." not in posixpath.basename(entry):
                    problems.append(f"{m.where}: {m.name} allows unknown module {entry!r}")
                    continue
                target = module_of(modules, entry.replace("*", "x"))
                if target is None:
                    problems.append(f"{m.where}: {m.name} allows {entry!r}, which no module covers")
                    continue
            if target.level >= m.level:
                problems.append(f"{m.where}: {m.name} (L{m.level}) allows {entry} "
                                f"(L{target.level}): allowed modules must be lower")
    return problems


def resolve(including, include):
    """The include's path under src/: rooted at src/ unless it is plainly relative."""
    if "/" not in include or include.startswith(("./", "../")):
        return posixpath.normpath(posixpath.join(posixpath.dirname(including), include))
    return posixpath.normpath(include)


def source_files(src):
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(SOURCE_SUFFIXES):
                yield posixpath.relpath(os.path.join(root, f), src).replace(os.sep, "/")


def check_tree(src, modules, exceptions):
    """Returns (violations, exceptions that matched)."""
    violations, used = [], set()
    for rel in source_files(src):
        shown = f"src/{rel}"
        module = module_of(modules, rel)
        if module is None:
            violations.append(f"{shown}: no module in the layer table covers this file")
            continue
        with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                match = INCLUDE_RE.match(line)
                if not match:
                    continue
                include = match.group(1)
                path = resolve(rel, include)
                target = module_of(modules, path)
                if target is None:
                    violations.append(f'{shown}:{n}: #include "{include}": resolves to no module '
                                      f"of the layer table (third-party headers use <...>)")
                    continue
                if _allows(modules, module, path, target):
                    continue
                if (rel, include) in exceptions:
                    used.add((rel, include))
                    continue
                allowed = " ".join(module.allowed) or "nothing but itself"
                violations.append(
                    f'{shown}:{n}: #include "{include}": {module.name} (L{module.level}) may not '
                    f"include {target.name} (L{target.level}); {module.name} may include: "
                    f"{allowed}")
    return violations, used


def main(argv):
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", default=os.path.join(repo, "src"))
    ap.add_argument("--table", default=os.path.join(repo, "docs", "architecture.md"))
    args = ap.parse_args(argv)
    try:
        with open(args.table, encoding="utf-8") as f:
            modules, exceptions = parse_table(f.read())
    except (OSError, TableError) as e:
        print(f"check_layering: {args.table}: {e}", file=sys.stderr)
        return 2
    problems = check_table(modules)
    if problems:
        for p in problems:
            print(f"check_layering: {args.table}: {p}", file=sys.stderr)
        return 2
    if not os.path.isdir(args.src):
        print(f"check_layering: {args.src}: not a directory", file=sys.stderr)
        return 2
    violations, used = check_tree(args.src, modules, exceptions)
    for file, include in sorted(set(exceptions) - used):
        print(f"check_layering: warning: stale exception (src/{file} no longer includes "
              f'"{include}" against the table): remove it from {args.table}', file=sys.stderr)
    for v in violations:
        print(v)
    if violations:
        print(f"check_layering: {len(violations)} include(s) break the layer table in "
              f"{args.table}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
