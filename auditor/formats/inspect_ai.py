"""Inspect AI eval logs: a `.json` log or an `.eval` archive, one conversation per sample.

A `.json` log is `{version, eval, plan, results, samples}`; an `.eval` is a zip whose
`header.json` and `samples/*.json` members `sources` yields as records (`auditor.sources.archives`).

Every sample (one epoch of one dataset item) is a conversation, named `eval_id:sample:epoch`.
Its `messages` are the conversation: assistant `tool_calls` (`{id, function, arguments}`) and
`tool` messages (`tool_call_id`, `error{type, message}`). Its `events` add the execution facts:
a `tool` event holds the arguments that ran (after an approver's edit), so a call carries those;
an `approval` event (`decision`: approve, modify with the edited call in `modified`, reject,
escalate, terminate) becomes an approval message. An approved call's approval comes before the
message that makes the call, as the call (what ran) happened under it; a rejected call did not
run, so its `tool` message, whose `error.type` is `approval`, is a denial, not a tool failure.
The tools offered to the model (`model` events' `tools`) are the declared tools. Long values
stored once as `attachment://…` are resolved from the sample's `attachments`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from auditor.formats import contract
from auditor.formats._common import (
    MessageDraft,
    Problem,
    as_id,
    attach,
    excerpt_json,
    freeze,
    positioned,
    result_draft,
    tool_call,
    tool_specs,
)
from auditor.model import ApprovalDecision, ApprovalRequest, Conversation, Location, ToolSpec
from auditor.sources import Record

NAME = "inspect-ai"
KIND = contract.JSON
DETECT_KEYS = None
sniff = contract.no_sniff
inferred = contract.no_inference
APPROVED = frozenset({"approve", "modify"})
DENIED = frozenset({"reject", "terminate"})
_ATTACHMENT = "attachment://"


def detect(record: Record) -> bool:
    value = record.value
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("eval"), dict):
        return "samples" in value or "plan" in value or "version" in value
    return is_sample(value)


def is_sample(value: dict) -> bool:
    return (
        "epoch" in value
        and isinstance(value.get("messages"), list)
        and ("events" in value or "target" in value)
    )


def parse(record: Record) -> Iterator[Conversation | Problem]:
    return contract.collected(Collector(), record)


class Collector(contract.Collector):
    """An `.eval` archive's header first, then its samples; a `.json` log all at once."""

    def __init__(self, reread: contract.Reread | None = None) -> None:
        self._run = ""

    def add(self, record: Record) -> Iterator[Conversation | Problem]:
        value, location = record.value, record.location
        if isinstance(value.get("eval"), dict):
            self._run = _run_id(value["eval"])
            samples = value.get("samples")
            for i, sample in enumerate(samples if isinstance(samples, list) else ()):
                here = location.child("samples", i)
                if isinstance(sample, dict) and is_sample(sample):
                    yield from _sample(sample, here, self._run)
                else:
                    yield Problem(here, "expected an Inspect sample", evidence=excerpt_json(sample))
            return
        yield from _sample(value, location, self._run)

    def finish(self) -> Iterator[Conversation | Problem]:
        self._run = ""
        return iter(())


def _run_id(header: dict) -> str:
    return as_id(header.get("eval_id")) or as_id(header.get("task_id")) or ""


def _sample(sample: dict, location: Location, run: str) -> Iterator[Conversation | Problem]:
    sid = as_id(sample.get("id"))
    epoch = as_id(sample.get("epoch")) or "1"
    cid = ":".join(p for p in (run, sid or as_id(sample.get("uuid")) or "", epoch) if p)
    problems: list[Problem] = []
    try:
        reader = _Sample(sample, location, problems)
        drafts = reader.read()
    except (TypeError, ValueError, AttributeError, KeyError) as exc:  # one sample, not the log
        yield Problem(location, f"sample could not be read: {exc}", conversation=cid)
        return
    yield from attach(problems, cid)
    messages = freeze(drafts)
    # The sample's one list: its messages, where the turns were read from them (an approval
    # event then sits after the message before it), else its events.
    listed = f"{location.pointer}/messages/"
    keys = ("messages",) if any(m.location.pointer.startswith(listed) for m in messages) else ()
    messages = positioned(messages, location, keys or ("events",))
    yield Conversation(cid, NAME, location, messages, tools=reader.tools, own_id=bool(sid or run))


