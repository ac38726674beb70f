"""Text every layer shares: log text made safe to print, text cut to a length, counts in words,
and documentation wrapped to a terminal's width.

Safe to print: no escape sequence or bidi trick from a log reaches a screen. rich strips only a
few control characters: ESC/CSI sequences and C1 controls pass through, and a log that says
`::error::` would issue a GitHub workflow command. Every character that could move the cursor,
recolour the terminal, reorder text or break a line is shown as a visible escape instead.
"""

from __future__ import annotations

import re

import orjson

from auditor.common.patterns import lazy

# C0 controls (tab included: it breaks table cells), DEL, C1 controls, bidi embeddings,
# overrides and isolates, zero-width and invisible marks, line and paragraph separators.
_UNSAFE = lazy(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]"
)


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char == "\n":
        return "\\n"
    if char == "\t":
        return "\\t"
    if char == "\r":
        return "\\r"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe(text: str) -> str:
    """`text` with every unsafe character replaced by a visible escape."""
    return _UNSAFE.sub(_visible, text)


# The same characters less line breaks and tabs, which a page shows as they are, plus lone
# surrogates, which no UTF-8 file can hold.
_UNSAFE_KEEP_LINES = lazy(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f"
    "\ud800-\udfff\ufeff\ufff9-\ufffb]"
)


def safe_lines(text: str) -> str:
    """`text` with every unsafe character but line feeds and tabs replaced by a visible escape."""
    return _UNSAFE_KEEP_LINES.sub(_visible, text)


# What orjson leaves raw in a string: everything unsafe above except the C0 controls (which JSON
# itself escapes). Escaped as \uXXXX, a consumer still decodes the same text, but no terminal,
# `grep`, `less` or line-based reader of the file sees a control, a bidi override or a line break.
_RAW_IN_JSON = lazy(
    "[\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]"
)


def _unicode_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def dumps(value: object, indent: bool = False) -> str:
    """JSON for machines (json, jsonl, sarif, gitlab, baselines): orjson, with the characters
    above escaped as `\\uXXXX` so that the file is plain printable text."""
    text = orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0).decode()
    return _RAW_IN_JSON.sub(_unicode_escape, text)


def cut(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, the last one `…` when anything was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plural(n: int, word: str, words: str | None = None) -> str:
    """`1 file`, `2 files`, `1,204 conversations`."""
    return f"{n:,} {word if n == 1 else words or word + 's'}"


def reflow(text: str, width: int | None = None) -> str:
    """Markdown-ish text whose paragraphs were wrapped by hand, wrapped again at `width` (None:
    each paragraph and list item on one line, for a renderer that wraps, such as rich).

    Headings, fenced blocks and indented lines (examples) are kept as they are; a list item's
    lines are joined, and wrapped under its first.
    """
    import textwrap

    out: list[str] = []
    block: list[str] = []
    lead = ""

    def flush() -> None:
        if block:
            joined = " ".join(line.strip() for line in block)
            if width is None:
                out.append(lead + joined)
            else:
                out.extend(
                    textwrap.wrap(
                        joined,
                        width,
                        initial_indent=lead,
                        subsequent_indent=" " * len(lead),
                        break_on_hyphens=False,
                        break_long_words=False,
                    )
                )
            block.clear()

    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            flush()
            fenced = not fenced
            out.append(line)
        elif not fenced and block and lead and line.startswith("  ") and line[2:3].strip():
            block.append(line)  # a list item's next line
        elif fenced or not line.strip() or line.startswith(("#", "  ", "|")):
            flush()
            out.append(line)
        elif line.startswith(("- ", "* ")):
            flush()
            lead = line[:2]
            block.append(line[2:])
        else:
            if not block:
                lead = ""
            block.append(line)
    flush()
    return "\n".join(out)
