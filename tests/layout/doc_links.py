#!/usr/bin/env python3
"""Relative links in the docs that lead nowhere.

Checks every Markdown file under docs/ and README.md: each relative link or image
(`[text](path)`, `[text](path#anchor)`, `[text](#anchor)`, `[id]: path`) must name a file or
folder that exists, and an `#anchor` into a Markdown file must be one its headings produce,
as GitHub makes them: the heading's text lowercased, every character but letters, digits,
`_`, `-` and spaces dropped, spaces turned into `-`, and `-1`, `-2`, ... appended to a slug
seen before in the file. Links in code blocks and code spans are not links; absolute URLs
(`https:`, `mailto:`) are not checked. Exit 1 lists every broken link with its file and
line.
"""
import pathlib
import re
import sys
import unicodedata
import urllib.parse

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
# [text](target) or ![alt](target), target optionally in <>, optionally followed by a title.
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_ANCHOR = re.compile(r"<a\s+[^>]*(?:name|id)\s*=\s*\"([^\"]+)\"", re.IGNORECASE)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def lines_outside_code(text):
    """(line number, line) of every line not inside a fenced code block."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        yield number, line


def heading_text(raw):
    """What GitHub renders of a heading's Markdown: link and image text, code without its
    backticks, no emphasis markers."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", raw)
    text = CODE_SPAN.sub(lambda m: m.group(2).strip(), text)
    text = re.sub(r"<[^>]+>", "", text)
    return text.replace("*", "")


def slug(text):
    kept = []
    for ch in heading_text(text).strip().lower():
        category = unicodedata.category(ch)
        if ch in " -" or category[0] in "LMN" or category == "Pc":
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        text = path.read_text(errors="replace")
        seen = {}
        found = set(HTML_ANCHOR.findall(text))
        for _, line in lines_outside_code(text):
            m = ATX.match(line)
            if not m:
                continue
            base = slug(m.group(2) or "")
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        cache[path] = found
    return cache[path]


def links(text):
    """(line number, target) of every link outside code."""
    after_blank = True  # a reference definition cannot interrupt a paragraph
    for number, line in lines_outside_code(text):
        plain = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        ref = REF_DEF.match(plain) if after_blank else None
        if ref:
            yield number, ref.group(1)
        for m in INLINE.finditer(plain):
            yield number, m.group(1)
        after_blank = not line.strip() or bool(ref)


def broken(root):
    root = pathlib.Path(root).resolve()
    files = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
    for path in files:
        for number, target in links(path.read_text(errors="replace")):
            target = target.strip("<>")
            if SCHEME.match(target):
                continue
            where, _, anchor = target.partition("#")
            dest = (path.parent / urllib.parse.unquote(where)).resolve() if where else path
            name = f"{path.relative_to(root)}:{number}: {target}"
            if not dest.exists():
                yield f"{name}: no such file {dest.relative_to(root) if dest.is_relative_to(root) else dest}"
            elif anchor and dest.suffix == ".md" and dest.is_file():
                if urllib.parse.unquote(anchor) not in anchors(dest):
                    yield f"{name}: no heading of {dest.relative_to(root)} makes the anchor #{anchor}"


def main():
    found = list(broken(sys.argv[1] if len(sys.argv) > 1 else "."))
    for f in found:
        print(f)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
