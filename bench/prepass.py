"""Prototype: a raw pre-pass over decoded OpenAI-chat records that proves a conversation clean
for each rule, so that most conversations need never build the model (SPEC §10; issue 15).

A measurement, not product code: `python bench/prepass.py LOG.jsonl` times the pre-pass
against decode and the whole audit, counts the conversations it proves clean, and checks it
against the real engine's findings (a rule said clean where the engine finds something is a
MISS, printed loudly). See docs/prepass.md for the figures and the design it argues for.

`could_fire(value)` reads the decoded dict alone. For each enabled rule it answers "could it
fire?" with the prerequisite the rule's own `screen` (or the check's first test) asks, computed
from raw fields and, wherever one exists, with the very helper the rule uses (dialect triggers,
claim cues, placeholder hints, call keys, the quick schema check, identifier reading), so the
answer is a superset of where the rule fires. Anything the pass does not understand (a message
not shaped as `openai.parse` expects, calls without ids) makes it answer "full path".
"""

from __future__ import annotations

import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from auditor.canonical import key  # noqa: E402
from auditor.dialects import _TRIGGER_HINTS, triggers  # noqa: E402
from auditor.formats._common import text_of, tool_specs  # noqa: E402
from auditor.replay import looks_like_error  # noqa: E402
from auditor.replay.approvals.language import _MUTATING  # noqa: E402
from auditor.replay.approvals.options import PENDING_SCAN, ApprovalOptions, pending_test  # noqa: E402
from auditor.replay.approvals.policy import read as read_policy  # noqa: E402
from auditor.rules import _claims, _placeholders  # noqa: E402
from auditor.rules._grounding import GIVERS as _GIVERS  # noqa: E402
from auditor.rules._loops import Options as LoopOptions  # noqa: E402
from auditor.rules._loops import transparent  # noqa: E402
from auditor.rules._quickschema import checker  # noqa: E402
from auditor.rules._rewordings import may_repeat as _may_repeat  # noqa: E402
from auditor.rules._rewordings import words_of as _words_of  # noqa: E402
from auditor.rules.leaked_control_tokens import _bracketed  # noqa: E402
from auditor.rules.repeated_assistant_message import MIN_WORDS  # noqa: E402
from auditor.rules.repeated_assistant_message import Options as ReplyOptions  # noqa: E402
from auditor.rules.simulated_data import _hinted  # noqa: E402
from auditor.rules.ungrounded_argument import _creates, _read_identifiers  # noqa: E402

TEXT_RULES = ("FB001", "FB002", "EX003", "EX004")
CALL_RULES = ("FB004", "FB005", "EX001", "EX006", "LP001", "LP002", "LP003", "LP005")
APPROVAL_RULES = ("CF001", "CF002", "CF003", "CF004")
LOOPS = LoopOptions()
REPLIES = ReplyOptions()
APPROVALS = ApprovalOptions()


