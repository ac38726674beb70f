"""Line numbers for JSON pointers inside a document already known to be valid JSON.

orjson gives values, not positions. Findings in a `.json` document name a JSON pointer, and
code scanning and editors want a line, so the lines of the pointers that have findings are
found afterwards, in one left-to-right scan of the document that descends only along those
pointers and stops when all of them are found. Written by hand: no allowed dependency maps
pointers to positions, and this is one pass of one C-level regex over tokens.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Iterator

import orjson

from auditor.common.patterns import lazy

# A string (unrolled loop: linear, no backtracking), a structural character, or a scalar.
# The document is read as text: `raw_decode` takes a str (ASCII-only classes, as in bytes).
_TOKEN = lazy(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.ASCII)
# What a skipped value is read for when the decoder cannot pass it (nesting deeper than the
# recursion limit): strings (which hide brackets), opening and closing brackets.
_NESTED = lazy(r'"[^"\\]*(?:\\.[^"\\]*)*"|([{\[])|([}\]])', re.ASCII)
_DECODER = json.JSONDecoder()
_HERE = object()  # trie key: a pointer ends at this node


def split_pointer(pointer: str) -> list[str]:
    """The reference tokens of a JSON pointer (RFC 6901)."""
    if not pointer:
        return []
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def pointer_lines(document: bytes, pointers: Iterable[str]) -> dict[str, int]:
    """Map each pointer that exists in `document` to the 1-based line where its value starts."""
    trie: dict = {}
    wanted = 0
    for pointer in set(pointers):
        node = trie
        for token in split_pointer(pointer):
            node = node.setdefault(token, {})
        node[_HERE] = pointer
        wanted += 1
    if not wanted:
        return {}
    scan = _PointerScanner(document.decode("utf-8", "replace"), wanted)
    with contextlib.suppress(StopIteration, _Done):
        scan.value(trie, next(scan.tokens))
    return scan.found


class _Done(Exception):
    pass


class _PointerScanner:
    def __init__(self, document: str, wanted: int) -> None:
        self.document = document
        self.tokens: Iterator[re.Match[str]] = _TOKEN.finditer(document)
        self.found: dict[str, int] = {}
        self._wanted = wanted
        self._line = 1
        self._offset = 0

    def _line_of(self, offset: int) -> int:
        # Offsets arrive in increasing order: count only the newlines since the last one.
        self._line += self.document.count("\n", self._offset, offset)
        self._offset = offset
        return self._line

    def value(self, node: dict, token: re.Match[str]) -> None:
        """Consume one value starting at `token`, recording the pointers below `node`."""
        if _HERE in node:
            self.found[node[_HERE]] = self._line_of(token.start())
            if len(self.found) == self._wanted:
                raise _Done
            if len(node) == 1:
                self.skip(token)
                return
        text = token.group()
        if text == "{":
            self._object(node)
        elif text == "[":
            self._array(node)

    def _object(self, node: dict) -> None:
        while True:  # not `for`: `skip` moves `self.tokens` on; at the end, StopIteration
            token = next(self.tokens)
            text = token.group()
            if text == "}":
                return
            if text == ",":
                continue
            key = orjson.loads(text)
            next(self.tokens)  # the colon
            child = node.get(key)
            value = next(self.tokens)
            if child is None:
                self.skip(value)
            else:
                self.value(child, value)

    def _array(self, node: dict) -> None:
        index = 0
        while True:
            token = next(self.tokens)
            text = token.group()
            if text == "]":
                return
            if text == ",":
                index += 1
                continue
            child = node.get(str(index))
            if child is None:
                self.skip(token)
            else:
                self.value(child, token)

    def skip(self, token: re.Match[str]) -> None:
        """Consume the rest of a value whose first token is `token`, then the tokens go on
        after it."""
        if token.group() not in ("{", "["):
            return
        try:
            end = _DECODER.raw_decode(self.document, token.start())[1]
        except (ValueError, RecursionError):  # NaN-free valid JSON nested past the limit
            end = self._end(token)
        self.tokens = _TOKEN.finditer(self.document, end)

    def _end(self, token: re.Match[str]) -> int:
        """Where the value opened by `token` ends, read by its strings and brackets only (a
        scalar, a comma or a colon is passed over inside the regex)."""
        depth = 1
        for t in _NESTED.finditer(self.document, token.end()):
            opened = t.lastindex  # None for a string, 1 for `{` or `[`, 2 for `}` or `]`
            if opened == 1:
                depth += 1
            elif opened == 2:
                depth -= 1
                if depth == 0:
                    return t.end()
        return len(self.document)
