#!/usr/bin/env python3
"""HTML API documentation from the Kotlin layer's KDoc, for the -javadoc.jar.

Dokka comes from Maven Central, which these machines cannot reach, so this reads the sources
itself. It is deliberately small: a declaration is documented when a `/** ... */` block comes
right before it (annotations may sit between); it is public unless it, or a class around it,
is `private` or `internal`. Members are found by brace depth, ignoring braces inside strings,
characters and comments. The output is one page per top-level declaration (classes with their
public members, in source order) and an index; `[Name]` references to documented declarations
become links, `` `code` `` becomes <code>, and `@param`/`@return`/`@throws` become a list.

Usage: kdoc_html.py OUT_DIR SOURCE_DIR...
Prints "kdoc: N pages, M declarations, K public declarations without KDoc" and lists the
undocumented ones (they are reported, not refused).
"""

from __future__ import annotations

import html
import pathlib
import re
import sys
from dataclasses import dataclass, field

DECL = re.compile(
    r"^(?P<mods>(?:(?:public|private|internal|protected|open|abstract|sealed|data|enum|"
    r"override|inline|value|annotation|companion|const|lateinit|suspend|operator|infix|"
    r"tailrec|external|fun)\s+)*)"
    r"(?P<kind>class|interface|object|fun|val|var|typealias)\b\s*(?P<rest>.*)$"
)
NAME = re.compile(r"^(?:<[^>]*>\s*)?(?:[\w.<>?, ]+\.)?(?P<name>`[^`]+`|\w+)")


@dataclass
class Decl:
    kind: str
    name: str
    signature: str
    doc: str
    file: str
    public: bool
    members: list["Decl"] = field(default_factory=list)
    override: bool = False


def strip_code(line: str, state: dict) -> str:
    """The line with strings, chars and comments blanked, so braces inside them do not count.
    `state["block"]` carries an open /* comment across lines."""
    out = []
    i = 0
    while i < len(line):
        if state["block"]:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out)
            state["block"] = False
            i = end + 2
            continue
        c = line[i]
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            state["block"] = True
            i += 2
            continue
        if c in "\"'":
            quote = line[i : i + 3] if line.startswith('"""', i) else c
            end = line.find(quote, i + len(quote))
            while end > 0 and quote != '"""' and line[end - 1] == "\\":
                end = line.find(quote, end + 1)
            if end < 0:
                return "".join(out)
            i = end + len(quote)
            out.append(" ")
            continue
        out.append(c)
        i += 1
    return "".join(out)


def parse(path: pathlib.Path, root: pathlib.Path) -> list[Decl]:
    lines = path.read_text(encoding="utf-8").splitlines()
    top: list[Decl] = []
    stack: list[tuple[int, Decl, bool]] = []  # (depth of its body, decl, public)
    # A class whose header goes on past its first line: its body has not opened yet, and
    # `val`/`var` inside its parentheses are its constructor's properties.
    pending: tuple[Decl, bool] | None = None
    depth = paren = 0
    doc: str | None = None
    state = {"block": False}
    i = 0
    while i < len(lines):
        raw = lines[i]
        stripped = raw.strip()
        if not state["block"] and stripped.startswith("/**"):
            block = [raw]
            while "*/" not in block[-1] and i + 1 < len(lines):
                i += 1
                block.append(lines[i])
            doc = clean_doc("\n".join(block))
            i += 1
            continue
        code = strip_code(raw, state).strip()
        if code.startswith("@") and not code.startswith("@file"):
            i += 1
            continue  # an annotation between a KDoc and its declaration
        m = DECL.match(code) if code else None
        body = stack[-1][0] if stack else 0
        opened = False
        if m:
            mods = m.group("mods").split()
            kind = m.group("kind")
            if kind == "class" and "enum" in mods:
                kind = "enum class"
            n = NAME.match(m.group("rest"))
            name = n.group("name").strip("`") if n else "?"
            if kind == "object" and "companion" in mods and not n:
                name = "Companion"
            signature = code.rstrip("{").rstrip().rstrip("=").rstrip()
            hidden = bool({"private", "internal"} & set(mods))
            if pending is not None and paren > 0 and kind in ("val", "var"):
                owner, owner_public = pending
                owner.members.append(Decl(kind, name, signature, doc or "", owner.file, owner_public and not hidden,
                                          override="override" in mods))
            elif depth == body and paren == 0:
                public = all(p for _, _, p in stack) and not hidden
                d = Decl(kind, name, signature, doc or "", str(path.relative_to(root)), public,
                         override="override" in mods)
                (stack[-1][1].members if stack else top).append(d)
                pending = None
                if kind in ("class", "interface", "object", "enum class"):
                    if "{" in code and code.count("(") == code.count(")"):
                        stack.append((depth + 1, d, public))
                        opened = True
                    else:
                        pending = (d, public)
        if pending is not None and not opened and "{" in code and paren + code.count("(") - code.count(")") == 0:
            d, public = pending
            stack.append((depth + 1, d, public))
            pending = None
        doc = None if code else doc
        depth += code.count("{") - code.count("}")
        paren += code.count("(") - code.count(")")
        while stack and depth < stack[-1][0]:
            stack.pop()
        i += 1
    return top