@dataclass
class Verdict:
    """What the pre-pass says of one conversation."""

    full: bool = False
    """The pass did not understand the record: only the full path may decide."""
    could: set[str] = field(default_factory=set)
    """Rules that could fire: the full path must run them."""
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(rule, reason) the engine counts as skipped for a missing requirement."""
    assistant_turns: int = 0
    declared: bool = False
    tools_ok: set[str] = field(default_factory=set)
    """Tools the assistant called with a result that is not an error (inferred tool sets)."""


@dataclass
class _Call:
    """What `_values.strings` and the loop keys read of a call."""

    id: str | None
    name: str
    raw_arguments: str | None
    arguments: Any
    turn: int
    caller: str
    result: str | None = None
    failed: bool = False
    passed: bool = False


def _shaped(messages: Any) -> bool:
    """Every message is what `openai.message` reads without a Problem, in its common shape."""
    if type(messages) is not list:
        return False
    for m in messages:
        if type(m) is not dict or type(m.get("role")) is not str:
            return False
        if "function_call" in m:
            return False
        content = m.get("content")
        if content is not None and type(content) is not str:
            return False  # parts: another format's blocks (`tool_use`) may hide there
        calls = m.get("tool_calls")
        if calls is not None and type(calls) is not list:
            return False
        for c in calls or ():
            fn = c.get("function") if type(c) is dict else None
            if type(fn) is not dict or type(fn.get("name")) is not str or not fn["name"]:
                return False
            if type(c.get("id")) is not str or not c["id"]:
                return False  # calls without ids pair by order: leave them to replay
    return True


def _calls_and_texts(messages: list) -> tuple[list[_Call], list[str], list[str], bool]:
    """The calls paired with their results as `replay` pairs them, the assistant texts and
    every text by message; and whether some result answers no waiting call (EX002)."""
    made: list[_Call] = []
    waiting: dict[str, list[_Call]] = {}
    speakers: dict[str, list[_Call]] = {}
    said: list[str] = []
    texts: list[str] = []
    orphan = False
    for index, m in enumerate(messages):
        role = m["role"]
        content = m.get("content")
        text = content if type(content) is str else text_of(content)
        texts.append(text)
        if role in ("tool", "function"):
            call_id = m.get("tool_call_id") or (m.get("id") if role == "tool" else None)
            queue = waiting.get(call_id) if type(call_id) is str else None
            if not queue:
                orphan = True
                continue
            call = queue.pop(0)
            call.result = text
            flag = m.get("error", m.get("is_error"))
            call.failed = flag if isinstance(flag, bool) else looks_like_error(text)
            continue
        for call in speakers.pop(role, ()):
            if call.result is None:
                call.passed = True
        if role == "assistant":
            said.append(text)
        for c in m.get("tool_calls") or ():
            fn = c["function"]
            raw = fn.get("arguments")
            call = _Call(c["id"], fn["name"], raw if type(raw) is str else None, None, index, role)
            if type(raw) is str:
                try:
                    call.arguments = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    call.arguments = None
            else:
                call.arguments = raw
            made.append(call)
            waiting.setdefault(c["id"], []).append(call)
            speakers.setdefault(role, []).append(call)
    return made, said, texts, orphan


def _text_rules(verdict: Verdict, messages: list, said: list[str], made: list[_Call]) -> None:
    """FB001-FB003, FB006, EX003, EX004: markers in the assistant's texts."""
    joined = "\x00".join(said)
    if _claims.possible(joined):
        verdict.could.add("FB003")
    if _hinted(joined):
        verdict.could.add("FB006")
    # `dialects._marked`: one search of the joined texts before any message is read alone.
    if any(map(joined.__contains__, _TRIGGER_HINTS)) or joined[:1] == "a" or "\x00a" in joined:
        marked = [
            m for m in messages if m["role"] == "assistant" and triggers(text_of(m.get("content")))
        ]
        if marked:
            verdict.could.update(("FB001", "EX004"))
            if any("Answer" in text_of(m.get("content")) for m in marked):
                verdict.could.add("FB002")
            if any(not m.get("tool_calls") for m in marked):
                verdict.could.add("EX003")
    if any(_bracketed(c.name) for c in made if c.caller == "assistant"):
        verdict.could.add("EX004")


def _call_rules(verdict: Verdict, made: list[_Call], tools: Any) -> None:
    """EX001, EX005-EX007, FB005: pairing, names, arguments."""
    if any(c.result is None or c.passed for c in made):
        verdict.could.add("EX001")
    if any(not isinstance(c.arguments, dict) for c in made):
        verdict.could.add("EX006")
    answered = [c for c in made if c.result is not None]
    if any(c.raw_arguments is None for c in answered) or _placeholders.possible(
        "\x00".join(c.raw_arguments or "" for c in answered)
    ):
        verdict.could.add("FB005")
    if tools is None:
        return
    known = {spec.name: spec.parameters for spec in tools}
    mine = [c for c in made if c.caller == "assistant"]
    if any(c.name not in known for c in mine):
        verdict.could.add("EX005")
    for c in mine:
        schema = known.get(c.name)
        if (
            isinstance(c.arguments, dict)
            and isinstance(schema, dict)
            and schema
            and not checker(schema)(c.arguments)
        ):
            verdict.could.add("EX007")
            break


