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
earlier message, and its message is their output: the text-action protocol (`_text_actions`),
declared here twice, `AG2` and `MAGENTIC_ONE`. Such a block is a call of origin `text`:
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

import hashlib
import re
from collections.abc import Callable, Iterator, Sequence

from auditor.common.patterns import lazy
from auditor.formats import contract
from auditor.formats._common import (
    MessageDraft,
    Problem,
    conversation,
    excerpt_json,
    freeze,
    positioned,
    result_draft,
    text_of,
)
from auditor.formats._text_actions import Action, TextProtocol, fences, pair
from auditor.model import Conversation, ToolCall
from auditor.sources import Record

NAME = "multiagent"
KIND = contract.JSON
DETECT_KEYS = None
sniff = contract.no_sniff
Collector = None
inferred = contract.no_inference
KEYS = ("history", "chat_history")
# Speakers that are people, or programs running the agents' code, not agents.
_NOT_AGENTS = lazy(r"(?i)human|user|user_?proxy|computer_?terminal|\w*executor")
_AG2_REPORT = lazy(r"\s*+exitcode: (-?\d+) \(execution (?:succeeded|failed)\)")
_M1_REPORT = lazy(
    r"The script ran(?:, then exited with Unix exit code: (-?\d+)"
    r"| but produced no output to console\. The Unix exit code was: (-?\d+))"
)
_TRACEBACK = "Traceback (most recent call last)"
_UNKNOWN_LANGUAGE = lazy(r"unknown language (\w*)")
_FILENAME = lazy(r"^# filename: *([\w./-]{1,200})", re.MULTILINE)
# AG2 (autogen code_utils.CODE_BLOCK_PATTERN) and Magentic-One (Executor) code fences, read as
# an opening fence matched where it stands and closing fences looked up by position.
_AG2_OPEN = lazy(r"```[ \t]*+(\w*)[ \t]*+\r?\n")
_AG2_CLOSE = lazy(r"\n[ \t]*+```")
_M1_OPEN = lazy(r"```(\w+)\n")
_M1_CLOSE = lazy(r"\n```")
_M1_LOOK_BACK = 6  # Magentic-One's Executor checks up to check_last_n_message (5) + 1 messages
MAX_BLOCKS = 64
"""Code blocks read in one message."""
_PYTHON = frozenset(("python", "py", "python3", "ipython"))
_SHELL = frozenset(("sh", "bash", "shell", "console", "zsh"))

_SCREENSHOT = "\n\nHere is a screenshot of "
_WEB_ACTIONS = (
    (lazy(r"I typed '(.*)' into the browser search bar\.", re.S), "web_search", ("query",)),
    (lazy(r"I typed '(.*)' into the browser address bar\.", re.S), "visit_url", ("url",)),
    (
        lazy(r"I typed '(.*)' into '(.*)'\.", re.S),
        "input_text",
        ("text_value", "input_field"),
    ),
    (lazy(r"I input '(.*)'\.", re.S), "input_text", ("text_value",)),
    (lazy(r"I clicked the browser back button\.", re.S), "history_back", ()),
    (lazy(r"I clicked the control\.", re.S), "", ()),  # which control: not said
    (lazy(r"I clicked '(.*)'\.", re.S), "click", ("target",)),
    (lazy(r"I scrolled down one page in the browser\.", re.S), "page_down", ()),
    (lazy(r"I scrolled up one page in the browser\.", re.S), "page_up", ()),
    (lazy(r"I scrolled the control (?:up|down)\.", re.S), "", ()),
    (lazy(r"I scrolled '(.*)' up\.", re.S), "scroll_element_up", ("target",)),
    (lazy(r"I scrolled '(.*)' down\.", re.S), "scroll_element_down", ("target",)),
)


def detect(record: Record) -> bool:
    value = record.value
    if not isinstance(value, dict):
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
    drafts: list[MessageDraft] = []
    numbers: list[int] = []  # each draft's index in the history, for the calls' ids
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
        role = "user" if not drafts or person else "assistant"
        name = None if speaker in ("user", "human") else speaker
        drafts.append(MessageDraft(role, here, [text_of(item.get("content"))], name=name))
        numbers.append(i)
    number = {id(d): i for d, i in zip(drafts, numbers, strict=True)}
    drafts = pair(drafts, (AG2, MAGENTIC_ONE), numbers)
    drafts = [
        d
        for draft in drafts
        for d in (_web_action(draft, number[id(draft)]) if _surfs(draft) else (draft,))
    ]
    messages = positioned(freeze(drafts), location, KEYS)
    yield from conversation(NAME, value, location, messages, problems)


def _executor(draft: MessageDraft) -> bool:
    """A report can only come from a person's or a program's message: an agent that writes an
    executor's report made it up, so it is not a result."""
    name = draft.name
    return draft.role == "user" and (name is None or _NOT_AGENTS.fullmatch(name) is not None)


