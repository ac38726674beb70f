"""Harmony (gpt-oss): frames `<|start|>author to=recipient<|channel|>…<|message|>body<|end|>`.

A frame the assistant addresses to a tool (`to=functions.NAME`, `to=python`) is a call, its
body the arguments (JSON, or code for the python tool); a frame authored by a tool is that
tool's output (FB001 reads `frames`). A frame may start at `<|channel|>` or `<|message|>` when
the `<|start|>` was stripped, and may end with the text (no terminator).
"""

from __future__ import annotations

from auditor.common.patterns import lazy
from auditor.dialects._reading import Frame, TextCall, Token
from auditor.dialects._scan import TextScanner, valid_name

AUTHORS = ("functions.", "browser.", "container.", "python")
"""Harmony authors that are tools: a frame they wrote is a tool's output."""
TOKENS = frozenset(
    (
        "<|start|>",
        "<|end|>",
        "<|message|>",
        "<|channel|>",
        "<|constrain|>",
        "<|call|>",
        "<|return|>",
    )
)
_RECIPIENT = lazy(r"\bto=([^\s<]{1,128})")


def frames(scan: TextScanner, tokens: tuple[Token, ...]) -> tuple[Frame, ...]:
    """The frames in the text, from its unquoted harmony tokens."""
    text = scan.text
    marks = [t for t in tokens if t.text in TOKENS and not t.quoted]
    frames: list[Frame] = []
    frame: _OpenFrame | None = None
    for i, token in enumerate(marks):
        kind = token.text
        after = text[token.span[1] : marks[i + 1].span[0] if i + 1 < len(marks) else len(text)]
        opens = kind == "<|start|>" or (
            kind in ("<|channel|>", "<|message|>") and (frame is None or frame.body is not None)
        )
        if opens:
            if frame is not None:
                frames += frame.close(text, token.span[0], None)
            frame = _OpenFrame(token.span[0])
        if frame is None:
            continue  # a terminator with no frame open
        if kind == "<|message|>":
            frame.body = token.span[1]
        elif kind in ("<|end|>", "<|call|>", "<|return|>"):
            frames += frame.close(text, token.span[1], kind)
            frame = None
        elif frame.body is None:
            frame.header(kind, after)
    if frame is not None:
        frames += frame.close(text, len(text), None)
    return tuple(frames)


def calls(scan: TextScanner, frames: tuple[Frame, ...]) -> list[TextCall]:
    """Frames the assistant addressed to a tool: `to=functions.NAME`."""
    calls = []
    for frame in frames:
        recipient = frame.recipient
        if recipient is None or recipient in ("assistant", "user", "all"):
            continue
        if frame.author not in (None, "assistant"):
            continue
        name = recipient.removeprefix("functions.")
        if not valid_name(name, scan.names):
            continue
        body_end = frame.body_at + len(frame.body)
        value_at = scan.value_start(frame.body_at, body_end)
        if value_at is None:
            arguments, repaired = frame.body.strip(), False  # code for the python tool
        else:
            arguments, repaired, _ = scan.arguments_at(value_at, body_end)
        how = (
            f"the harmony `to={recipient.split('.')[0]}.…` dialect"
            if "." in recipient
            else "the harmony `to=…` dialect"
        )
        calls.append(TextCall(name, arguments, "harmony", how, frame.span, repaired))
    return scan.take(calls)


class _OpenFrame:
    """A harmony frame while its tokens are being read."""

    def __init__(self, start: int) -> None:
        self.start = start
        self.author: str | None = None
        self.channel: str | None = None
        self.recipient: str | None = None
        self.body: int | None = None

    def header(self, kind: str, after: str) -> None:
        word = after.split(None, 1)[0] if after.strip() else None
        if kind == "<|start|>":
            self.author = word
        elif kind == "<|channel|>":
            self.channel = word
        if self.recipient is None:
            found = _RECIPIENT.search(after, 0, 200)
            self.recipient = found.group(1) if found else None

    def close(self, text: str, end: int, terminator: str | None) -> list[Frame]:
        if self.body is None:
            return []  # header tokens without `<|message|>`: not a frame
        body_end = end - len(terminator) if terminator else end
        return [
            Frame(
                self.author,
                self.recipient,
                self.channel,
                text[self.body : body_end],
                terminator,
                (self.start, end),
                self.body,
            )
        ]
