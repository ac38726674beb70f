"""LiteLLM completion logs (OpenHands' `log_completions`): one model call per file.

`{messages, tools, kwargs, context_window, response, cost, timestamp, latency_sec}`: the request's
messages as sent, then the completion (`response.choices[0].message`, in Chat Completions shape);
non-function-calling logs add `raw_messages` and `raw_response`. A log is its conversation up to
that call: the response's calls ran after the log was written, so a trailing call is not
unanswered (`complete` is False, as for gateway exchanges). Successive logs of one run repeat
each other (each request holds the whole history so far): each file is read on its own, so audit
the last of a run, or expect its findings once per log that holds them.

In OpenHands' non-function-calling mode (`kwargs.stop` holds `</function`) the request's
assistant messages write their calls as text, `<function=NAME><parameter=P>V</parameter>…
</function>`, and the next user message answers the first of them, `EXECUTION RESULT of [NAME]:`
then the output (`TEXT_ACTIONS`). It failed when OpenHands says so: the agent SDK opens a failed
observation with "[An error occurred during execution.]" (before its 1.0 the terminal with
"[There was an error during command execution.]"), V0 closes an `ErrorObservation` with "[Error
occurred in processing last action]", and the terminal ends on its exit code ("[The command
completed with exit code 1.]"); otherwise replay reads the output. The `response` is already
converted back to `tool_calls` there; `raw_response` holds its text form.
"""

from __future__ import annotations

from collections.abc import Iterator

from auditor.common.patterns import lazy
from auditor.formats import anthropic, contract, openai
from auditor.formats._common import MessageDraft, Problem, conversation, freeze, tool_specs
from auditor.formats._text_actions import TextProtocol, exit_status, function_tags, pair
from auditor.model import Conversation
from auditor.sources import Record

NAME = "litellm"
KIND = contract.JSON
DETECT_KEYS = None
sniff = contract.no_sniff
Collector = None
inferred = contract.no_inference
# Besides `messages` and `response`, a completion log names what the call cost and took.
LOG_KEYS = ("kwargs", "context_window", "latency_sec", "cost")

_EXIT_CODE = exit_status(
    r"\[(?:Command finished|The command completed) with exit code (-?\d+)", window=300
)
# OpenHands' own notes on a failed observation (see the module).
_ERROR_HEADER = lazy(
    r"\[An error occurred during execution\.\]|\[There was an error during command execution\.\]"
)
_ERROR_FOOTER = "[Error occurred in processing last action]"


def _failed(text: str) -> bool | None:
    if _ERROR_HEADER.match(text) or text.rstrip().endswith(_ERROR_FOOTER):
        return True
    return _EXIT_CODE(text)


TEXT_ACTIONS = TextProtocol(
    actions=function_tags,
    runs="first",
    opening=lazy(r"EXECUTION RESULT of \[[^\]\n]{1,64}\]:\n?"),
    failed=_failed,
    issued=True,
)
"""OpenHands' prompt-based function calling: `<function=…>` answered by `EXECUTION RESULT`."""


def detect(record: Record) -> bool:
    value = record.value
    return (
        isinstance(value, dict)
        and isinstance(value.get("messages"), list)
        and isinstance(value.get("response"), dict)
        and any(key in value for key in LOG_KEYS)
    )


def parse(record: Record) -> Iterator[Conversation | Problem]:
    value, location = record.value, record.location
    problems: list[Problem] = []
    sent = anthropic.messages(value, location, problems)
    drafts = pair([MessageDraft.of(m) for m in sent], (TEXT_ACTIONS,))
    choices = value["response"].get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    if isinstance(message, dict) and isinstance(message.get("role"), str):
        here = location.child("response", "choices", 0, "message")
        drafts.append(MessageDraft.of(openai.message(message, 0, here, problems)))
    elif choices:
        problems.append(Problem(location.child("response"), "expected a choice with a `message`"))
    tools = tool_specs(value.get("tools"))
    yield from conversation(
        NAME, value, location, freeze(drafts), problems, tools=tools, complete=False
    )
