r"""The same call asks for confirmation again after the user approved it.

## What it does
Fires when, after the user approved a call and before it ran, the same call asks for approval
again: a new approval request with the same call id or the same tool and arguments (equal in
meaning), or, in chat logs, a re-emitted call whose tool result again asks for confirmation.
The finding sits on the second request and names the approval it repeats.

## Why is this bad?
The approval did not reach the call it was for. Usually the call was re-emitted with its
arguments reformatted and a confirmation keyed on their hash no longer matches (see CF002),
so the agent asks, the user says yes, and it asks again until the user gives up or the run
stops without a word.

## Example
```jsonl
{"id": "cf4", "messages": [{"role": "user", "content": "Send the invoice to ana@example.com"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "send_email", "arguments": "{\"to\": \"ana@example.com\", \"subject\": \"Invoice\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "confirmation_required: send_email needs the user's approval"}, {"role": "user", "content": "Yes, send it."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "send_email", "arguments": "{\"subject\": \"Invoice\", \"to\": \"ana@example.com\"}"}}]}, {"role": "tool", "tool_call_id": "c2", "content": "confirmation_required: send_email needs the user's approval"}]}
```

## How to fix
It usually has CF002's cause: the call written again no longer matches the key of its
approval. Key approvals on the call's id or on the arguments' meaning, and execute the approved
call instead of asking the model to emit it again. After a yes, a harness should run the call
or say why it could not, never ask again. Log approvals with their call ids, so that a loop can
be traced to its call.

## Does not fire on
- a second request after the approved call ran: that is a new action;
- a request asked again after the user said no, or for different arguments;
- natural-language confirmations asked twice: agents restate the details before acting (the
  tau-bench policy asks for exactly that), so a second "please confirm" is not a loop.
```jsonl
{"id": "cf4-ok", "messages": [{"role": "user", "content": "Send the invoice to ana@example.com"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "send_email", "arguments": "{\"to\": \"ana@example.com\", \"subject\": \"Invoice\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "confirmation_required: send_email needs the user's approval"}, {"role": "user", "content": "Yes, send it."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "send_email", "arguments": "{\"to\": \"ana@example.com\", \"subject\": \"Invoice\"}"}}]}, {"role": "tool", "tool_call_id": "c2", "content": "sent"}]}
```
"""

from __future__ import annotations

from collections.abc import Iterator

from auditor import canonical
from auditor.findings import Violation, excerpt
from auditor.model import Message
from auditor.replay import ApprovalOptions, Replay

REQUIRES = ("approvals",)
Options = ApprovalOptions


def check(replay: Replay, options: ApprovalOptions) -> Iterator[Violation]:
    messages = replay.conversation.messages
    for approval in replay.approvals:
        again = approval.asked_again
        if again is None:
            continue
        message = messages[again]
        yield Violation(
            f"`{approval.name}` asks for approval again at turn {replay.at(again)}, after the user approved "
            f"it at turn {replay.at(approval.decided_at)} (asked at turn {replay.at(approval.turn)}); "
            "the approval "
            "never reached the call",
            again,
            message.location,
            tool=approval.name,
            call_id=message.result.call_id if message.result else None,
            evidence=_evidence(message),
        )


def _evidence(message: Message) -> str:
    request = message.approval_request
    if request is None:
        return excerpt(message.text)
    arguments = request.arguments
    shown = arguments if isinstance(arguments, str) else canonical.excerpt(arguments, 4 * 160)
    return excerpt(f"{request.name}({shown})")