def _loop_rules(verdict: Verdict, messages: list, made: list[_Call]) -> None:
    """LP001-LP003, LP005 from answered calls; LP004 from the replies."""
    answered = [c for c in made if c.result is not None and not transparent(c.name, LOOPS)]
    mine = [c for c in answered if c.caller == "assistant"]
    by_name = Counter(c.name for c in mine)
    often = {n for n, k in by_name.items() if k >= LOOPS.min_repeats}
    if often:
        turns: dict[tuple[str, str | None], set[int]] = defaultdict(set)
        for c in mine:
            if c.name in often:  # one call with one outcome, in distinct turns
                turns[(_key(c), c.result)].add(c.turn)
        repeated = sum(1 for t in turns.values() if len(t) >= LOOPS.min_repeats)
        if repeated:
            verdict.could.add("LP001")
        if repeated >= 2:
            verdict.could.add("LP003")
    failed: dict[str, set[int]] = defaultdict(set)
    for c in mine:
        if c.failed:
            failed[c.name].add(c.turn)
    if failed:
        verdict.could.add("LP005")
        if any(len(turns) >= LOOPS.min_repeats for turns in failed.values()):
            verdict.could.add("LP002")
    replies = []
    for m in messages:
        if m["role"] == "assistant" and not m.get("tool_calls"):
            words = text_of(m.get("content")).split()
            if len(words) >= MIN_WORDS:
                replies.append(" ".join(words))
    if len(replies) >= REPLIES.min_repeats and _may_repeat(replies, _words_of(replies)[0]):
        verdict.could.add("LP004")


def _key(call: _Call) -> str:
    """`_loops.call_key` of a raw call."""
    if call.arguments is None:
        return f"{call.name}\x1f{call.raw_arguments}"
    return f"{call.name}\x1f{key(call.arguments)}"


def _grounded(token: str, given: str) -> bool:
    """`token` stands in `given` as a whole token (not inside a longer word or number)."""
    start = given.find(token)
    while start >= 0:
        end = start + len(token)
        before = given[start - 1] if start else " "
        after = given[end] if end < len(given) else " "
        if not before.isalnum() and not after.isalnum():
            return True
        start = given.find(token, start + 1)
    return False


_SEEN: dict[tuple[str, str | None], list[tuple[str, str, str]]] = {}


def _identifiers(call: _Call) -> list[tuple[str, str, str]]:
    """`_read_identifiers`, read once per tool and arguments text (`_identifiers_of`'s cache)."""
    if call.raw_arguments is None or len(call.raw_arguments) > 2_000:
        return _read_identifiers(call)  # type: ignore[arg-type]
    key_ = (call.name, call.raw_arguments)
    found = _SEEN.get(key_)
    if found is None:
        if len(_SEEN) >= 4096:
            _SEEN.clear()
        found = _SEEN[key_] = _read_identifiers(call)  # type: ignore[arg-type]
    return found


def _ungrounded(verdict: Verdict, messages: list, texts: list[str], made: list[_Call]) -> None:
    """FB004: some identifier an assistant's call passes is not written, as a whole token,
    in an earlier message of the system, the user or a tool. Verbatim presence is only
    sufficient if the engine grounds at least as much; the measurement checks it."""
    givers = ("tool", "function", *_GIVERS)
    first = next((i for i, m in enumerate(messages) if m["role"] in _GIVERS), None)
    if first is None:
        return
    paths = any(m["role"] in ("system", "developer") for m in messages)
    read_to, given = 0, ""
    for c in made:
        if c.caller != "assistant" or c.turn < first or _creates(c.name):
            continue
        found = _identifiers(c)
        if not paths:
            found = [f for f in found if f[2] != "file path"]
        if not found:
            continue
        if read_to < c.turn:
            given += "\n" + "\n".join(
                texts[i] for i in range(read_to, c.turn) if messages[i]["role"] in givers
            )
            read_to = c.turn
        if not all(_grounded(token, given) for _, token, _ in found):
            verdict.could.add("FB004")
            return


