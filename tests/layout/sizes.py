#!/usr/bin/env python3
"""Files over 700 lines and functions over 80 lines in the code directories.

A function is found by its head at any indent (a name, '(' and a '{' within five lines,
not a control statement) and ends at the '}' back at the head's indent. Heuristic, but
it finds every definition written in the house style; exit 1 lists what is too long.
"""
import re
import subprocess
import sys

MAX_FILE, MAX_FUNC = 700, 80
DIRS = ["grammar", "compiler", "runtime", "results", "session", "cli", "vm"]
HEAD = re.compile(r"^(\s*)([A-Za-z_][\w:<>,\s*&~]*\s+[*&]*[~\w:]+|[\w:~]+)\([^;]*$")
CONTROL = re.compile(r"^\s*(if|for|while|switch|return|else|case|do)\b")


def too_long(path, lines):
    out, i = [], 0
    while i < len(lines):
        m = HEAD.match(lines[i])
        # A line after one ending in ',' continues a list (a constructor's initializers, a
        # call's arguments): never a function's head.
        prev = next((x.rstrip() for x in reversed(lines[:i]) if x.strip()), "")
        if m and not CONTROL.match(lines[i]) and not lines[i].rstrip().endswith(";") and not prev.endswith(","):
            ind = len(m.group(1))
            j = i
            while j < min(i + 6, len(lines)) and not lines[j].rstrip().endswith(("{", ";")):
                j += 1
            if j < len(lines) and lines[j].rstrip().endswith("{"):
                k = j + 1
                while k < len(lines) and not (lines[k].startswith(" " * ind + "}") and
                                              (len(lines[k]) == ind + 1 or lines[k][ind + 1] in " ;/")):
                    k += 1
                if k - i + 1 > MAX_FUNC:
                    out.append(f"{path}:{i + 1}: function of {k - i + 1} lines: {lines[i].strip()[:70]}")
                i = k
        i += 1
    return out


def main(root):
    files = subprocess.run(["git", "ls-files", *DIRS], cwd=root, capture_output=True, text=True,
                           check=True).stdout.split()
    problems = []
    for f in files:
        if not f.endswith((".cpp", ".hpp")):
            continue
        lines = open(f"{root}/{f}", encoding="utf-8", errors="replace").read().split("\n")
        if len(lines) - 1 > MAX_FILE:
            problems.append(f"{f}: {len(lines) - 1} lines (more than {MAX_FILE})")
        problems += too_long(f, lines)
    for p in problems:
        print(p)
    print(f"sizes: {len(problems)} over the limits ({MAX_FILE} lines a file, {MAX_FUNC} a function)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
