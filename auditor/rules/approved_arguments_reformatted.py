r"""An approved call that ran with the same arguments written differently.

## What it does
Where the log holds both the approved arguments and the executed ones as JSON text (an approval
request or a tool result asking for confirmation, then the call that ran), fires when they are
equal in meaning (parsed, keys unordered, numbers by value, strings NFC) but not in text, and
says what differs: key order, a number's form (`1` vs `1.0`), string escapes, or whitespace.

## Why is this bad?
Runtimes that key a confirmation on a hash of the arguments (ragbits derives the confirmation
id from them) no longer recognise the approved call: the agent asks again, loops on
confirmation, or stops without a word. The re-emitted call is harmless in meaning but breaks the
approval all the same.

## Example
```jsonl
{"id": "cf2", "messages": [{"role": "user", "content": "Delete report.txt"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "delete_file", "arguments": "{\"path\": \"report.txt\", \"force\": 1}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "confirmation_required: delete_file needs the user's approval"}, {"role": "user", "content": "Yes, delete it."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "delete_file", "arguments": "{\"force\": 1.0, \"path\": \"report.txt\"}"}}]}, {"role": "tool", "tool_call_id": "c2", "content": "deleted"}]}
```

## How to fix
Key the approval on the arguments' meaning, not their text: parse them and hash a canonical
form (sorted keys, numbers by value, strings in NFC), or key it on the call's id. Better, have
the runtime keep the approved call and execute that very call, instead of asking the model to
write it again. A model that writes `1.0` for `1` or reorders keys is not at fault, and no
prompt will stop it.

## Does not fire on
- the approved call re-emitted with exactly the same text;
- arguments that differ in meaning (that is CF001), or that the log holds only parsed, as
  tau-bench's natural-language confirmations and logs with object arguments do.
```jsonl
{"id": "cf2-ok", "messages": [{"role": "user", "content": "Delete report.txt"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "delete_file", "arguments": "{\"path\": \"report.txt\", \"force\": 1}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "confirmation_required: delete_file needs the user's approval"}, {"role": "user", "content": "Yes, delete it."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "delete_file", "arguments": "{\"path\": \"report.txt\", \"force\": 1}"}}]}, {"role": "tool", "tool_call_id": "c2", "content": "deleted"}]}
```
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from typing import Any

import orjson

from auditor import canonical
from auditor.findings import Violation, on_call
from auditor.replay import ApprovalOptions, Replay

REQUIRES = ("approvals",)
Options = ApprovalOptions


def check(replay: Replay, options: ApprovalOptions) -> Iterator[Violation]:
    for approval in replay.approvals:
        # The call that ran, or the one re-emitted after the yes whose result asked again: the
        # reformatting is why it asked again (CF004 reports the loop, this the cause).
        executed = approval.execution or approval.reissued
        if executed is None or approval.approved is not True:
            continue
        old, new = approval.raw_arguments, executed.call.raw_arguments
        if old is None or new is None or old == new or approval.arguments is None:
            continue
        if not canonical.same_meaning(approval.arguments, executed.call.arguments):
            continue
        how = _how(approval.arguments, executed.call.arguments, old, new)
        what = "ran" if executed is approval.execution else "was sent again"
        after = (
            ""
            if executed is approval.execution
            else f", and asked for approval again at turn {replay.at(approval.asked_again)}"
        )
        yield on_call(
            f"`{executed.call.name}` {what} with the approved arguments (turn {replay.at(approval.turn)}) "
            f"written differently: {how}; a confirmation keyed on the text of the arguments no "
            f"longer matches{after}",
            executed.call,
            executed.turn,
            replay.conversation.messages[executed.turn].location,
        )


def _how(old: Any, new: Any, old_text: str, new_text: str) -> str:
    """What differs between two texts of one meaning, named by path where it can be."""
    found: list[str] = []
    _differences(old, new, "", found)
    if found:
        return ", ".join(found[:4])
    # Equal meaning makes whitespace inside strings equal: what is left is between tokens.
    if "".join(old_text.split()) == "".join(new_text.split()):
        return "whitespace"
    return "string escapes or whitespace"


def _differences(old: Any, new: Any, path: str, found: list[str]) -> None:
    where = f" at `{path}`" if path else ""
    if isinstance(old, dict) and isinstance(new, dict):
        if list(old) != list(new):
            found.append(f"key order{where}")
        for k in old:
            if k in new:
                _differences(old[k], new[k], f"{path}.{k}" if path else str(k), found)
    elif isinstance(old, list) and isinstance(new, list):
        for i, (a, b) in enumerate(zip(old, new, strict=False)):
            _differences(a, b, f"{path}[{i}]", found)
    elif isinstance(old, str) and isinstance(new, str):
        if old != new and unicodedata.normalize("NFC", old) == unicodedata.normalize("NFC", new):
            found.append(f"Unicode normalisation{where}")
    elif type(old) is not type(new) or _text(old) != _text(new):
        found.append(f"number form{where} ({_text(old)} → {_text(new)})")


def _text(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return repr(value)
