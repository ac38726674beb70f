"""Tool results that ask for confirmation instead of running (`confirmation_required`).

In chat logs a tool answers a call with one of `pending_patterns`, the user replies, and the
next call of that tool by the same caller is the one the reply decided on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from auditor import canonical
from auditor.common.patterns import lazy
from auditor.replay.approvals.drafts import ApprovalDraft, Calls
from auditor.replay.approvals.options import PENDING_SCAN, ApprovalOptions, pending_test
from auditor.replay.approvals.replies import verdict

if TYPE_CHECKING:
    from auditor.replay.calls import Exchange


def present(exchanges: Sequence[Exchange], options: ApprovalOptions) -> bool:
    """Some tool result asks for confirmation: without one, `pair` adds no draft and claims no
    call."""
    pending = pending_test(options.pending_patterns)
    return pending is not None and any(
        e.result is not None and pending(e.result.text[:PENDING_SCAN]) for e in exchanges
    )


def pair(calls: Calls, options: ApprovalOptions) -> None:
    """Add a draft for every tool result asking for confirmation to `calls.drafts`."""
    pending = pending_test(options.pending_patterns)
    if pending is None:
        return
    exchanges, messages = calls.exchanges, calls.messages
    later: dict[tuple[str, str], int] = {}
    next_turn: list[int] = [len(messages)] * len(exchanges)
    for i in range(len(exchanges) - 1, -1, -1):
        e = exchanges[i]
        key = (e.caller, e.call.name)
        next_turn[i] = later.get(key, len(messages))
        later[key] = e.turn
    waiting: dict[tuple[str, str], ApprovalDraft] = {}
    for i, e in enumerate(exchanges):
        if id(e) in calls.linked:
            continue
        key = (e.caller, e.call.name)
        asks = e.result is not None and pending(e.result.text[:PENDING_SCAN])
        earlier = waiting.pop(key, None)
        if earlier is not None:
            if asks:
                if earlier.approved:
                    earlier.asked_again = e.result_turn
                    earlier.reissued = e
            elif earlier.decided_at is not None or _same_arguments(earlier, e.call.arguments):
                # Unanswered, only the same call re-emitted ran under it: another call of
                # the tool (a new search) is not the one that asked.
                calls.link(earlier, e)
        if asks and e.result_turn is not None:
            calls.linked.add(id(e))
            d = ApprovalDraft.of_call("pattern", e, e.result_turn)
            _reply(calls, d, e.result_turn + 1, next_turn[i])
            waiting[key] = d
            calls.drafts.append(d)


def _reply(calls: Calls, d: ApprovalDraft, start: int, stop: int) -> None:
    for m in calls.messages[start:stop]:
        if m.role == "user" and m.text.strip():
            d.approved, d.decided_at = verdict(m.text), m.index
            return


def _same_arguments(d: ApprovalDraft, arguments: Any) -> bool:
    """The call that asked, sent again, perhaps with a confirmation flag the model set itself
    (`"confirmed": true`): that flag is the approval it was supposed to get from the user."""
    return canonical.same_meaning(_unflagged(d.asked), _unflagged(arguments))


_SELF_APPROVAL = lazy(
    r"(?:user_?)?(?:confirm(?:ed|ation)?|approved?|approval|force|skip_?confirm(?:ation)?|yes)",
    re.I,
)


def _unflagged(arguments: Any) -> Any:
    if not isinstance(arguments, dict):
        return arguments
    return {k: v for k, v in arguments.items() if not _SELF_APPROVAL.fullmatch(str(k))}