def _approvals(messages: list, made: list[_Call], tools: Any, value: dict) -> bool:
    """Whether `approvals.pair` could find an approval: a result asking for confirmation, or a
    gated call (a writing tool, or one the log's policy names). OpenAI chat has no events."""
    pending = pending_test(APPROVALS.pending_patterns)
    if pending is not None and any(
        c.result is not None and pending(c.result[:PENDING_SCAN]) for c in made
    ):
        return True
    names = {c.name for c in made if c.caller == "assistant"}
    if not names:
        return False
    if any(_MUTATING.match(n) or APPROVALS.requires(n) for n in names):
        return True
    shim = SimpleNamespace(
        messages=[
            SimpleNamespace(role=m["role"], text=text_of(m.get("content")))
            for m in messages
            if m["role"] in ("system", "developer")
        ],
        instructions=None,
        tools=tools,
    )
    policy = read_policy(shim)  # type: ignore[arg-type]
    return any(policy.requires(n) for n in names)


def could_fire(value: Any) -> Verdict:
    """The pre-pass of one decoded OpenAI-chat record (one conversation)."""
    verdict = Verdict()
    if type(value) is not dict or not _shaped(value.get("messages")):
        verdict.full = True
        return verdict
    messages = value["messages"]
    made, said, texts, orphan = _calls_and_texts(messages)
    tools = tool_specs(value.get("tools") or value.get("functions"))
    verdict.declared = tools is not None
    verdict.assistant_turns = len(said)
    verdict.tools_ok = {
        c.name for c in made if c.caller == "assistant" and c.result is not None and not c.failed
    }
    _text_rules(verdict, messages, said, made)
    _loop_rules(verdict, messages, made)
    if made:
        _call_rules(verdict, made, tools)
        _ungrounded(verdict, messages, texts, made)
    else:
        verdict.skipped.extend((code, "no tool calls") for code in CALL_RULES)
    if orphan:
        verdict.could.add("EX002")
    no_tools = "no tools declared or given with --tools"
    if tools is None or not made:
        reason = no_tools if tools is None else "no tool calls"
        verdict.skipped.extend((code, reason) for code in ("EX005", "EX007"))
    if _approvals(messages, made, tools, value):
        verdict.could.update(APPROVAL_RULES)
    else:
        verdict.skipped.extend((code, "no approvals seen") for code in APPROVAL_RULES)
    return verdict


def _lines(path: Path) -> list[bytes]:
    with open(path, "rb") as f:
        return [line for line in f if line.strip()]


def timed_pass(lines: list[bytes], prepass: bool) -> tuple[float, list[Verdict]]:
    """orjson on every line, and the pre-pass on each value when asked."""
    loads = orjson.loads
    verdicts = []
    start = time.process_time()
    for line in lines:
        value = loads(line)
        if prepass:
            verdicts.append(could_fire(value))
    return time.process_time() - start, verdicts


def truth(path: Path) -> tuple[float, Any, dict[str, set[str]]]:
    from auditor import config, engine

    start = time.process_time()
    report = engine.audit([str(path)], config.build())
    seconds = time.process_time() - start
    found: dict[str, set[str]] = defaultdict(set)
    for f in report.findings:
        found[f.conversation or ""].add(f.code)
    return seconds, report, found


