"""Multi-agent chats: `{history: [{content, role, name?}]}` (Who&When, Magentic-One, AG2).

Who&When's hand-crafted logs (Magentic-One) put the speaker in `role` (`human`,
`Orchestrator (thought)`, `WebSurfer`, …); the algorithm-generated ones (AG2 group chats) put it
in `name` beside a `role` of `user` or `assistant` that only says from whose side the chat was
recorded, so that role is not used. Every agent's message is an assistant turn named by its
speaker, the orchestrator's included (it is an LLM agent whose own plans and instructions can
be wrong). User turns are the first message (the task that starts the chat: a human's
question, or the task and plan an AG2 manager hands the group) and the human's.
`chat_history` (AG2's `ChatResult`) is read like `history`.

Code actions. A code executor (`Computer_terminal`, `ComputerTerminal`, `*executor`, or a
`user_proxy` whose message is AG2's `exitcode: N (…)` report) runs the fenced code blocks of an
earlier message, and its message is their output. Such a block is a call of origin `text`:
tool `python` or `sh` by the fence's language (`py`, `python3` are `python`; `bash`, `shell`,
`console` are `sh`; no language is `sh` when the code starts with `pip`/`python `, else
`python`, as AG2 infers it; any other language keeps its name, since the executor tried it),
arguments `{"code": …}`, id `exec-<executor's index>-<k>`. The executor's message is a `tool`
message carrying the result, an error when its exit code is not 0, it says "execution failed",
or it holds a Python traceback. Which blocks an executor's message answers follows each
framework's own executor:

- AG2's report (`exitcode: N (execution succeeded|failed)`) answers every block of the message
  right before it (AG2 checks the last message), in order, found as AG2 finds them (an opening
  fence with an optional language, a newline, the code, a newline, the closing fence, which may
  be indented). AG2 runs them one after the other, stops at the first that fails and reports
  everything in one message, so N blocks become N calls, each answered by its own copy of that
  one message with the same outcome: when it failed, the log does not say which block failed
  and the blocks after it may never have run.
- Magentic-One's report (`The script ran, then exited with Unix exit code: N` or `The script
  ran but produced no output…`) answers the first block (with a language) of the latest of the
  six messages before it that holds one, skipping the orchestrator's `(thought)` notes (agents
  never see them) and the terminal's own messages. A block run again later is called again.

Any other executor message ("There is no code from the last 1 message for me to execute",
"No code block detected…") answers nothing and stays a user turn, as does a report whose code
the log does not hold in a fence. A report adds one `tool` message per block after it, so the
turns of later messages count them; a finding's pointer (`/history/N`) names the entry itself.

Web actions. Magentic-One's WebSurfer writes the action it took in a fixed sentence right
before "Here is a screenshot of …": "I typed 'Q' into the browser search bar." (`web_search`,
`query`), "… into the browser address bar." (`visit_url`, `url`), "I typed 'V' into 'F'."
(`input_text`, `text_value` and `input_field`), "I input 'V'." (`input_text`), "I clicked 'T'."
(`click`, `target`), "I scrolled down/up one page in the browser." (`page_down`/`page_up`), "I
clicked the browser back button." (`history_back`), "I scrolled 'T' up/down."
(`scroll_element_up`/`_down`). That part of the message is the WebSurfer's turn with its call,
id `web-<index>`; the screenshot description and OCR text after it are the call's result, a
`tool` message of its own. A click on an unnamed control ("I clicked the control.") and the
FileSurfer's page headers (`Address: file:///…`) do not say which call ran: they stay text.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from auditor.formats._common import (
    MessageDraft,
    Problem,
    conversation,
    excerpt_json,
    freeze,
    result_draft,
    text_of,
)
from auditor.model import Conversation, Location, ToolCall
from auditor.sources import Record

NAME = "multiagent"
KEYS = ("history", "chat_history")
# Speakers that are people, or programs running the agents' code, not agents.
_NOT_AGENTS = re.compile(r"(?i)human|user|user_?proxy|computer_?terminal|\w*executor")
_AG2_REPORT = re.compile(r"\s*+exitcode: (-?\d+) \(execution (?:succeeded|failed)\)")
_M1_REPORT = re.compile(
    r"The script ran(?:, then exited with Unix exit code: (-?\d+)"
    r"| but produced no output to console\. The Unix exit code was: (-?\d+))"
)
_TRACEBACK = "Traceback (most recent call last)"
_UNKNOWN_LANGUAGE = re.compile(r"unknown language (\w*)")
_FILENAME = re.compile(r"^# filename: *([\w./-]{1,200})", re.MULTILINE)
# AG2 (autogen code_utils.CODE_BLOCK_PATTERN) and Magentic-One (Executor) code fences, read as
# an opening fence matched where it stands and closing fences looked up by position.
_AG2_OPEN = re.compile(r"```[ \t]*+(\w*)[ \t]*+\r?\n")
_AG2_CLOSE = re.compile(r"\n[ \t]*+```")
_M1_OPEN = re.compile(r"```(\w+)\n")
_M1_CLOSE = re.compile(r"\n```")
_M1_LOOK_BACK = 6  # Magentic-One's Executor checks up to check_last_n_message (5) + 1 messages
MAX_BLOCKS = 64
"""Code blocks read in one message."""
_PYTHON = frozenset(("python", "py", "python3", "ipython"))
_SHELL = frozenset(("sh", "bash", "shell", "console", "zsh"))

_SCREENSHOT = "\n\nHere is a screenshot of "
_WEB_ACTIONS = (
    (re.compile(r"I typed '(.*)' into the browser search bar\.", re.S), "web_search", ("query",)),
    (re.compile(r"I typed '(.*)' into the browser address bar\.", re.S), "visit_url", ("url",)),
    (
        re.compile(r"I typed '(.*)' into '(.*)'\.", re.S),
        "input_text",
        ("text_value", "input_field"),
    ),
    (re.compile(r"I input '(.*)'\.", re.S), "input_text", ("text_value",)),
    (re.compile(r"I clicked the browser back button\.", re.S), "history_back", ()),
    (re.compile(r"I clicked the control\.", re.S), "", ()),  # which control: not said
    (re.compile(r"I clicked '(.*)'\.", re.S), "click", ("target",)),
    (re.compile(r"I scrolled down one page in the browser\.", re.S), "page_down", ()),
    (re.compile(r"I scrolled up one page in the browser\.", re.S), "page_up", ()),
    (re.compile(r"I scrolled the control (?:up|down)\.", re.S), "", ()),
    (re.compile(r"I scrolled '(.*)' up\.", re.S), "scroll_element_up", ("target",)),
    (re.compile(r"I scrolled '(.*)' down\.", re.S), "scroll_element_down", ("target",)),
)


@dataclass
class _Entry:
    """One history entry while the chat is read."""

    index: int
    speaker: str
    text: str
    location: Location
    draft: MessageDraft
    results: list[MessageDraft] | None = None
    """The `tool` messages that replace or follow this entry's draft."""


