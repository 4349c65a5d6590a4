#!/usr/bin/env python3
"""Catch2 test case names that ctest cannot run.

catch_discover_tests hands each name to CMake as a list element: a ';' splits one test
case into several ctest tests that match nothing, and each fails with "No test cases
matched". Exit 1 lists every such name with its file and line.
"""
import pathlib
import re
import sys

# TEST_CASE( followed by one or more adjacent string literals (a name split over lines).
CASE = re.compile(r'(?:TEST_CASE|SCENARIO)\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)')
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')


def bad_names(root):
    for path in sorted(pathlib.Path(root, "tests").rglob("*.cpp")):
        text = path.read_text(errors="replace")
        for m in CASE.finditer(text):
            name = "".join(LITERAL.findall(m.group(1)))
            if ";" in name:
                line = text.count("\n", 0, m.start()) + 1
                yield f"{path.relative_to(root)}:{line}: ';' in test name: {name}"


def main():
    found = list(bad_names(sys.argv[1] if len(sys.argv) > 1 else "."))
    for f in found:
        print(f)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
