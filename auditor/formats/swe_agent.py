"""SWE-agent trajectories (`.traj`): `{history: [...], trajectory, info}`.

`history` is what the model saw: `{role, content, agent, message_type?, action?, thought?}`.
Function-calling runs give assistant messages OpenAI `tool_calls` and answer each with a `tool`
message naming it in `tool_call_ids`. Text runs put the command in a fenced block of the
assistant message (parsed by SWE-agent into `action`) and return its output as the next user
message: the text-action protocol (`_text_actions`, `TEXT_ACTIONS`) makes the command a call of
origin `text` (named by its first word, arguments `{"command": …}`, a synthetic id
`action-<index>`) and the user message its result. The run's last action (`submit`,
`exit_cost`) usually has no observation in `history`; EX001 reads only structured calls, so it is
not reported. An empty `action` (SWE-agent could not parse the output and answered with a format
error) is no call.

Three replies say that an action did not run (`REFUSAL`): the edit linter's "Your proposed edit
has introduced new syntax error(s) … Your changes have NOT been applied", the bash syntax check's
"… was NOT executed" and the blocklist's "Operation '…' is not supported by this environment".
In text mode the action is a call the harness refused (EX003 reports it); in function-calling
mode the reply is the `tool` result of a structured call, read as an error that did not run.

SWE-agent keeps no exit code in `history`. A command it had to stop is an error by its own
words (`FAILURE`, a line of the answer): 1.x answers "The command '…' was cancelled because it
took more than N seconds"; 0.x wrote after what output there was "EXECUTION TIMED OUT" (also
"… BECAUSE NO OUTPUT WAS PRODUCED …", "… AND INTERRUPT FAILED. RESTARTING PROCESS."),
"COMMAND FAILED TO EXECUTE", "BROKEN PIPE ERROR" or "EXECUTION FAILED OR COMMAND MALFORMED".
Any other answer is left to its text, as replay reads it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from auditor.common.patterns import lazy
from auditor.formats import contract, openai
from auditor.formats._common import (
    MessageDraft,
    Problem,
    conversation,
    freeze,
    result_draft,
    roled,
    text_of,
)
from auditor.formats._text_actions import Action, TextProtocol, pair
from auditor.model import Conversation, Location
from auditor.sources import Record

NAME = "swe-agent"
KIND = contract.JSON
DETECT_KEYS = None
sniff = contract.no_sniff
Collector = None
inferred = contract.no_inference

# The last fenced block of a message, for logs without SWE-agent's own `action` field.
_FENCE = lazy(r"```[^\n`]*\n(.*?)```", re.S)


def detect(record: Record) -> bool:
    value = record.value
    if not isinstance(value, dict):
        return False
    history = value.get("history")
    if not isinstance(history, list):
        return False
    if "trajectory" in value:
        return True
    first = history[0] if history else None
    return isinstance(first, dict) and ("agent" in first or "message_type" in first)


def parse(record: Record) -> Iterator[Conversation | Problem]:
    value, location = record.value, record.location
    problems: list[Problem] = []
    drafts: list[MessageDraft] = []
    numbers: list[int] = []  # each draft's index in `history`, for the text actions' ids
    parsed: dict[int, list[Action]] = {}  # SWE-agent's own parse of a message's action
    history = roled(value["history"], location.child("history"), problems, "a history entry")
    for i, entry, here in history:
        role = entry["role"]
        if role == "tool":
            ids = entry.get("tool_call_ids")
            ids = ids if isinstance(ids, list) and ids else [entry.get("tool_call_id")]
            text = text_of(entry.get("content"))
            refused = REFUSAL.match(text) is not None
            for call_id in ids:
                drafts.append(result_draft(call_id, text, here, True if refused else _failed(text)))
                numbers.append(i)
                if refused:
                    drafts[-1].result.ran = False  # type: ignore[union-attr]
            continue
        if role == "assistant":
            draft = MessageDraft.of(openai.message(entry, 0, here, problems))
            if "action" in entry:
                parsed[len(drafts)] = _logged_action(entry["action"], here.child("action"))
        else:
            draft = MessageDraft(role, here, [text_of(entry.get("content"))])
        drafts.append(draft)
        numbers.append(i)
    drafts = pair(drafts, (TEXT_ACTIONS,), numbers, parsed)
    yield from conversation(NAME, value, location, freeze(drafts), problems)


def _logged_action(action: object, where: Location) -> list[Action]:
    """The command SWE-agent parsed from a message: none when it could not (a format error)."""
    if not isinstance(action, str) or not action.strip():
        return []
    command = action.strip()
    return [Action(command.split(None, 1)[0], {"command": command}, where)]


def _fenced(draft: MessageDraft) -> list[Action]:
    """The last fenced block of a message, for logs without SWE-agent's own `action` field."""
    blocks = _FENCE.findall(draft.text)
    return _logged_action(blocks[-1], draft.location.child("content")) if blocks else []


# The edit linter, the bash syntax check and the command blocklist refuse an action: its reply
# says that nothing ran (the edit was not applied).
REFUSAL = lazy(
    r"Your proposed edit has introduced new syntax error"
    r"|Your bash command contained syntax errors and was NOT executed"
    r"|Operation '[^'\n]{0,200}' is not supported by this environment"
)
# The harness stopped the command: it timed out, or the shell broke (see the module).
FAILURE = lazy(
    r"^(?:EXECUTION TIMED OUT|COMMAND FAILED TO EXECUTE|BROKEN PIPE ERROR"
    r"|EXECUTION FAILED OR COMMAND MALFORMED)\b"
    r"|^The command '[\s\S]{0,2000}?' was cancelled because it took more than \d+ seconds",
    re.MULTILINE,
)


def _failed(text: str) -> bool | None:
    return True if FAILURE.search(text) else None


TEXT_ACTIONS = TextProtocol(
    actions=_fenced,
    runs="last",
    failed=_failed,
    refusal=REFUSAL,
    issued=True,
)
"""Text mode: the command SWE-agent ran is answered by the next user message."""