def detect(record: Record) -> bool:
    value = record.value
    if record.kind != "json" or not isinstance(value, dict):
        return False
    for key in KEYS:
        history = value.get(key)
        if isinstance(history, list) and history:
            first = history[0]
            return (
                isinstance(first, dict)
                and "content" in first
                and ("role" in first or "name" in first)
            )
    return False


def parse(record: Record) -> Iterator[Conversation | Problem]:
    value, location = record.value, record.location
    key = next(k for k in KEYS if isinstance(value.get(k), list))
    problems: list[Problem] = []
    entries: list[_Entry] = []
    for i, item in enumerate(value[key]):
        here = location.child(key, i)
        speaker = item.get("name") or item.get("role") if isinstance(item, dict) else None
        if not isinstance(speaker, str):
            problems.append(
                Problem(
                    here,
                    "expected a message with a string `name` or `role`",
                    evidence=excerpt_json(item),
                )
            )
            continue
        person = _NOT_AGENTS.fullmatch(speaker) is not None
        role = "user" if not entries or person else "assistant"
        name = None if speaker in ("user", "human") else speaker
        text = text_of(item.get("content"))
        draft = MessageDraft(role, here, [text], name=name)
        entries.append(_Entry(i, speaker, text, here, draft))
    for n, entry in enumerate(entries):
        _code_results(entries, n)
        if entry.draft.role == "assistant" and entry.speaker.startswith("WebSurfer"):
            _web_action(entry)
    drafts = [d for e in entries for d in (e.results or [e.draft])]
    yield from conversation(NAME, value, location, freeze(drafts), problems)


def _code_results(entries: list[_Entry], n: int) -> None:
    """When entry `n` reports running code, make the blocks it ran calls and itself their result."""
    entry = entries[n]
    if _NOT_AGENTS.fullmatch(entry.speaker) is None:
        return  # an agent that writes an executor's report made it up: it is not a result
    ag2 = _AG2_REPORT.match(entry.text)
    m1 = None if ag2 else _M1_REPORT.match(entry.text)
    if ag2 is not None:
        code = entries[n - 1] if n > 0 else None
        blocks = _blocks(code.text, _AG2_OPEN, _AG2_CLOSE) if code is not None else []
    elif m1 is not None:
        code, blocks = _m1_answered(entries, n)
    else:
        return
    if code is None or not blocks:
        return
    report = ag2 or m1
    assert report is not None  # one of the two matched, or this returned above
    exit_code = next((int(g) for g in report.groups() if g is not None), 0)
    failed = exit_code != 0 or "execution failed" in entry.text[:200] or _TRACEBACK in entry.text
    results = []
    for k, (language, body, outcome) in enumerate(_outcomes(blocks, entry.text, failed)):
        call_id = f"exec-{entry.index}-{k}"
        code.draft.calls.append(
            ToolCall(call_id, _tool(language, body), {"code": body}, origin="text")
        )
        result = result_draft(call_id, entry.text, entry.location, outcome)
        result.name = entry.draft.name
        results.append(result)
    entry.results = results


