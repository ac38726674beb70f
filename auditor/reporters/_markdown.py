"""The little Markdown the rule docstrings are written in, as HTML for the report's rule dialog.

No Markdown library is a dependency (the HTML report needs Jinja2 alone), and the docstrings
use a handful of constructs, which `tests/reporters/test_markdown.py` holds them to: `## `
headings, paragraphs, `- ` lists whose items go on over lines indented by two spaces, fenced
blocks, `code` spans (of one backtick or more), *emphasis* and **strong**. Those are rendered;
anything else (a table, a link, a tag) is shown as the text it is. Every character of the
source is escaped before a tag is added around it, so that nothing in a docstring, nor a log
quoted in one, can make markup.
"""

from __future__ import annotations

import re
from html import escape

from auditor.common.patterns import lazy

_CODE = lazy(r"(`+)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_STRONG = lazy(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_EM = lazy(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])")
_HEADING = lazy(r"^(#{1,6}) (.+)$")
_ITEM = lazy(r"^[-*] (.*)$")


def html(text: str) -> str:
    """The HTML of `text`: blocks (headings as `h4`, paragraphs, lists, fenced code)."""
    out: list[str] = []
    para: list[str] = []
    items: list[list[str]] = []

    def flush() -> None:
        if para:
            out.append(f"<p>{inline(' '.join(para))}</p>")
            para.clear()
        if items:
            shown = "".join(f"<li>{inline(' '.join(item))}</li>" for item in items)
            out.append(f"<ul>{shown}</ul>")
            items.clear()

    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        fence = re.match(r"^(`{3,})", line)
        if fence:
            flush()
            body = []
            while i < len(lines) and not lines[i].startswith(fence.group(1)):
                body.append(lines[i])
                i += 1
            i += 1  # the closing fence
            out.append(f"<pre><code>{escape(chr(10).join(body))}</code></pre>")
            continue
        heading = _HEADING.match(line)
        item = _ITEM.match(line)
        if not line.strip():
            flush()
        elif heading:
            flush()
            out.append(f"<h4>{inline(heading.group(2))}</h4>")
        elif item:
            if para:
                flush()  # a list may start right under a paragraph
            items.append([item.group(1)])
        elif items:
            items[-1].append(line.strip())  # an item goes on (a line not indented too, as in
            # Markdown: a "lazy" continuation, which ends only at a blank line)
        else:
            para.append(line.strip())
    flush()
    return "\n".join(out)


def inline(text: str) -> str:
    """Code spans, strong and emphasis in a line of text; everything else escaped."""
    out = []
    at = 0
    for match in _CODE.finditer(text):
        out.append(_emphasis(escape(text[at : match.start()])))
        code = match.group(2)
        if code.startswith(" ") and code.endswith(" ") and code.strip():
            code = code[1:-1]  # CommonMark: one space each side is padding
        out.append(f"<code>{escape(code)}</code>")
        at = match.end()
    out.append(_emphasis(escape(text[at:])))
    return "".join(out)


def _emphasis(escaped: str) -> str:
    escaped = _STRONG.sub(r"<b>\1</b>", escaped)
    return _EM.sub(r"<em>\1</em>", escaped)