def screened(path: Path) -> dict[str, set[str]]:
    """Per conversation, the rules the real engine checks: its screen said yes, or it has no
    screen and its requirements are met. The best a pre-pass mirroring the screens can do."""
    from dataclasses import replace

    from auditor import config, engine

    settings = config.build()
    checked: dict[str, set[str]] = defaultdict(set)

    def recorder(rule: Any) -> Any:
        screen = getattr(rule, "screen", None)

        def check(rep: Any, options: Any) -> Any:
            checked[rep.conversation.id].add(rule.code)
            return rule.check(rep, options)

        def watched(rep: Any, options: Any) -> bool:
            said = screen(rep, options)
            if said:
                checked[rep.conversation.id].add(rule.code)
            return bool(said)

        if screen is None:
            return replace(rule, check=check)
        return replace(rule, screen=watched)

    rules = tuple(recorder(r) if r.check is not None else r for r in settings.rules)
    engine.audit([str(path)], replace(settings, rules=rules))
    return checked


def parts(lines: list[bytes]) -> None:
    """The pre-pass's cost by part, each timed in its own loop over the decoded values."""
    values = [orjson.loads(line) for line in lines]
    clock = time.perf_counter
    start = clock()
    shaped = [_shaped(v.get("messages")) for v in values]
    costs = {"shape check": clock() - start}
    start = clock()
    paired = [_calls_and_texts(v["messages"]) for v in values]
    costs["pairing, texts"] = clock() - start
    start = clock()
    tools = [tool_specs(v.get("tools") or v.get("functions")) for v in values]
    costs["tool specs"] = clock() - start
    steps: dict[str, Any] = {
        "text rules (FB001-3, FB006, EX003-4)": lambda v, p, t, d: _text_rules(
            d, v["messages"], p[1], p[0]
        ),
        "loop rules (LP001-5)": lambda v, p, t, d: _loop_rules(d, v["messages"], p[0]),
        "call rules (EX001, EX005-7, FB005)": lambda v, p, t, d: _call_rules(d, p[0], t),
        "FB004 grounding": lambda v, p, t, d: _ungrounded(d, v["messages"], p[2], p[0]),
        "approvals (CF)": lambda v, p, t, d: _approvals(v["messages"], p[0], t, v),
    }
    for label, step in steps.items():
        start = clock()
        for v, p, t in zip(values, paired, tools, strict=True):
            step(v, p, t, Verdict())
        costs[label] = clock() - start
    assert all(shaped)
    for label, seconds in costs.items():
        print(f"    {label:<40} {seconds:5.2f} s")


def main(path: Path) -> int:
    lines = _lines(path)
    size = sum(map(len, lines))
    sys.path.insert(0, str(ROOT / "bench"))
    from stages import floor

    parse = min(floor(path) for _ in range(3))
    decode = min(timed_pass(lines, False)[0] for _ in range(3))
    runs = [timed_pass(lines, True) for _ in range(3)]
    both, verdicts = min(runs, key=lambda r: r[0])
    whole, report, found = min((truth(path) for _ in range(2)), key=lambda r: r[0])
    ids = [orjson.loads(line).get("id") for line in lines]
    n = len(lines)
    full = sum(v.full for v in verdicts)
    clean = [not v.full and not v.could for v in verdicts]
    dirty_bytes = sum(len(line) for line, c in zip(lines, clean, strict=True) if not c)
    print(f"{path.name}: {size / 1e6:.0f} MB, {n} conversations")
    print(f"  floor (orjson lines + arguments)  {parse:6.2f} s")
    print(f"  orjson lines                      {decode:6.2f} s")
    print(f"  orjson lines + pre-pass           {both:6.2f} s   (pre-pass {both - decode:.2f} s)")
    print(f"  whole audit, in process           {whole:6.2f} s   {parse / whole:.3f}x")
    print(f"  proved clean: {sum(clean)} of {n} ({sum(clean) / n:.1%}); full path: {full}")
    print(f"  bytes left to the full path: {dirty_bytes / size:.1%}")
    projected = both + (whole - decode) * dirty_bytes / size
    print(f"  projected: {projected:.2f} s  {parse / projected:.3f}x (clean = decode + pre-pass)")
    could = Counter(code for v in verdicts for code in v.could)
    fires = Counter(code for codes in found.values() for code in codes)
    misses = 0
    print("  rule   could  fires   (conversations)")
    for code in sorted(set(could) | set(fires)):
        print(f"  {code}  {could[code]:6d} {fires[code]:6d}")
    for conversation, v in zip(ids, verdicts, strict=True):
        missed = found.get(conversation, set()) - v.could
        if missed and not v.full:
            misses += 1
            print(f"  MISS!!! {conversation}: {sorted(missed)} fire, the pre-pass said clean")
    _facts(verdicts, report)
    checked = screened(path)
    ideal = sum(1 for i in ids if not checked.get(i))
    print(f"  the engine's own screens and requirements leave clean: {ideal} of {n}")
    screens = Counter(code for codes in checked.values() for code in codes)
    print("  rule   pre-pass could   engine checks   fires")
    for code in sorted(set(could) | set(screens) | set(fires)):
        print(f"  {code}  {could[code]:14d}  {screens[code]:14d}  {fires[code]:6d}")
    stronger = Counter(
        code
        for conversation, v in zip(ids, verdicts, strict=True)
        for code in checked.get(conversation, set()) - v.could
    )
    print(f"  rules the pre-pass rules out where the engine's screen does not: {dict(stronger)}")
    print("  pre-pass by part:")
    parts(lines)
    print(f"  misses: {misses}")
    return 1 if misses else 0


