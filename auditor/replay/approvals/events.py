"""Approval events the formats normalise: requests, decisions and the calls they gate.

Responses `mcp_approval_request`/`mcp_approval_response`/`mcp_call`, stream
`approval_request`/`approval_response`, Claude Code rejections. A request pairs with its
decision by id, and with the call it gates by the request's `call_id`, by the call's
`approval_request_id`, or else as the next call of its tool.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from auditor import canonical
from auditor.model import ApprovalDecision, ApprovalRequest, Message
from auditor.replay.approvals.drafts import ApprovalDraft, Calls, parse_arguments

if TYPE_CHECKING:
    from auditor.replay.calls import Exchange


def present(messages: Sequence[Message], exchanges: Sequence[Exchange]) -> bool:
    """The conversation has an approval event, or a call naming the request it executes:
    without either, `pair` adds no draft and claims no call."""
    return any(
        m.approval_request is not None or m.approval_decision is not None for m in messages
    ) or any(e.call.approval_request_id is not None for e in exchanges)


def pair(calls: Calls) -> None:
    """Add a draft for every approval event of the conversation to `calls.drafts`."""
    _Events(calls).walk()


class _Events:
    def __init__(self, calls: Calls) -> None:
        self.calls = calls
        self.requests: dict[str, ApprovalDraft] = {}
        # Requests still waiting for their call, by the call id they name, or by tool name when
        # they name none.
        self.waiting_by_id: dict[str, list[ApprovalDraft]] = {}
        self.waiting_by_name: dict[str, deque[ApprovalDraft]] = {}
        # Approved requests not yet run, to notice one asked again: by the call id they name
        # and by tool + canonical arguments (asked or edited). Each key is computed once per
        # request, so a log of many approvals stays linear (it once grew with their square).
        self.approved: dict[tuple[str, str], list[ApprovalDraft]] = {}

    def walk(self) -> None:
        calls = self.calls
        start = len(calls.drafts)
        for m in calls.messages:
            if m.approval_request is not None:
                self.request(m.approval_request, m.index)
            if m.approval_decision is not None:
                self.decision(m.approval_decision, m.index)
            for e in calls.at.get(m.index, ()):
                self.call(e)
        for d in calls.drafts[start:]:
            if d.gated is not None and self.ran(d.gated):
                d.execution = d.gated

    def request(self, r: ApprovalRequest, index: int) -> None:
        calls = self.calls
        value, raw = parse_arguments(r.arguments)
        keys = _keys(r.name, r.call_id, (value,))
        for key in keys:
            for d in self._approved(key):
                d.asked_again = index
        gated = calls.before(r.call_id, index)
        if gated is not None:
            calls.linked.add(id(gated))
        d = ApprovalDraft(
            "explicit",
            r.name or (gated.call.name if gated else ""),
            index,
            arguments=value,
            raw_arguments=raw,
            asked=value,
            request=r,
            gated=gated,
        )
        self.requests[r.id] = d
        calls.drafts.append(d)
        if gated is None and r.call_id is not None:
            self.waiting_by_id.setdefault(r.call_id, []).append(d)
        elif gated is None:
            self.waiting_by_name.setdefault(d.name, deque()).append(d)

    def decision(self, dec: ApprovalDecision, index: int) -> None:
        calls = self.calls
        d = self.requests.get(dec.request_id)
        if d is None:
            # No request event: the decision names the call itself (a Claude Code rejection).
            gated = calls.before(dec.request_id, index)
            if gated is None:
                return
            calls.linked.add(id(gated))
            d = ApprovalDraft.of_call("explicit", gated, gated.turn, gated=gated)
            self.requests[dec.request_id] = d
            calls.drafts.append(d)
        if d.decision is not None:
            return  # a second answer to one request: the first one stands
        d.decision, d.approved, d.decided_at = dec, dec.approved, index
        if dec.approved and d.request is not None:
            asked = d.asked
            edit = parse_arguments(dec.arguments)[0] if dec.arguments is not None else None
            for key in _keys(d.request.name, d.request.call_id, (asked, edit), d.name):
                self.approved.setdefault(key, []).append(d)
        # An edit is what a call made after the decision must match; a call logged before the
        # request still shows what the person was asked about.
        if dec.arguments is not None and d.gated is None:
            d.arguments, d.raw_arguments = parse_arguments(dec.arguments)
            d.edited = True

    def call(self, e: Exchange) -> None:
        calls = self.calls
        call = e.call
        if call.approval_request_id is not None:
            d = self.requests.get(call.approval_request_id)
            calls.linked.add(id(e))
            if d is not None and d.open():
                d.execution = e
                if d.approved is None:
                    d.approved = True  # the API runs an MCP call only once it is approved
            return
        if call.id is not None:
            for d in reversed(self.waiting_by_id.get(call.id, ())):
                if d.open():
                    calls.link(d, e)
                    return
        queue = self.waiting_by_name.get(call.name)
        while queue and not queue[0].open():
            queue.popleft()
        if queue:
            calls.link(queue.popleft(), e)

    def _approved(self, key: tuple[str, str]) -> list[ApprovalDraft]:
        """The approved requests under `key` that did not run yet (closed ones are dropped)."""
        found = self.approved.get(key)
        if not found:
            return []
        still = [d for d in found if d.open()]
        if len(still) < len(found):
            self.approved[key] = still
        return still

    def ran(self, e: Exchange) -> bool:
        """The call got a result that is not a rejection of it."""
        if e.result is None or e.result_turn is None:
            return False
        decision = self.calls.messages[e.result_turn].approval_decision
        return decision is None or decision.approved


def _keys(
    name: str, call_id: str | None, arguments: tuple[Any, ...], draft_name: str | None = None
) -> list[tuple[str, str]]:
    """What makes two requests ask for the same call: the call id they name, or the tool and
    arguments equal in meaning (a request that names no tool is matched by call id only)."""
    keys = [("\x00id", call_id)] if call_id is not None else []
    if draft_name is None or draft_name == name:
        found = {canonical.key(a) for a in arguments if a is not None}
        keys += [(name, k) for k in sorted(found)]
    return keys