def _failed(report: re.Pattern[str]) -> Callable[[str], bool | None]:
    """A report failed when its exit code is not 0, it says "execution failed", or it holds a
    Python traceback."""

    def failed(text: str) -> bool:
        m = report.match(text)
        exit_code = next((int(g) for g in m.groups() if g is not None), 0) if m else 0
        return exit_code != 0 or "execution failed" in text[:200] or _TRACEBACK in text

    return failed


def _exec_id(action: int, answer: int, k: int) -> str:
    return f"exec-{answer}-{k}"


def _code(
    opener: re.Pattern[str], closer: re.Pattern[str], first: bool = False
) -> Callable[[MessageDraft], list[Action]]:
    """The code blocks an executor finds, each a call of `python`, `sh` or its language."""

    def actions(draft: MessageDraft) -> list[Action]:
        return [
            Action(_tool(language, body), {"code": body}, written=language)
            for language, body in _blocks(draft.text, opener, closer, first)
        ]

    return actions


AG2 = TextProtocol(
    actions=_code(_AG2_OPEN, _AG2_CLOSE),
    answers=lambda d: _executor(d) and _AG2_REPORT.match(d.text) is not None,
    failed=_failed(_AG2_REPORT),
    outcomes=lambda actions, text, failed: _outcomes(actions, text, bool(failed)),
    roles=None,
    ident=_exec_id,
)
"""AG2's report answers every block of the message right before it."""
MAGENTIC_ONE = TextProtocol(
    actions=_code(_M1_OPEN, _M1_CLOSE, first=True),
    answers=lambda d: _executor(d) and _M1_REPORT.match(d.text) is not None,
    failed=_failed(_M1_REPORT),
    roles=None,
    reach=_M1_LOOK_BACK,
    # the orchestrator's notes (agents never see them) and the terminal's own messages
    skip=lambda earlier, answer: (
        (earlier.name or "").endswith("(thought)") or earlier.name == answer.name
    ),
    ident=_exec_id,
)
"""Magentic-One's terminal answers the first block of the latest message before it with one."""


def _outcomes(actions: Sequence[Action], output: str, failed: bool) -> list[bool | None]:
    """Whether each block that ran failed.

    AG2 runs the blocks in order and stops at the first that fails. Its traceback names the
    file the failing block was saved to: `tmp_code_<md5 of the code>` or the block's own
    `# filename:`, and a block in a language it cannot run is reported as `unknown language X`.
    When the report names the block, the blocks before it succeeded and those after it never
    ran; otherwise every block shares the report's outcome.
    """
    if not failed:
        return [False] * len(actions)
    unknown = _UNKNOWN_LANGUAGE.search(output, 0, 500)
    for k, action in enumerate(actions):
        body = action.arguments["code"]
        if unknown is not None and unknown.group(1).lower() not in _PYTHON | _SHELL:
            ran = action.written == unknown.group(1)
        else:
            named = _FILENAME.search(body, 0, 300)
            digest = hashlib.md5(body.encode(), usedforsecurity=False).hexdigest()
            ran = f"tmp_code_{digest}" in output or (named is not None and named.group(1) in output)
        if ran:
            return [i == k for i in range(k + 1)]
    return [True] * len(actions)


def _blocks(
    text: str, opener: re.Pattern[str], closer: re.Pattern[str], first: bool = False
) -> list[tuple[str, str]]:
    """(language, code) of the fenced blocks an executor finds in `text`, in order: an opening
    fence matched where it stands, closed by the first closer whose newline comes at or after
    the code starts (the code may be empty), as `_text_actions.fences` finds them."""
    if "```" not in text:
        return []
    limit = 1 if first else MAX_BLOCKS
    return [
        (m.group(1), text[m.end() : end].removesuffix("\r"))
        for m, end in fences(text, opener, closer, limit)
    ]


def _tool(language: str, code: str) -> str:
    lang = language.lower()
    if lang in _PYTHON:
        return "python"
    if lang in _SHELL:
        return "sh"
    if not lang:
        return "sh" if code.startswith(("python ", "python3 ", "pip")) else "python"
    return lang


def _surfs(draft: MessageDraft) -> bool:
    return draft.role == "assistant" and (draft.name or "").startswith("WebSurfer")


def _web_action(draft: MessageDraft, index: int) -> tuple[MessageDraft, ...]:
    """Split a WebSurfer message into its action (a call) and the page it saw (the result)."""
    text = draft.text
    at = text.find(_SCREENSHOT)
    if at < 0 or draft.calls:
        return (draft,)
    head = text[:at]
    sentence = head[head.rfind("\n\n") + 2 :] if "\n\n" in head else head
    sentence = sentence.strip()
    for pattern, tool, keys in _WEB_ACTIONS:
        m = pattern.fullmatch(sentence)
        if m is None:
            continue
        if not tool:
            break
        call_id = f"web-{index}"
        arguments = dict(zip(keys, m.groups(), strict=True))
        action = MessageDraft("assistant", draft.location, [head], name=draft.name)
        action.calls.append(ToolCall(call_id, tool, arguments, origin="text"))
        result = result_draft(call_id, text[at + 2 :], draft.location, False, tool)
        result.name = draft.name
        return action, result
    return (draft,)