def _facts(verdicts: list[Verdict], report: Any) -> None:
    """What the report needs from every conversation, from the pre-pass and from the engine."""
    turns = sum(v.assistant_turns for v in verdicts)
    declared = sum(v.declared for v in verdicts)
    print(f"  assistant turns: pre-pass {turns}, engine {report.counts.assistant_turns}")
    print(f"  tools declared:  pre-pass {declared}, engine {report.counts.tools_declared}")
    skipped = Counter(s for v in verdicts for s in v.skipped)
    gaps = {(g.family, g.reason): g.conversations for g in report.gaps}
    mine: dict[tuple[str, str], set[int]] = defaultdict(set)
    for i, v in enumerate(verdicts):
        for code, reason in v.skipped:
            mine[(code[:2], reason)].add(i)
    for key_, count in sorted(gaps.items()):
        print(f"  gap {key_}: pre-pass {len(mine.get(key_, ()))}, engine {count}")
    print(f"  skipped (rule, reason) pairs: {sum(skipped.values())}")


def fixtures(root: Path) -> int:
    """Every OpenAI-chat line of the fixtures audited alone by the engine and screened by the
    pre-pass: a rule that fires where the pre-pass said clean is a MISS. The shape of the
    equivalence test a landed pre-pass would need (run on more than the bench's one shape)."""
    import tempfile

    from auditor import config, engine
    from auditor.formats import openai

    settings = config.build()
    seen = clean = misses = 0
    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp) / "one.jsonl"
        for path in sorted(root.rglob("*.jsonl")):
            for number, line in enumerate(path.read_bytes().splitlines(), 1):
                try:
                    value = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                if type(value) is not dict or type(value.get("messages")) is not list:
                    continue
                verdict = could_fire(value)
                if verdict.full:
                    continue
                one.write_bytes(line + b"\n")
                report = engine.audit([str(one)], settings)
                if any(f.code.startswith("IN") for f in report.findings):
                    continue  # not OpenAI chat after all, or a record the format rejects
                if report.counts.conversations != 1 or not openai.detect:
                    continue
                seen += 1
                clean += not verdict.could
                missed = {f.code for f in report.findings} - verdict.could
                if missed:
                    misses += 1
                    print(f"  MISS!!! {path}:{number}: {sorted(missed)} fire, pre-pass said clean")
    print(f"  fixtures: {seen} OpenAI-chat conversations, {clean} proved clean, misses: {misses}")
    return 1 if misses else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--fixtures"]:
        sys.exit(fixtures(Path(sys.argv[2])))
    sys.exit(main(Path(sys.argv[1])))
