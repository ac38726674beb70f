"""Line numbers for JSON pointers inside a document already known to be valid JSON.

orjson gives values, not positions. Findings in a `.json` document name a JSON pointer, and
code scanning and editors want a line, so the lines of the pointers that have findings are
found afterwards, in one left-to-right scan of the document that descends only along those
pointers and stops when all of them are found. Written by hand: no allowed dependency maps
pointers to positions, and this is one pass of one C-level regex over tokens.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator

import orjson

from auditor.patterns import lazy

# A string (unrolled loop: linear, no backtracking), a structural character, or a scalar.
_TOKEN = lazy(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')
# What a skipped value is read for: strings (which hide brackets), opening and closing brackets.
_NESTED = lazy(rb'"[^"\\]*(?:\\.[^"\\]*)*"|([{\[])|([}\]])')
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
    scan = _PointerScanner(document, wanted)
    with contextlib.suppress(StopIteration, _Done):
        scan.value(trie, next(scan.tokens))
    return scan.found


class _Done(Exception):
    pass


class _PointerScanner:
    def __init__(self, document: bytes, wanted: int) -> None:
        self.document = document
        self.tokens: Iterator[re.Match[bytes]] = _TOKEN.finditer(document)
        self.found: dict[str, int] = {}
        self._wanted = wanted
        self._line = 1
        self._offset = 0

    def _line_of(self, offset: int) -> int:
        # Offsets arrive in increasing order: count only the newlines since the last one.
        self._line += self.document.count(b"\n", self._offset, offset)
        self._offset = offset
        return self._line

    def value(self, node: dict, token: re.Match[bytes]) -> None:
        """Consume one value starting at `token`, recording the pointers below `node`."""
        if _HERE in node:
            self.found[node[_HERE]] = self._line_of(token.start())
            if len(self.found) == self._wanted:
                raise _Done
            if len(node) == 1:
                self.skip(token)
                return
        text = token.group()
        if text == b"{":
            self._object(node)
        elif text == b"[":
            self._array(node)

    def _object(self, node: dict) -> None:
        while True:  # not `for`: `skip` moves `self.tokens` on; at the end, StopIteration
            token = next(self.tokens)
            text = token.group()
            if text == b"}":
                return
            if text == b",":
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
            if text == b"]":
                return
            if text == b",":
                index += 1
                continue
            child = node.get(str(index))
            if child is None:
                self.skip(token)
            else:
                self.value(child, token)

    def skip(self, token: re.Match[bytes]) -> None:
        """Consume the rest of a value whose first token is `token`: its strings and brackets
        only are matched (a scalar, a comma or a colon is passed over inside the regex), then
        the tokens go on after it."""
        if token.group() not in (b"{", b"["):
            return
        depth = 1
        for t in _NESTED.finditer(self.document, token.end()):
            opened = t.lastindex  # None for a string, 1 for `{` or `[`, 2 for `}` or `]`
            if opened == 1:
                depth += 1
            elif opened == 2:
                depth -= 1
                if depth == 0:
                    self.tokens = _TOKEN.finditer(self.document, t.end())
                    return
        self.tokens = iter(())
