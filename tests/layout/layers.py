#!/usr/bin/env python3
"""The arrows between the code folders, and a session library that neither parses options
nor prints.

    util <- grammar <- compiler <- results <- runtime <- session <- cli
      ^-- vm <------------------------------------------------'

A folder may include headers of the folders it points to, never of one above it: cli/ is
the binary's options and printing, session/ what the commands do (tests call it
in-process), runtime/ and vm/ the kernel and the guests, results/ pure data code
(layout.results_without_kernel also keeps libbpf and kernel headers out of it). util/ is
below them all: Result<T> and Error, the checked file openers, escaping, hashing, process
stamps and limited children, which every layer uses and which include nothing above util/.

Inside compiler/, one folder per subject, and the driver above them:

    compiler/pipeline.* -> bpf/ -> bdsl/ <-> family/

bdsl/ is the .bdsl language (source, diagnostics, AST, parse, check, lower, the RunPlan);
family/ the manifests and the parameter model (types, units, constraints, builtins) that
the language and the manifests share: a plan point refers to its manifest and a manifest's
defaults resolve with the language's value resolver, so these two include each other.
bpf/ generates BPF C and compiles it; neither bdsl/ nor family/ includes it. Inline C shows
the split: family/manifest_hooks reads a family's hooks, bdsl/code_blocks checks a bench's
blocks against them, and bpf/code_hooks turns the blocks into template keys. Nothing in compiler/'s
folders includes the driver, compiler/pipeline.hpp.

session/ names no CLI11 header and writes to no terminal stream: no stdout, stderr,
std::cout/cerr, fmt::print or printf (fmt::format builds text the CLI prints). Exit 1
lists every include or line that breaks this.
"""
import pathlib
import re
import sys

ALLOWED = {
    "grammar": {"grammar"},
    "compiler": {"compiler", "grammar"},
    "results": {"results", "compiler", "grammar"},
    "runtime": {"runtime", "results", "compiler", "grammar"},
    "vm": {"vm", "compiler"},
    "session": {"session", "runtime", "results", "vm", "compiler", "grammar"},
    "cli": {"cli", "session", "runtime", "results", "vm", "compiler", "grammar"},
}
EXCEPTIONS = {("compiler", "util/error.hpp")}
# Inside compiler/: what each subject folder may include of compiler/ ("" = the driver).
COMPILER_ALLOWED = {
    "bdsl": {"bdsl", "family"},
    "family": {"family", "bdsl"},
    "bpf": {"bpf", "bdsl", "family"},
    "": {"", "bdsl", "family", "bpf"},
}
COMPILER_EXCEPTIONS = set()
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')
# What prints or parses options, in session/ code (comments removed first).
SESSION_BANNED = re.compile(
    r"\b(stdout|stderr|STDOUT_FILENO|STDERR_FILENO|std::cout|std::cerr|std::clog|fmt::print|printf|fprintf|puts|fputs)\b")


def code_of(line):
    return line.split("//", 1)[0]


def compiler_subject(rel):
    """'bdsl' for compiler/bdsl/x.hpp, '' for compiler/pipeline.hpp."""
    parts = pathlib.PurePosixPath(rel).parts
    return parts[1] if len(parts) > 2 else ""


def problems(root):
    for folder, allowed in ALLOWED.items():
        for path in sorted(pathlib.Path(root, folder).rglob("*")):
            if path.suffix not in (".cpp", ".hpp"):
                continue
            rel = path.relative_to(root)
            for n, line in enumerate(path.read_text(errors="replace").split("\n"), 1):
                m = INCLUDE.match(line)
                if m:
                    target = m.group(1)
                    top = target.split("/", 1)[0]
                    if folder == "session" and top == "CLI":
                        yield f"{rel}:{n}: session/ parses no options: {target}"
                    if top in ALLOWED and top not in allowed:
                        yield f"{rel}:{n}: {folder}/ includes {target} (a layer above it)"
                    if folder == "compiler" and top == "compiler":
                        mine, theirs = compiler_subject(rel.as_posix()), compiler_subject(target)
                        if (theirs not in COMPILER_ALLOWED[mine]
                                and (rel.as_posix(), target) not in COMPILER_EXCEPTIONS):
                            yield f"{rel}:{n}: compiler/{mine or 'pipeline'} includes {target} (against the subjects' arrows)"
                elif folder == "session" and SESSION_BANNED.search(code_of(line)):
                    yield f"{rel}:{n}: session/ prints nothing (the CLI does): {line.strip()}"


def main():
    found = list(problems(sys.argv[1] if len(sys.argv) > 1 else "."))
    for p in found:
        print(p)
    print(f"layers: {len(found)} problem(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
