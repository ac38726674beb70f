"""The conversation checker: the items a format yields turned into findings, each conversation
replayed once and given to every enabled rule (skipped where it lacks what a rule requires, left
out where a rule's screen says it cannot fire); a crashing rule is reported, not fatal.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Collection, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from auditor.common.errors import ConfigError
from auditor.common.patterns import lazy
from auditor.config import Settings
from auditor.engine.results import SourceResult, UnreadGroup, shape
from auditor.findings import Finding, Severity, Violation, excerpt, fingerprint, identity
from auditor.formats import Problem, unreadable
from auditor.model import Conversation, Message, turn_of, validate
from auditor.report import Counts, RunError
from auditor.rules import BY_CODE, REQUIREMENTS, Rule
from auditor.sources import InvalidRecord, Record

if TYPE_CHECKING:
    from auditor.replay import ApprovalOptions, Replay

IN001, IN002 = "IN001", "IN002"
"""The rules the engine reports while reading (they have no `check`)."""
_UNREAD = frozenset({IN001, IN002})
READ_IN_PART = "read only in part (IN002 names each)"
"""The coverage reason of a conversation a format could read only in part."""


class ConversationChecker:
    """Turns the items a format yields into findings, running the rules on each conversation."""

    def __init__(
        self, settings: Settings, result: SourceResult, ignored: Collection[str] = frozenset()
    ) -> None:
        self.settings = settings
        self.result = result
        self.ignored = ignored
        """Codes `per-file-ignores` drops in this file: no timeline marks their findings."""
        self.in001 = BY_CODE[IN001] if settings.enabled(IN001) else None
        self.in002 = BY_CODE[IN002] if settings.enabled(IN002) else None
        self.conversations = self.assistant_turns = 0
        self.tool_calls = self.tool_results = 0
        self.tools_given = self.tools_declared = self.tools_inferred = 0
        self.languages: dict[str, int] = {}

    @functools.cached_property
    def checks(self) -> list[tuple[Rule, Any, Any]]:
        """Each enabled rule that checks conversations, with its options and screen: read when
        the first conversation comes, so that a file of none imports no rule's module."""
        settings = self.settings
        return [
            (rule, settings.options_of(rule), rule.screen if settings.screens else None)
            for rule in settings.rules
            if rule.check is not None
        ]

    @functools.cached_property
    def approvals(self) -> ApprovalOptions:
        """Replay finds approvals in chat logs the way the enabled CF rules' options say."""
        from auditor.replay import ApprovalOptions

        return ApprovalOptions.merge(options for _, options, _ in self.checks)

    @functools.cached_property
    def pairs(self) -> bool:
        """Replay pairs approvals only when an enabled rule needs them."""
        return any("approvals" in rule.requires for rule, _, _ in self.checks)

    def counts(self) -> Counts:
        """What the conversations read so far add to the report's counts."""
        return Counts(
            conversations=self.conversations,
            assistant_turns=self.assistant_turns,
            tool_calls=self.tool_calls,
            tool_results=self.tool_results,
            tools_given=self.tools_given,
            tools_declared=self.tools_declared,
            tools_inferred=self.tools_inferred,
            languages=tuple(sorted(self.languages.items())),
        )

    def invalid(self, record: InvalidRecord) -> None:
        if self.in001 is None:
            return
        loc = record.location
        finding = self._finding(
            self.in001,
            Violation(record.reason, -1, loc, evidence=record.excerpt),
            conversation=None,
            key=_unindexed(loc.pointer),
        )
        self._unread(finding)

    def route_unread(self, start: int) -> None:
        """Move the IN findings added since `start` (lines resolved) into their groups."""
        findings = self.result.findings
        if len(findings) == start:
            return
        kept = [f for f in findings[start:] if f.code not in _UNREAD]
        for f in findings[start:]:
            if f.code in _UNREAD:
                self._unread(f)
        findings[start:] = kept

    def _unread(self, finding: Finding) -> None:
        key = (finding.code, shape(finding.message))
        group = self.result.repeats.get(key)
        if group is None:
            group = self.result.repeats[key] = UnreadGroup()
        group.add(finding)

    def feed(self, items: Iterable[Conversation | Problem], record: Record | None) -> None:
        try:
            for item in items:
                if isinstance(item, Problem):
                    self._problem(item)
                else:
                    self.conversation(item)
        except ConfigError:
            raise  # a declared format that matches nothing: the configuration is wrong
        except Exception as exc:  # FileReader never raises: this is the last net
            where = record.location if record is not None else None
            place = f"{where.path}:{where.line}" if where and where.line else ""
            self.result.errors.append(
                RunError(
                    "format",
                    f"{place}: reading the record failed: {type(exc).__name__}: {exc}",
                    where.path if where else None,
                )
            )

    def _problem(self, problem: Problem) -> None:
        if self.in002 is None:
            return
        loc = problem.location
        violation = Violation(problem.reason, -1, loc, evidence=problem.evidence)
        self.result.findings.append(
            self._finding(self.in002, violation, problem.conversation, key=_unindexed(loc.pointer))
        )

    def conversation(self, conversation: Conversation) -> None:
        from auditor.replay import replay  # here: a file of no conversation replays none

        result = self.result
        if conversation.unread:
            # Read only in part (its IN002 says where): counted, and no rule judges half of it.
            self.conversations += 1
            for rule, _, _ in self.checks:
                result.skipped[(rule.code, READ_IN_PART)] += 1
            return
        approvals = self.approvals  # outside the record boundary, as the rules' modules load
        given = conversation.tools is None and self.settings.tools is not None
        if given:
            conversation = replace(conversation, tools=self.settings.tools)
        try:
            validate(conversation)
            rep = replay(conversation, approvals)
            if self.pairs:
                rep.approvals  # noqa: B018 (paired here, inside the record boundary)
        except Exception as exc:  # the record boundary: this conversation, not the run
            where = conversation.location
            reason = f"conversation {excerpt(conversation.id, 60)} {unreadable(exc)}"
            self._problem(Problem(where, reason, conversation.id))
            return
        self._count(conversation, rep, given)
        start = len(result.findings)
        self._check(conversation, rep)
        read = rep.languages_read()  # decided only where a rule read claims or replies
        if read is not None:
            key = "+".join(read)
            self.languages[key] = self.languages.get(key, 0) + 1
        if self.settings.timelines and len(result.findings) > start:
            self._timeline(conversation, result.findings[start:])

    def _count(self, conversation: Conversation, rep: Replay, given: bool) -> None:
        """What every conversation adds to the report, whatever its findings: counts, where its
        tools came from, and the tools it called successfully (inferred tool sets)."""
        result = self.result
        declared = conversation.tools is not None and not given
        inferred = not given and not declared
        self.conversations += 1  # plain integers: a Counts per conversation cost 5% of a run
        self.assistant_turns += len(rep.turns)
        self.tool_calls += len(rep.exchanges)
        self.tool_results += sum(m.result is not None for m in conversation.messages)
        self.tools_given += given
        self.tools_declared += declared
        self.tools_inferred += inferred
        fmt = conversation.format
        if inferred:
            result.untooled[fmt] = result.untooled.get(fmt, 0) + 1
        result.tools.setdefault(fmt, set()).update(
            e.call.name
            for e in rep.exchanges
            if e.caller == "assistant" and e.result is not None and not e.failed
        )

    def _check(self, conversation: Conversation, rep: Replay) -> None:
        """Each enabled rule on the replay: skipped (and counted) where the conversation lacks
        what it requires, left out where its screen says it cannot fire, checked otherwise."""
        result = self.result
        met: dict[str, bool] = {}  # requirement -> whether the conversation meets it
        key: str | None = None
        for rule, options, screen in self.checks:
            missing = False
            for need in rule.requires:
                ok = met.get(need)
                if ok is None:
                    ok = met[need] = REQUIREMENTS[need][0](rep)
                if not ok:  # every requirement it lacks, so each reason counts alike
                    missing = True
                    result.skipped[(rule.code, REQUIREMENTS[need][1])] += 1
            if missing:
                continue
            try:
                if screen is not None and not screen(rep, options):
                    continue  # it cannot fire here: most conversations, most rules
                gaps: set[str] = set()
                for violation in rule.check(rep, options):  # type: ignore[misc]
                    if violation.not_examined:
                        if violation.message not in gaps:  # once per conversation
                            gaps.add(violation.message)
                            result.skipped[(rule.code, violation.message)] += 1
                        continue
                    if key is None:
                        key = conversation_key(conversation)
                    finding = self._finding(
                        rule, violation, conversation.id, key, conversation.messages
                    )
                    if violation.deferred is not None:
                        result.undecided[finding.fingerprint] = (
                            conversation.format,
                            violation.deferred,
                        )
                    result.findings.append(finding)
            except Exception as exc:  # a crashing rule is reported and the run goes on
                result.errors.append(
                    RunError(
                        "rule",
                        f"{rule.code} ({rule.name}) crashed on conversation {conversation.id}: "
                        f"{type(exc).__name__}: {exc}",
                        conversation.location.path,
                        rule.code,
                    )
                )

    def _timeline(self, conversation: Conversation, findings: list[Finding]) -> None:
        """The conversation's bounded timeline, its findings marked (not those `per-file-ignores`
        drops: a conversation left with none gets no timeline)."""
        hits = [(f.index, f.evidence) for f in findings if f.code not in self.ignored]
        if not hits:
            return
        from auditor import timeline  # here: only an HTML report asks for timelines

        # A page without this timeline (it says so) beats no page.
        with contextlib.suppress(Exception):
            self.result.timelines.append(timeline.build(conversation, hits))

    def _severity(self, rule: Rule, v: Violation) -> Severity:
        """The configured severity of the rule, else the finding's own, else the rule's default."""
        if v.severity is not None and rule.code not in self.settings.severity:
            return v.severity
        return self.settings.severity_of(rule)

    def _finding(
        self,
        rule: Rule,
        v: Violation,
        conversation: str | None,
        key: str,
        messages: tuple[Message, ...] = (),
    ) -> Finding:
        loc = v.location
        index = v.turn if v.turn >= 0 else None
        # The identity keeps the index as read: a reader that learns the file's own positions
        # changes the turns reported, not the fingerprints baselines hold.
        same = identity(rule.code, key, index, v.evidence or v.message)
        turn = turn_of(messages[index]) if index is not None and index < len(messages) else index
        return Finding(
            code=rule.code,
            name=rule.name,
            severity=self._severity(rule, v),
            message=v.message,
            path=loc.path,
            line=loc.line,
            pointer=loc.pointer,
            conversation=conversation,
            turn=turn,
            tool=v.tool,
            call_id=v.call_id,
            evidence=v.evidence,
            fingerprint=fingerprint(same, loc.path),
            identity=same,
            index=index,
        )


def conversation_key(conversation: Conversation) -> str:
    """The identity baselines key on: the log's own id, or a digest of how the conversation starts.

    A `path:line` id would change whenever lines are inserted above the conversation; the first
    messages do not, and stay the same when the conversation grows at its end.
    """
    if conversation.own_id:
        return conversation.id
    import hashlib  # here, as in `findings.fingerprint`: only for a conversation with findings

    digest = hashlib.sha256()
    for message in conversation.messages[:8]:
        digest.update(message.role.encode())
        digest.update(message.text[:2000].encode("utf-8", "surrogatepass"))
        for call in message.tool_calls:
            digest.update(call.name.encode("utf-8", "surrogatepass"))
        digest.update(b"\x1e")
    return "sha256:" + digest.hexdigest()[:20]


_INDEX = lazy(r"/\d+(?=/|$)")


def _unindexed(pointer: str) -> str:
    """A pointer without its array indexes: `/3/messages/5` -> `/#/messages/#`.

    Records that never became a conversation have no identity of their own; their place in a
    JSON document moves when items are inserted above them, so baselines must not key on it.
    """
    return _INDEX.sub("/#", pointer)
