"""A finding's turn is the place a person counts in the file, whatever the reader made of it.

Readers add messages (a system prompt kept beside the list, a result the log does not keep, one
`tool` message per result of a harness's report) and split others (content blocks), so a
message's place in the auditor's reading (`Message.index`) drifts from the file's. The turn a
finding reports is the file's own (`model.turn_of`):

- the index in the file's list of messages, steps or events, where the log has one
  (`messages[12]`, `action_history[9]`, `history[4]`, a root list's `[3]`);
- the 0-based line of the event in a JSON Lines stream of events (sessions, event files);
- the number of the entry in a text log of entries (ChatDev's tagged lines).

Formats without one list (a gateway's request and response, a trace's spans, Responses
items, a text transcript) report the place in the reading; their pointer or line names the
exact spot. Each reader is checked on its fixtures here, and on every log of `../shared`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from auditor.model import Conversation, Message, turn_of
from tests.helpers import FORMAT_DIR, audit, conversations

LISTED = {
    "anthropic": ("messages",),
    "autogen": ("", "messages"),
    "browser-result": ("action_history", "thoughts"),
    "browser-use": ("history",),
    "cline": ("",),
    "inspect-ai": ("messages",),
    "letta": ("messages", ""),
    "mini-swe-agent": ("messages",),
    "multiagent": ("history", "chat_history"),
    "openai": ("messages",),
    "openhands": ("history",),
    "openhands-v0": ("history", ""),
    "sharegpt": ("conversations", "messages"),
    "swe-agent": ("history",),
    "tau": ("messages", "traj"),
}
"""Formats whose file keeps the turns in one list: the key of that list under the
conversation's pointer (`""`: the record is the list)."""
LINES = frozenset(("stream", "smolagents", "mcp", "message-lines"))
"""Formats whose file is a stream of events, one a line."""
ENTRIES = frozenset(("chatdev",))
"""Text logs of tagged entries."""
_TAG = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (?:INFO|WARNING|ERROR|DEBUG)\] ", re.M)


def _listed(conversation: Conversation, message: Message) -> int | None:
    """The index the message's pointer names in its conversation's list, if any."""
    base = conversation.location.pointer or ""
    pointer = message.location.pointer or ""
    for key in LISTED[conversation.format]:
        prefix = f"{base}/{key}/" if key else f"{base}/"
        if pointer.startswith(prefix):
            head = pointer[len(prefix) :].split("/", 1)[0]
            return int(head) if head.isdigit() else None
    return None


def _text(path: Path) -> str:
    """The log's text with its line ends as they are (a lone `\r` is no new line)."""
    return path.read_bytes().decode("utf-8", errors="replace")


def _entries_before(text: str) -> list[int]:
    """The first line of each tagged entry of a text log, in order."""
    return [text.count("\n", 0, m.start()) + 1 for m in _TAG.finditer(text)]


def _mismatches(path: Path) -> list[str]:
    """Each message of the log whose turn is not its place in the file."""
    wrong = []
    text: str | None = None
    for conversation in conversations(path):
        fmt = conversation.format
        for m in conversation.messages:
            if fmt == "gemini-cli":  # a recording's `messages`, else the lines of events
                listed = (m.location.pointer or "").startswith("/messages/")
                want = int(m.location.pointer.split("/")[2]) if listed else None
                if not listed and m.location.line is not None:
                    want = m.location.line - 1
            elif fmt in LISTED:
                want = _listed(conversation, m)
            elif fmt in LINES or (fmt == "openhands" and m.location.line is not None):
                want = None if m.location.line is None else m.location.line - 1
            elif fmt in ENTRIES:
                if text is None:
                    text = _text(path)
                starts = _entries_before(text)
                line = m.location.line
                want = None if line is None else sum(1 for s in starts if s <= line) - 1
            else:
                continue
            if want is not None and turn_of(m) != want:
                wrong.append(f"{path.name} {conversation.id} message {m.index}: {turn_of(m)}")
    return wrong


FIXTURES = sorted(
    p
    for p in FORMAT_DIR.rglob("*")
    if p.is_file()
    and p.parent.name in (*LISTED, *LINES, *ENTRIES, "gemini-cli")
    and p.suffix != ".md"
)


@pytest.mark.parametrize("path", FIXTURES, ids=[str(p.relative_to(FORMAT_DIR)) for p in FIXTURES])
def test_every_message_is_at_its_place_in_the_file(path):
    assert _mismatches(path) == []


def test_the_fixtures_cover_every_reader_that_knows_its_places():
    covered = {c.format for p in FIXTURES for c in conversations(p)}
    assert covered >= {*LISTED, *LINES, *ENTRIES} - {"letta"}


def test_a_system_prompt_beside_the_list_does_not_shift_the_turn(tmp_path):
    log = tmp_path / "chat.json"
    log.write_text(
        '{"id": "c1", "system": "You book flights.", "messages": ['
        '{"role": "user", "content": "Book LX318."},'
        '{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "book",'
        ' "input": {"flight": "LX318"}}]}]}'
    )
    (finding,) = audit([log], select=["EX001"]).findings
    assert (finding.code, finding.pointer, finding.turn) == ("EX001", "/messages/1/content/0", 1)
    assert finding.index == 2  # the reading puts the system prompt first


def test_a_browser_step_is_counted_once_though_read_as_thought_and_action():
    log = FORMAT_DIR / "browser-result" / "abp-0b838cd5-excerpt.json"
    turns = [(f.code, f.pointer, f.turn) for f in audit([log], select=["LP001"]).findings]
    assert turns == [("LP001", "/action_history/1", 1)]


def test_a_text_log_counts_its_entries():
    log = FORMAT_DIR / "chatdev" / "background-removal-test-cycles-excerpt.log"
    starts = _entries_before(_text(log))
    for f in audit([log]).findings:
        assert f.line is not None
        assert f.turn == sum(1 for s in starts if s <= f.line) - 1, f


SHARED = Path(__file__).resolve().parents[3] / "shared"
_CORPORA = ("realdata", "realdata-next", "realdata-3", "labelled-3")


def _shared_logs() -> list[Path]:
    found = []
    for corpus in _CORPORA:
        root = SHARED / corpus
        if root.is_dir():
            found += [
                p
                for p in sorted(root.rglob("*"))
                if p.is_file() and p.suffix in (".json", ".jsonl", ".log", ".traj")
            ]
    return found


@pytest.mark.skipif(not (SHARED / "realdata").is_dir(), reason="../shared is not beside the repo")
def test_every_message_of_the_shared_logs_is_at_its_place_in_the_file():
    wrong = [w for p in _shared_logs() for w in _mismatches(p)]
    assert wrong == []