def clean_doc(block: str) -> str:
    body = block.strip()
    body = body[3:] if body.startswith("/**") else body
    body = body[:-2] if body.endswith("*/") else body
    out = []
    for line in body.splitlines():
        s = line.strip()
        if s.startswith("*"):
            s = s[1:]
            s = s[1:] if s.startswith(" ") else s
        out.append(s.rstrip())
    return "\n".join(out).strip()


def render_doc(doc: str, known: dict[str, str]) -> str:
    if not doc:
        return '<p class="undocumented">No KDoc.</p>'
    text, tags = [], []
    for line in doc.splitlines():
        if line.startswith("@"):
            tags.append(line)
        elif tags:
            tags[-1] += " " + line.strip()
        else:
            text.append(line)

    def inline(s: str) -> str:
        s = html.escape(s, quote=False)
        s = re.sub(r"`([^`]+)`", r"<code>\1</code>", s)

        def link(m: re.Match) -> str:
            target = m.group(1)
            base = target.split(".")[0]
            if base in known:
                return f'<a href="{known[base]}#{html.escape(target)}"><code>{target}</code></a>'
            return f"<code>{target}</code>"

        return re.sub(r"\[([\w.]+)\]", link, s)

    paras = [p for p in "\n".join(text).split("\n\n") if p.strip()]
    out = "".join(f"<p>{inline(p)}</p>" for p in paras)
    if tags:
        items = []
        for t in tags:
            kind, _, rest = t[1:].partition(" ")
            items.append(f"<li><b>{html.escape(kind)}</b> {inline(rest)}</li>")
        out += f'<ul class="tags">{"".join(items)}</ul>'
    return out


STYLE = (
    "body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}"
    "pre{background:#f4f4f4;padding:.5rem;overflow-x:auto}.member{margin-left:1.5rem;"
    "border-left:3px solid #ddd;padding-left:1rem}.undocumented{color:#a00}code{font-size:90%}"
)


def page(title: str, body: str) -> str:
    return (
        f"<!doctype html><html lang=en><meta charset=utf-8><title>{html.escape(title)}</title>"
        f"<style>{STYLE}</style><body>{body}</body></html>\n"
    )


def section(d: Decl, known: dict[str, str], prefix: str = "") -> str:
    anchor = html.escape(prefix + d.name)
    out = (
        f'<section id="{anchor}"><h3>{html.escape(d.kind)} {html.escape(prefix + d.name)}</h3>'
        f"<pre>{html.escape(d.signature)}</pre>{render_doc(d.doc, known)}"
    )
    for m in d.members:
        if m.public:
            out += f'<div class="member">{section(m, known, prefix + d.name + ".")}</div>'
    return out + "</section>"


def walk(decls: list[Decl]):
    for d in decls:
        if d.public:
            yield d
            yield from walk(d.members)


def main() -> int:
    out_dir = pathlib.Path(sys.argv[1])
    sources = [pathlib.Path(p) for p in sys.argv[2:]]
    decls: list[Decl] = []
    for src in sources:
        for path in sorted(src.rglob("*.kt")):
            decls.extend(parse(path, src))
    public_top = [d for d in decls if d.public]
    known = {d.name: f"{d.name}.html" for d in public_top}
    out_dir.mkdir(parents=True, exist_ok=True)
    for d in public_top:
        (out_dir / f"{d.name}.html").write_text(
            page(d.name, f'<p><a href="index.html">Index</a> · <code>{html.escape(d.file)}</code></p>'
                 + section(d, known)),
            encoding="utf-8",
        )
    items = "".join(
        f'<li><a href="{known[d.name]}">{html.escape(d.name)}</a> <small>{html.escape(d.kind)}</small>'
        f" — {html.escape(first_sentence(d.doc))}</li>"
        for d in sorted(public_top, key=lambda d: d.name.lower())
    )
    (out_dir / "index.html").write_text(
        page("Sparsetable Kotlin API", f"<h1>Sparsetable Kotlin API</h1><ul>{items}</ul>"), encoding="utf-8"
    )
    every = list(walk(decls))
    # Overrides carry their parent's documentation.
    missing = [d for d in every if not d.doc and not d.override and d.name != "Companion"]
    print(f"kdoc: {len(public_top)} pages, {len(every)} declarations, "
          f"{len(missing)} public declarations without KDoc")
    for d in missing:
        print(f"  no KDoc: {d.file}: {d.kind} {d.name}")
    return 0


def first_sentence(doc: str) -> str:
    text = " ".join(doc.split("\n\n")[0].split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


if __name__ == "__main__":
    sys.exit(main())
