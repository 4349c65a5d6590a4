#!/usr/bin/env python3
"""The man page covers the CLI: every command `bpfbench --help` lists and every option and
positional its `bpfbench CMD --help` lists appears in that command's section of bpfbench.1,
its KINDS section holds `bpfbench list --kinds` line for line (both come from the kind tables),
and groff reads the page without a warning.

Usage: test_man.py BPFBENCH_BINARY BPFBENCH_1
"""
import re
import shutil
import subprocess
import sys


def help_text(binary, *args):
    r = subprocess.run([binary, *args, "--help"], capture_output=True, text=True, check=True)
    return r.stdout


def sections(text):
    """{'Options': [lines], 'Subcommands': [lines], ...} of a CLI11 help text."""
    out, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^(\w+):$", line)
        if m:
            current = out.setdefault(m.group(1), [])
        elif current is not None and line.startswith("  ") and line.strip():
            current.append(line)
    return out


def help_names(text):
    """The option names (-d, --duration) and positionals (FILE) a help text lists."""
    s = sections(text)
    names = []
    for line in s.get("Options", []):
        first = line.split()[0]
        if first.startswith("-"):
            names += first.split(",")
    for line in s.get("Positionals", []):
        names.append(line.split()[0])
    return names


def plain(roff):
    return re.sub(r"\\f[BIRP]", "", roff).replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")


def main():
    binary, page = sys.argv[1], sys.argv[2]
    man = open(page, encoding="utf-8").read()
    # Command sections: `.SS "bpfbench check [options] FILE"` up to the next .SS or .SH.
    blocks = {}
    for m in re.finditer(r'^\.SS "bpfbench (\S+)[^"]*"\n(.*?)(?=^\.S[SH] )', man, re.M | re.S):
        blocks[m.group(1)] = plain(m.group(0))
    problems = []
    commands = [line.split()[0] for line in sections(help_text(binary)).get("Subcommands", [])]
    if not commands:
        problems.append("bpfbench --help lists no command")
    for cmd in commands:
        if cmd not in blocks:
            problems.append(f"command '{cmd}' is in --help but has no section in {page}")
            continue
        for name in help_names(help_text(binary, cmd)):
            if name in ("-h", "--help"):
                continue
            if not re.search(r"(^|[\s,])" + re.escape(name) + r"($|[\s,])", blocks[cmd], re.M):
                problems.append(f"'{cmd} {name}' is in `bpfbench {cmd} --help` but not in its man section")
    for extra in sorted(set(blocks) - set(commands)):
        problems.append(f"the man page has a section for '{extra}', which --help does not list")
    kinds = subprocess.run([binary, "list", "--kinds"], capture_output=True, text=True, check=True).stdout
    m = re.search(r"^\.SH KINDS\n.*?^\.nf\n(.*?)^\.fi\n", man, re.M | re.S)
    if not m:
        problems.append(f"{page} has no KINDS section with a .nf block")
    elif plain(m.group(1)).splitlines() != kinds.splitlines():
        problems.append("the man page's KINDS section differs from `bpfbench list --kinds`")
    if shutil.which("groff"):
        r = subprocess.run(["groff", "-man", "-z", "-ww", page], capture_output=True, text=True)
        if r.returncode != 0 or r.stderr.strip():
            problems.append("groff: " + r.stderr.strip())
    for p in problems:
        print("test_man: FAIL:", p, file=sys.stderr)
    if not problems:
        print(f"test_man: ok ({len(commands)} commands)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
