"""mini-swe-agent trajectories (`*.traj.json`): `{info, messages, trajectory_format, instance_id}`.

`trajectory_format` names the variant:

- `mini-swe-agent-1` (mini 1.x): `messages` are `{role, content}` chat messages without calls.
  The action is the ```` ```bash ```` block of an assistant message (mini's own pattern), a call
  of `bash` with `{"command": …}` answered by the next user message (`TEXT_ACTIONS`):
  `<returncode>N</returncode>` then the output, an error when N is not 0, or "The last command
  … timed out and has been killed". A message with none or several blocks runs nothing: the
  reply is "Please always provide EXACTLY ONE action in triple backticks, found N actions.", so
  its blocks are calls the harness refused (EX003). The submit command (`echo
  COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && …`) is answered by the raw diff.
- `mini-swe-agent-1.1` (mini 2.x): OpenAI chat messages with native `tool_calls` and `tool`
  results, a failure when `extra.returncode` is not 0 or `extra.exception_info` says one; the run
  ends on a `role: "exit"` message (`extra.exit_status`, `extra.submission`). The submit call gets
  no `tool` message: the exit message is its output, so it answers the last call still waiting
  (an error unless the run was `Submitted`). With no call waiting (a run that timed out before
  its first step, an API error between steps) it stays a turn of role `exit`.

The conversation is named by its file (the instance id repeats across runs).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from auditor.common.patterns import lazy
from auditor.formats import contract, openai
from auditor.formats._common import (
    MessageDraft,
    Problem,
    as_object,
    conversation,
    freeze,
    positioned,
    roled,
    text_of,
)
from auditor.formats._text_actions import TextProtocol, exit_status, fenced, pair
from auditor.model import Conversation, Location, Message, ToolResult
from auditor.sources import Record

NAME = "mini-swe-agent"
KIND = contract.JSON
DETECT_KEYS = None
sniff = contract.no_sniff
Collector = None
inferred = contract.no_inference
VARIANTS = ("mini-swe-agent-1", "mini-swe-agent-1.1")

_RETURNCODE = exit_status(r"<returncode>(-?\d+)</returncode>")
_TIMEOUT = lazy(r"The last command <command>.*?</command> timed out and has been", re.S)


def _failed(text: str) -> bool | None:
    found = _RETURNCODE(text)
    if found is None and _TIMEOUT.match(text) is not None:
        return True
    return found


TEXT_ACTIONS = TextProtocol(
    actions=fenced("bash", "bash", "command"),
    failed=_failed,
    refusal=lazy(r"Please always provide EXACTLY ONE action"),
    issued=True,
)
"""mini 1.x: one ```` ```bash ```` block per message, answered by the next user message."""


def detect(record: Record) -> bool:
    value = record.value
    if not isinstance(value, dict):
        return False
    variant = value.get("trajectory_format")
    return (
        isinstance(variant, str)
        and variant.startswith("mini-swe-agent")
        and isinstance(value.get("messages"), list)
    )


def parse(record: Record) -> Iterator[Conversation | Problem]:
    value, location = record.value, record.location
    problems: list[Problem] = []
    here = location.child("messages")
    if value["trajectory_format"] == "mini-swe-agent-1":
        drafts = [
            MessageDraft(item["role"], at, [text_of(item.get("content"))])
            for _, item, at in roled(value["messages"], here, problems)
        ]
        messages = freeze(pair(drafts, (TEXT_ACTIONS,)))
    else:
        messages = _with_tool_calls(value["messages"], here, problems)
    messages = positioned(messages, location, ("messages",))
    yield from conversation(NAME, value, location, messages, problems)


def _with_tool_calls(items: list, here: Location, problems: list[Problem]) -> tuple[Message, ...]:
    """mini 2.x: OpenAI messages, failures read from `extra`, the exit message paired."""
    out: list[Message] = []
    waiting: dict[str, None] = {}  # calls without a result yet, in the order made
    for _, item, at in roled(items, here, problems):
        message = openai.message(item, len(out), at, problems)
        extra = as_object(item.get("extra"))
        for call in message.tool_calls:
            if call.id is not None:
                waiting[call.id] = None
        if message.result is not None:
            waiting.pop(message.result.call_id or "", None)
            if message.result.is_error is None:
                message.result.is_error = _tool_failed(extra)
        elif message.role == "exit" and waiting:
            call_id = list(waiting)[-1]
            failed = extra.get("exit_status") != "Submitted"
            message.role = "tool"
            message.result = ToolResult(call_id, message.text, failed)
            waiting.clear()
        out.append(message)
    return tuple(out)


def _tool_failed(extra: dict) -> bool | None:
    returncode = extra.get("returncode")
    if extra.get("exception_info"):
        return True
    if isinstance(returncode, int) and not isinstance(returncode, bool):
        return returncode != 0
    return None