def _outcomes(
    blocks: list[tuple[str, str]], output: str, failed: bool
) -> list[tuple[str, str, bool]]:
    """The blocks that ran, each with whether it failed.

    AG2 runs the blocks in order and stops at the first that fails. Its traceback names the
    file the failing block was saved to: `tmp_code_<md5 of the code>` or the block's own
    `# filename:`, and a block in a language it cannot run is reported as `unknown language X`.
    When the report names the block, the blocks before it succeeded and those after it never
    ran; otherwise every block shares the report's outcome.
    """
    if not failed or len(blocks) == 1:
        return [(lang, body, failed) for lang, body in blocks]
    unknown = _UNKNOWN_LANGUAGE.search(output, 0, 500)
    for k, (language, body) in enumerate(blocks):
        if unknown is not None and unknown.group(1).lower() not in _PYTHON | _SHELL:
            ran = language == unknown.group(1)
        else:
            named = _FILENAME.search(body, 0, 300)
            digest = hashlib.md5(body.encode(), usedforsecurity=False).hexdigest()
            ran = f"tmp_code_{digest}" in output or (named is not None and named.group(1) in output)
        if ran:
            return [(lang, body, i == k) for i, (lang, body) in enumerate(blocks[: k + 1])]
    return [(lang, body, True) for lang, body in blocks]


def _m1_answered(entries: list[_Entry], n: int) -> tuple[_Entry | None, list[tuple[str, str]]]:
    """The message a Magentic-One terminal report answers, and the one block it ran."""
    checked = 0
    for j in range(n - 1, -1, -1):
        earlier = entries[j]
        if earlier.speaker.endswith("(thought)") or earlier.speaker == entries[n].speaker:
            continue
        blocks = _blocks(earlier.text, _M1_OPEN, _M1_CLOSE, first=True)
        if blocks:
            return earlier, blocks
        checked += 1
        if checked >= _M1_LOOK_BACK:
            break
    return None, []


def _blocks(
    text: str, opener: re.Pattern[str], closer: re.Pattern[str], first: bool = False
) -> list[tuple[str, str]]:
    """(language, code) of the fenced blocks an executor finds in `text`, in order.

    An opening fence is matched where it stands; its closing fence is the first closer whose
    newline comes at or after the code starts (the code may be empty), looked up by position
    among the closers found in one pass, so the scan is linear.
    """
    if "```" not in text:
        return []
    closes = [m.start() for m in closer.finditer(text)]
    found: list[tuple[str, str]] = []
    pos = 0
    while len(found) < MAX_BLOCKS:
        m = opener.search(text, pos)
        if m is None:
            break
        k = bisect.bisect_left(closes, m.end())
        if k == len(closes):
            break  # unclosed: every later fence is too
        end = closes[k]
        found.append((m.group(1), text[m.end() : end].removesuffix("\r")))
        if first:
            break
        pos = text.index("```", end) + 3
    return found


def _tool(language: str, code: str) -> str:
    lang = language.lower()
    if lang in _PYTHON:
        return "python"
    if lang in _SHELL:
        return "sh"
    if not lang:
        return "sh" if code.startswith(("python ", "python3 ", "pip")) else "python"
    return lang


def _web_action(entry: _Entry) -> None:
    """Split a WebSurfer message into its action (a call) and the page it saw (the result)."""
    at = entry.text.find(_SCREENSHOT)
    if at < 0:
        return
    head = entry.text[:at]
    sentence = head[head.rfind("\n\n") + 2 :] if "\n\n" in head else head
    sentence = sentence.strip()
    for pattern, tool, keys in _WEB_ACTIONS:
        m = pattern.fullmatch(sentence)
        if m is None:
            continue
        if not tool:
            return
        call_id = f"web-{entry.index}"
        arguments = dict(zip(keys, m.groups(), strict=True))
        draft = MessageDraft("assistant", entry.location, [head], name=entry.draft.name)
        draft.calls.append(ToolCall(call_id, tool, arguments, origin="text"))
        result = result_draft(call_id, entry.text[at + 2 :], entry.location, False, tool)
        result.name = entry.draft.name
        entry.results = [draft, result]
        return
