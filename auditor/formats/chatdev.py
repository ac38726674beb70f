"""ChatDev run logs (`WareHouse/<project>/<name>.log`): a software company of LLM roles, as text.

The log is a run of entries, each starting on a line `[YYYY-DD-MM hh:mm:ss INFO] ` (day before
month) and running to the next. The whole file is one conversation:

- the task: `**[Preprocessing]**`'s `**task_prompt**` (2023-10 on), or the first chat's opening;
- `<Role>: **[Start Chat]**` opens a phase's chat with its templated prompt: a user turn named by
  the instructing role; `**[User Provided Comments]**` is a person's review, a user turn;
- `<Role>: **<Role><-><Other> on : <Phase>, turn N**` is an agent speaking: an assistant turn
  named by its role (the 2023-06 logs write `[N] AI Assistant (<Role>):` and `AI User
  (<Role>):`, both agents). The bracketed role prompt a turn's text opens with is left out;
- the code the harness took from the last turn and saved (`**[Update Codes]**` entries, one per
  file, with a diff, then `**[Rewrite Codes]**`) is a `write_code` call of that turn, arguments
  `{"files": [{"path", "diff"}]}` (an empty diff for a file saved unchanged), answered by the
  harness's confirmation;
- `**[Test Reports]**` is the harness running the software (`python main.py`): a `run_software`
  call of the Software Test Engineer answered by the report, an error when it holds a
  traceback or an `Error:`; "The software run successfully without errors." is a success;
- `**[CMD Execute]**` `[CMD] <command>` is a command the harness ran for the Programmer (`pip
  install …` after a ModuleNotFoundError): a `sh` call whose output the log does not keep.

Everything else is bookkeeping, not a turn: phase tables (`System: **[chatting]**`,
`**[RolePlaying]**`), `**[Seminar Conclusion]**` (a copy of the chat's last turn), the
narration of a `[CMD Execute]` step, `**[Execute Detail]**`, `**[Software Info]**`, token
usage, `flask app.py did not start for online log`, HTTP and rate-limit lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from auditor.common.patterns import lazy
from auditor.formats import contract
from auditor.formats._common import (
    MessageDraft,
    Problem,
    conversation,
    freeze,
    line_entries,
    positioned_by_line,
    result_draft,
    unrecorded_draft,
)
from auditor.model import Conversation, Location, ToolCall
from auditor.sources import Record

NAME = "chatdev"
KIND = contract.TEXT
DETECT_KEYS = None
Collector = None
inferred = contract.no_inference

_TAG_SOURCE = r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (?:INFO|WARNING|ERROR|DEBUG)\] "
_TAG = lazy(_TAG_SOURCE.encode())
_ENTRY = lazy(_TAG_SOURCE)
_NEXT_ENTRY = lazy("\n" + _TAG_SOURCE)
"""An entry's tag after the newline before it: what opens an entry but the first, searched for
by its literal (a leading `^` would make the engine try every position of the text)."""
_MARKS = (
    "**[Preprocessing]**",
    "**[Start Chat]**",
    "AgentTech Starts",
    "ChatDev",
    "AI Assistant (",
)
_ANSI = lazy(r"\x1b\[[0-9;]*m")
_TURN = lazy(r"([^:\n*]{1,80}): \*\*([^*\n]{1,80})<->([^*\n]{1,80}) on : (\w+), turn (\d+)\*\*")
_OLD_TURN = lazy(r"\[\d+\] AI (?:Assistant|User) \(([^)\n]{1,80})\):")
_START = lazy(r"([^:\n*]{1,80}): \*\*\[Start Chat\]\*\*")
_UPDATED = lazy(r"\s*(\S+) updated\.")
_WROTE = lazy(r"^(.*\S) Wrote$", re.M)
_TASK = lazy(r"\*\*task_prompt\*\*: (.*?)(?:\n\n\*\*|\Z)", re.S)
_NOISE = (
    "flask app.py did not start",
    "**[OpenAI_Usage_Info",
    "**[Execute Detail]**",
    "**[Software Info]**",
    "System: **[",
    "**[Seminar Conclusion]**",
    "HTTP Request:",
    "error_code=",
)
"""Entries that are bookkeeping, told by how they open."""
_TURN_ENTRIES = (
    "**[Preprocessing]**",
    "**[Test Reports]**",
    "**[CMD Execute]**",
    "**[User Provided Comments]**",
)
_FAILED = lazy(r"Traceback \(most recent call last\)|^\w*Error: ", re.M)


def sniff(head: bytes) -> bool:
    """The first bytes of a file are a ChatDev log's."""
    return _TAG.match(head) is not None and any(m.encode() in head for m in _MARKS)


def detect(record: Record) -> bool:
    value = record.value
    return sniff(value[:4096].encode("utf-8", "replace"))