class _Sample:
    def __init__(self, sample: dict, location: Location, problems: list[Problem]) -> None:
        self.sample = sample
        self.location = location
        self.problems = problems
        attachments = sample.get("attachments")
        self.attachments = attachments if isinstance(attachments, dict) else {}
        self.executed: dict[str, dict] = {}
        self.approvals: dict[str, tuple[dict, Location]] = {}
        self.tools: tuple[ToolSpec, ...] | None = None
        events = sample.get("events")
        for i, event in enumerate(events if isinstance(events, list) else ()):
            if isinstance(event, dict):
                self._event(event, location.child("events", i))

    def _event(self, event: dict, here: Location) -> None:
        kind = event.get("event")
        if kind == "tool" and as_id(event.get("id")):
            self.executed[event["id"]] = event
        elif kind == "approval" and isinstance(event.get("call"), dict):
            call_id = as_id(event["call"].get("id"))
            # an approver that escalates passes the call on: the last real decision stands
            if call_id and (event.get("decision") != "escalate" or call_id not in self.approvals):
                self.approvals[call_id] = (event, here)
        elif kind == "model" and self.tools is None and isinstance(event.get("tools"), list):
            self.tools = tool_specs(event["tools"])

    def read(self) -> list[MessageDraft]:
        drafts: list[MessageDraft] = []
        messages = self.sample["messages"]
        for i, message in enumerate(messages):
            here = self.location.child("messages", i)
            if not isinstance(message, dict) or not isinstance(message.get("role"), str):
                self.problems.append(
                    Problem(
                        here, "expected a message with a `role`", evidence=excerpt_json(message)
                    )
                )
                continue
            role = message["role"]
            if role == "assistant":
                drafts.extend(self._assistant(message, here))
            elif role == "tool":
                drafts.append(self._tool(message, here))
            else:
                drafts.append(MessageDraft(role, here, *self._content(message.get("content"))))
        return drafts

    def _content(self, content: Any) -> tuple[list[str], list[str]]:
        content = self._resolve(content)
        if isinstance(content, str):
            return [content], []
        texts: list[str] = []
        reasoning: list[str] = []
        for part in content if isinstance(content, list) else ():
            if not isinstance(part, dict):
                continue
            if part.get("type") == "text" and isinstance(part.get("text"), str):
                texts.append(self._resolve(part["text"]))
            elif part.get("type") == "reasoning" and isinstance(part.get("reasoning"), str):
                reasoning.append(self._resolve(part["reasoning"]))
        return texts, reasoning

    def _assistant(self, message: dict, here: Location) -> list[MessageDraft]:
        """The approvals of its approved calls, then the message with the calls as they ran."""
        texts, reasoning = self._content(message.get("content"))
        draft = MessageDraft("assistant", here, texts, reasoning)
        before: list[MessageDraft] = []
        after: list[MessageDraft] = []
        calls = message.get("tool_calls")
        for j, call in enumerate(calls if isinstance(calls, list) else ()):
            where = here.child("tool_calls", j)
            if not isinstance(call, dict):
                self.problems.append(Problem(where, "expected a tool call object"))
                continue
            call_id = as_id(call.get("id"))
            name = call.get("function")
            asked = self._resolve(call.get("arguments"))
            ran = self.executed.get(call_id or "")
            arguments = self._resolve(ran["arguments"]) if ran and "arguments" in ran else asked
            draft.calls.append(tool_call(call_id, name, arguments, where))
            if call_id in self.approvals:
                approval = self._approval(call_id, name, asked)
                decided = approval.approval_decision
                (before if decided is not None and decided.approved else after).append(approval)
        return [*before, draft, *after]

    def _approval(self, call_id: str, name: Any, asked: Any) -> MessageDraft:
        event, here = self.approvals[call_id]
        decision = str(event.get("decision"))
        draft = MessageDraft("approval", here)
        draft.approval_request = ApprovalRequest(
            call_id, call_id, name if isinstance(name, str) else "", asked
        )
        edited = None
        if decision == "modify" and isinstance(event.get("modified"), dict):
            edited = self._resolve(event["modified"].get("arguments"))
        reason = event.get("explanation")
        if decision in APPROVED or decision in DENIED:
            draft.approval_decision = ApprovalDecision(
                call_id,
                decision in APPROVED,
                edited,
                reason if isinstance(reason, str) else "",
            )
        return draft

    def _tool(self, message: dict, here: Location) -> MessageDraft:
        texts, _ = self._content(message.get("content"))
        text = "\n".join(texts)
        call_id = as_id(message.get("tool_call_id"))
        error = message.get("error")
        kind = error.get("type") if isinstance(error, dict) else None
        if isinstance(error, dict) and not text.strip():
            text = str(error.get("message") or kind or "")
        draft = result_draft(
            call_id, text, here, error is not None and kind != "approval", message.get("function")
        )
        if kind == "approval" and call_id is not None:
            reason = error.get("message")  # type: ignore[union-attr]
            draft.approval_decision = ApprovalDecision(
                call_id, False, reason=reason if isinstance(reason, str) else ""
            )
        return draft

    def _resolve(self, value: Any) -> Any:
        """A value with its `attachment://…` references replaced by what they stand for."""
        if isinstance(value, str):
            if value.startswith(_ATTACHMENT):
                found = self.attachments.get(value[len(_ATTACHMENT) :])
                return found if isinstance(found, str) else value
            return value
        if isinstance(value, dict):
            return {k: self._resolve(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._resolve(v) for v in value]
        return value
