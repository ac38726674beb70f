"""Approvals paired with the calls they gate, once, for every rule (the approval half of replay).

Every source of approvals is read as the same model: a *proposal* (what the agent or its
runtime asks the person to approve), a *decision* (the person's answer) and the *calls the
decision covers*. Four sources, each in its own module and read here and nowhere else:

- `events` (`explicit`): the approval events formats normalise (Responses `mcp_approval_request`,
  `mcp_approval_response`, `mcp_call`; stream `approval_request`/`approval_response`; Claude
  Code rejections).
- `pending` (`pattern`): in chat logs, a tool result that asks for confirmation instead of
  running (one of `pending_patterns`), the user's reply, and the next call of that tool.
- `language` (`natural-language`, tau-bench): the assistant's proposals, the user's decisions
  (yes, no, a choice, an instruction) and the calls of gated tools they cover, compared value
  by value (`values`).
- `policy`: a call that needed approval and that nothing above approved: its tool matches
  `require_approval`, or the log's own policy demands confirmation before it (`policy.py`:
  a system prompt or a tool description).

The sources run in that order over one index of the calls (`drafts.Calls`): a call one source
accounts for is not claimed by a later one. A source with nothing to read in a conversation
(no approval event, no tool result asking for confirmation, no call of a tool that writes or
needs approval) adds nothing and claims no call, so it is not run; most conversations have
none of the three and are paired without indexing anything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from auditor.model import Conversation
from auditor.replay.approvals.drafts import Approval, ApprovalSource, Calls
from auditor.replay.approvals.options import DEFAULT_PENDING_PATTERNS, ApprovalOptions
from auditor.replay.approvals.replies import asks_to_confirm, verdict

if TYPE_CHECKING:
    from auditor.replay.calls import Exchange

__all__ = [
    "DEFAULT_PENDING_PATTERNS",
    "Approval",
    "ApprovalOptions",
    "ApprovalSource",
    "asks_to_confirm",
    "pair",
    "verdict",
]


def pair(
    conversation: Conversation,
    exchanges: Sequence[Exchange],
    options: ApprovalOptions,
    languages: Callable[[], tuple[str, ...]] | None = None,
) -> tuple[Approval, ...]:
    """Every approval in the conversation, paired with its decision and the call that ran;
    `languages` says which the conversation is read in (the replay's, decided once), else they
    are decided here."""
    # Here, not above: a run that never asks for approvals (no CF rule) never loads them.
    from auditor.replay.approvals import events, language, pending

    explicit = events.present(conversation.messages, exchanges)
    asked = pending.present(exchanges, options)
    policy = language.gating(exchanges, options, conversation)
    if not explicit and not asked and policy is None:
        return ()
    calls = Calls(conversation.messages, exchanges)
    if explicit:
        events.pair(calls)
    if asked:
        pending.pair(calls, options)
    if policy is not None:
        language.pair(calls, options, policy, languages)
    return tuple(d.freeze() for d in calls.drafts)