def parse(record: Record) -> Iterator[Conversation | Problem]:
    text, location = record.value, record.location
    run = _Run(location)
    starts = [m.start() + 1 for m in _NEXT_ENTRY.finditer(text)]
    if _ENTRY.match(text):
        starts.insert(0, 0)
    entries: dict[int, int] = {}  # an entry's first line -> its number, as a person counts
    for start, end, line in line_entries(text, starts):
        entries[line] = len(entries)
        opens = text.index("] ", start, end) + 2
        if text.startswith(_NOISE, opens):
            continue  # half of a log's entries: not even sliced
        body = text[opens:end]
        if "\x1b" in body:
            body = _ANSI.sub("", body)
        run.entry(body.rstrip(), Location(location.path, line))
    run.close_write()
    messages = positioned_by_line(freeze(run.drafts), entries)
    yield from conversation(NAME, {}, location, messages, [])


class _Run:
    """The conversation as the entries arrive."""

    def __init__(self, location: Location) -> None:
        self.location = location
        self.drafts: list[MessageDraft] = []
        self.speaker: MessageDraft | None = None
        """The last agent turn: the harness saves the code it wrote."""
        self.files: dict[str, str] = {}
        self.written: list[str] = []
        self.write_at: Location | None = None

    def entry(self, entry: str, here: Location) -> None:
        head, _, body = entry.partition("\n")
        body = body.strip("\n")
        if head.startswith("**[Update Codes]**"):
            self._update(body, here)
            return
        if head.startswith("**[Rewrite Codes]**"):
            self.written.extend(m.group(1).rsplit("/", 1)[-1] for m in _WROTE.finditer(body))
            self.write_at = self.write_at or here
            return
        turn = _TURN.fullmatch(head) or _OLD_TURN.fullmatch(head)
        start = _START.fullmatch(head)
        if turn is None and start is None and not head.startswith(_TURN_ENTRIES):
            return  # bookkeeping: it neither ends the saving of code nor is a turn
        self.close_write()
        if head.startswith("**[Preprocessing]**"):
            task = _TASK.search(body)
            if task is not None:
                self._user(task.group(1).strip(), here)
        elif head.startswith("**[Test Reports]**"):
            self._harness(
                "Software Test Engineer", "run_software", {"entry": "main.py"}, body, here
            )
        elif head.startswith("**[CMD Execute]**"):
            command = body.strip().removeprefix("[CMD]").strip()
            self._harness("Programmer", "sh", {"command": command}, None, here)
        elif head.startswith("**[User Provided Comments]**"):
            self._user(body.strip(), here)
        elif turn is not None:
            self.speaker = MessageDraft(
                "assistant", here, [_without_role_prompt(body)], name=turn[1]
            )
            self.drafts.append(self.speaker)
        elif start is not None:
            self.drafts.append(
                MessageDraft("user", here, [_without_role_prompt(body)], name=start[1])
            )

    def _user(self, text: str, here: Location) -> None:
        if text:
            self.drafts.append(MessageDraft("user", here, [text]))

    def _update(self, body: str, here: Location) -> None:
        m = _UPDATED.match(body)
        name = m.group(1) if m is not None else f"file-{len(self.files)}"
        diff = body.split("--- Old", 1)
        self.files[name] = "--- Old" + diff[1].rstrip("`\n ") if len(diff) == 2 else ""
        self.write_at = self.write_at or here

    def close_write(self) -> None:
        """The code saved since the last turn, as that turn's `write_code` call."""
        if self.write_at is None:
            return
        changed = dict(self.files)
        for name in self.written:
            changed.setdefault(name, "")
        files = [{"path": name, "diff": diff} for name, diff in changed.items()]
        here = self.write_at
        confirmation = [f"{name} updated." for name in self.files]
        confirmation += [f"{name} written." for name in self.written]
        self.files, self.written, self.write_at = {}, [], None
        speaker = self.speaker
        if speaker is None:  # code saved before any agent spoke: the harness's own
            speaker = MessageDraft("assistant", here, name="ChatDev")
            self.drafts.append(speaker)
        call = ToolCall(f"write-{here.line}", "write_code", {"files": files}, location=here)
        speaker.calls.append(call)
        result = result_draft(call.id, "\n".join(confirmation), here, False, call.name)
        self.drafts.insert(_after(self.drafts, speaker), result)

    def _harness(
        self, role: str, tool: str, arguments: dict, output: str | None, here: Location
    ) -> None:
        turn = MessageDraft("assistant", here, name=role)
        call = ToolCall(f"{tool}-{here.line}", tool, arguments, location=here)
        turn.calls.append(call)
        self.drafts.append(turn)
        if output is None:
            self.drafts.append(unrecorded_draft(call.id, here, tool))
        else:
            failed = _FAILED.search(output) is not None
            self.drafts.append(result_draft(call.id, output.strip(), here, failed, tool))


def _after(drafts: list[MessageDraft], speaker: MessageDraft) -> int:
    """Where a new result of the speaker's turn goes: after the results its turn already has."""
    k = len(drafts)
    while drafts[k - 1] is not speaker:
        k -= 1
    while k < len(drafts) and drafts[k].role == "tool":
        k += 1
    return k


def _without_role_prompt(body: str) -> str:
    """A turn's text without the bracketed role prompt ChatDev logs before it."""
    text = body.strip()
    if text.startswith("["):
        end = text.find("]\n\n", 0, 20_000)
        if end > 0:
            return text[end + 3 :].strip()
    return text
