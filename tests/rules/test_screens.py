"""Screens (`Rule.screen`) only skip work: with them, every report is the one without them.

- every fixture (rules, formats, demo, tools, html), with the default rules and with options,
  selections, `--tools`, per-file ignores, timelines and a baseline: byte-identical JSON;
- the real logs under ../shared (skipped where they are absent): byte-identical JSON;
- generated and mutated OpenAI conversations: whenever a rule's screen says no, its check
  finds nothing (a property, per rule).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from auditor import config, engine
from auditor.commands import baseline
from auditor.config import Settings
from auditor.formats import openai
from auditor.model import Conversation, Location
from auditor.replay import ApprovalOptions, replay
from auditor.sources import Record
from tests.helpers import FIXTURES, REALDATA, REALDATA_NEXT, examples, render, requires_realdata


def both(paths: list[str], settings: Settings) -> tuple[str, str]:
    """The JSON report with screens, and without."""
    screened = engine.audit(paths, dataclasses.replace(settings, screens=True))
    full = engine.audit(paths, dataclasses.replace(settings, screens=False))
    return render(screened), render(full)


def _options(**loops_and_approvals) -> dict:
    from auditor.rules import RULES

    made = {}
    for rule in RULES:
        if rule.options is None:
            continue
        fields = {f.name for f in dataclasses.fields(rule.options)}
        given = {k: v for k, v in loops_and_approvals.items() if k in fields}
        if given:
            made[rule.code] = rule.options(**given)
    return made


VARIANTS = {
    "default": {},
    "timelines": {"timelines": True},
    "options": {
        "options": _options(
            min_repeats=2,
            exempt_tools=("get_*", "search*"),
            require_approval=("book_*", "cancel_*", "update_*"),
            pending_patterns=("confirm", "please approve"),
        )
    },
    "few-rules": {"rules": config.build(select=["LP", "FB00", "EX003", "CF"]).rules},
    "per-file-ignores": {"per_file_ignores": (("*.jsonl", frozenset({"LP004", "FB003"})),)},
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_fixtures_are_the_same_with_and_without_screens(variant):
    settings = dataclasses.replace(config.build(), **VARIANTS[variant])
    screened, full = both([str(FIXTURES)], settings)
    assert '"findings": [\n    {' in screened, "the fixtures must give findings"
    assert screened == full


def test_given_tools_and_baselines_are_the_same(tmp_path):
    settings = config.build(tools=str(FIXTURES / "tools" / "openai-tools.json"))
    screened, full = both([str(FIXTURES)], settings)
    assert screened == full
    report = engine.audit([str(FIXTURES)], settings)
    baseline.write(str(tmp_path / "base.json"), report.findings[::2])
    accepted = baseline.load(str(tmp_path / "base.json"))
    applied = [
        render(
            baseline.apply(engine.audit([str(FIXTURES)], replace_screens(settings, s)), accepted)
        )
        for s in (True, False)
    ]
    assert applied[0] == applied[1]


def replace_screens(settings: Settings, screens: bool) -> Settings:
    return dataclasses.replace(settings, screens=screens)


def _realdata(root: Path) -> list[str]:
    return [str(p) for p in sorted(root.iterdir()) if not p.name.startswith(".")]


@requires_realdata
@pytest.mark.parametrize("root", [REALDATA, REALDATA_NEXT], ids=["realdata", "realdata-next"])
def test_real_logs_are_the_same_with_and_without_screens(root):
    if not root.is_dir():
        pytest.skip(f"{root} is not present")
    screened, full = both(_realdata(root), config.build())
    assert screened == full


# Generated and mutated conversations: OpenAI chats from the fixtures (every rule's bad and
# good cases, the demo), cut and mixed, and chats put together from fragments that trigger
# each rule, so that screens meet conversations on both sides of their tests.


def _seeds() -> list[dict]:
    found = []
    paths = [
        *sorted((FIXTURES / "rules").glob("*/*.jsonl")),
        FIXTURES / "demo" / "agent-runs.jsonl",
    ]
    for path in paths:
        for line in path.read_bytes().splitlines():
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(value, dict) and isinstance(value.get("messages"), list):
                found.append(value)
    return found


SEEDS = _seeds()
MESSAGES = [m for s in SEEDS for m in s["messages"] if isinstance(m, dict)]
TEXTS = sorted({m["content"] for m in MESSAGES if isinstance(m.get("content"), str)})
CALLS = [c for m in MESSAGES for c in m.get("tool_calls") or () if isinstance(c, dict)]
TOOLS = [s["tools"] for s in SEEDS if isinstance(s.get("tools"), list)]
FRAGMENTS = [
    'Action: search\nAction Input: {"q": 1}\nObservation: found it\nFinal Answer: 4',
    '<tool_call>{"name": "f", "arguments": {}}</tool_call><tool_response>ok</tool_response>',
    "Your reservation ABC123 has been cancelled.",
    "I've sent the e-mail and the booking has been completed.",
    "I will use mock data for this. The total is 42.",
    "The total is 42 dollars, and the average price is 12.",
    "<|channel|>final<|message|>Done<|end|>",
    '[TOOL_CALLS][{"name": "f", "arguments": {}}]',
    "Shall I proceed with booking HAT001 on 2024-05-20 paid with card_1?",
    "Yes, please.",
    "confirmation_required: please approve",
    'An error occurred while executing tool "f".',
    "Error: payment amount does not add up",
    "I'm sorry, I can't change the name on a basic economy ticket today.",
    "I am sorry, I cannot change the name on a basic economy ticket.",
    "YOUR_API_KEY",
    "assistantfinal The answer is 3",
]


@st.composite
def mutated(draw) -> dict:
    """A fixture chat with messages dropped, repeated, moved, or taken from another."""
    seed = draw(st.sampled_from(SEEDS))
    messages = list(seed["messages"])
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["drop", "repeat", "move", "borrow", "text", "result"]))
        if not messages and kind != "borrow":
            continue
        i = draw(st.integers(0, max(len(messages) - 1, 0)))
        if kind == "drop":
            del messages[i]
        elif kind == "repeat":
            run = messages[i : i + draw(st.integers(1, 3))]
            messages[i:i] = run * draw(st.integers(1, 3))
        elif kind == "move":
            messages.insert(draw(st.integers(0, len(messages))), messages.pop(i))
        elif kind == "borrow":
            messages.insert(i, draw(st.sampled_from(MESSAGES)))
        elif isinstance(messages[i], dict):
            pool = TEXTS + FRAGMENTS
            key = "content"
            messages[i] = {**messages[i], key: draw(st.sampled_from(pool))}
    tools = draw(st.sampled_from([seed.get("tools"), None, *TOOLS[:5]]))
    made = {"id": "mutated", "messages": messages}
    if tools is not None:
        made["tools"] = tools
    return made


RESULTS = [
    "ok",
    "Error: payment amount does not add up",
    "Error: payment amount 120 does not add up",
    "An error occurred while executing tool.",
    "confirmation_required",
    '{"status": "cancelled"}',
]


@st.composite
def loop(draw, n: int) -> list[dict]:
    """Calls repeated in a cycle of one to three, with the same or other arguments and results:
    what the loop rules look for, and their nearest misses."""
    period = draw(st.integers(1, 3))
    steps = [dict(draw(st.sampled_from(CALLS))) for _ in range(period)]
    varied = draw(st.booleans())
    messages: list[dict] = []
    for k in range(draw(st.integers(2, 4)) * period):
        call = dict(steps[k % period])
        if varied and isinstance(call.get("function"), dict):
            other = draw(st.sampled_from(CALLS)).get("function")
            if isinstance(other, dict):
                call["function"] = {**call["function"], "arguments": other.get("arguments")}
        call["id"] = f"l{n}_{k}"
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        result = draw(st.sampled_from(RESULTS)) if varied else RESULTS[k % 2]
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    return messages


@st.composite
def assembled(draw) -> dict:
    """A chat put together from fragments, calls and results of the fixtures."""
    messages: list[dict] = [{"role": "system", "content": draw(st.sampled_from(TEXTS))}]
    for n in range(draw(st.integers(1, 12))):
        role = draw(st.sampled_from(["user", "assistant", "assistant", "tool", "loop"]))
        text = draw(st.sampled_from(TEXTS + FRAGMENTS * 3))
        if role == "loop":
            messages += draw(loop(n))
        elif role == "assistant" and draw(st.booleans()):
            call = dict(draw(st.sampled_from(CALLS)))
            call["id"] = draw(st.sampled_from(["c1", "c2", f"c{n}"]))
            messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
            if draw(st.booleans()):
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
        elif role == "tool":
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": draw(st.sampled_from(["c1", "c2"])),
                    "content": text,
                }
            )
        else:
            messages.append({"role": role, "content": text})
    made = {"id": "assembled", "messages": messages}
    tools = draw(st.sampled_from([None, *TOOLS[:8]]))
    if tools is not None:
        made["tools"] = tools
    return made


def _replays(value: dict, options: ApprovalOptions) -> list:
    record = Record(Location("generated.jsonl", 1), value)
    return [c for c in openai.parse(record) if isinstance(c, Conversation)]


OPTION_SETS = [
    {},
    {"min_repeats": 2, "exempt_tools": ("get_*",)},
    {"require_approval": ("book_*", "cancel_*", "transfer_*"), "pending_patterns": ("confirm",)},
]


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.one_of(mutated(), assembled()), st.sampled_from(OPTION_SETS))
def test_a_screen_that_says_no_means_no_finding(value, given_options):
    from auditor.rules import RULES

    approval = ApprovalOptions(
        **{k: v for k, v in given_options.items() if k in ("require_approval", "pending_patterns")}
    )
    for conversation in _replays(value, approval):
        screened = replay(conversation, approval)
        for rule in RULES:
            if rule.check is None or rule.screen is None:
                continue
            options = _options(**given_options).get(rule.code) or rule.default_options()
            if rule.screen(screened, options):
                continue
            # a fresh replay: the check must not lean on what the screen computed
            found = list(rule.check(replay(conversation, approval), options))
            assert found == [], (rule.code, found)


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(
    st.lists(st.one_of(mutated(), assembled()), min_size=1, max_size=6),
    st.sampled_from(OPTION_SETS),
)
def test_generated_logs_are_the_same_with_and_without_screens(tmp_path, values, given_options):
    path = tmp_path / "generated.jsonl"
    path.write_bytes(b"".join(orjson.dumps(v) + b"\n" for v in values))
    settings_ = dataclasses.replace(config.build(), options=_options(**given_options))
    screened, full = both([str(path)], settings_)
    assert screened == full


_WORDS = [
    "sorry",
    "the",
    "flight",
    "HAT030",
    "May",
    "13",
    "is",
    "full",
    "I",
    "can't",
    "7",
    "DHL",
    "Café",
    "١٢",
]


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.lists(st.sampled_from(_WORDS), min_size=5, max_size=9).map(" ".join),
        min_size=2,
        max_size=12,
    )
)
@example(  # a reply sent again verbatim, past the window
    [
        "alpha bravo charlie delta echo",
        "foxtrot golf hotel india juliet",
        "kilo lima mike november oscar",
        "papa quebec romeo sierra tango",
        "uniform victor whiskey xray yankee",
        "alpha bravo charlie delta echo",
    ]
)
def test_lp004_prefilter_never_hides_a_repeat(texts):
    """LP004's `may_repeat` says no only where every reply has a key of its own, and the
    words it reads are `content_of`'s (what the rule's `_keyed` reuses)."""
    from auditor.rules import _rewordings as lp004

    for text, words, tokens in zip(texts, *lp004.words_of(texts), strict=True):
        numbers = lp004.numbers_in(tokens) if lp004.has_digit(text) else ()
        assert (words.difference(numbers), numbers) == lp004.content_of(text)
    keys = lp004.Rewordings()
    if len({keys.key(text) for text in texts}) < len(texts):
        assert lp004.may_repeat(texts, lp004.words_of(texts)[0])


def _fb004(user_text: str, argument: str, tool_text: str = "ok") -> dict:
    """A user turn, then a call passing `argument` as `order_id`."""
    arguments = orjson.dumps({"order_id": argument}).decode()
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "get_order", "arguments": arguments},
    }
    return {
        "id": "fb004",
        "messages": [
            {"role": "system", "content": "You help customers with their orders."},
            {"role": "user", "content": user_text},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": tool_text},
        ],
    }


def _fb004_screen_and_check(value: dict) -> tuple[bool, list]:
    from auditor.rules import ungrounded_argument as fb004

    (conversation,) = _replays(value, ApprovalOptions())
    said = fb004.screen(replay(conversation), None)
    return said, list(fb004.check(replay(conversation), None))


@pytest.mark.parametrize(
    ("user_text", "argument"),
    [
        ("My order is W2378156.", "W2378156"),  # as written, before a full stop
        ("My order is #w2378156, thanks", "#W2378156"),  # another case, with a `#`
        ("order (W2378156)", "W2378156"),
        (
            "see https://acme.test/orders/W2378156?x=1 please",
            "https://acme.test/orders/W2378156?x=1",
        ),
        ("İ: my order is W2378156", "W2378156"),  # as written: the text need not be lowered
    ],
)
def test_fb004_screen_says_no_for_an_identifier_given_as_a_whole_token(user_text, argument):
    assert _fb004_screen_and_check(_fb004(user_text, argument)) == (False, [])


@pytest.mark.parametrize(
    ("user_text", "argument", "tool_text", "grounded"),
    [
        ("I am xmia_li_3668.", "mia_li_3668", "ok", False),  # inside a longer token
        ("I am mia_li_3668x.", "mia_li_3668", "ok", False),
        ("I have an order.", "mia_li_3668", "found mia_li_3668", False),  # given after the call
        ("I am İmia_li_3668", "mia_li_3668", "ok", False),  # lowering lengthens the text
        ("I am .mia_li_3668", "mia_li_3668", "ok", True),  # the check strips the dot
        ("İ: I am MIA_LI_3668", "mia_li_3668", "ok", True),  # lowering lengthens: blanked
    ],
)
def test_fb004_screen_sends_other_texts_to_the_check(user_text, argument, tool_text, grounded):
    said, found = _fb004_screen_and_check(_fb004(user_text, argument, tool_text))
    assert said is True
    expected = [] if grounded else ["`get_order` was called with `order_id` = `mia_li_3668`"]
    assert [v.message.split(", an id")[0] for v in found] == expected


def test_fb004_screen_leaves_other_written_forms_to_the_check():
    """`ORD-20931` after "20931" is grounded by the check's keys, not by the screen's search."""
    said, found = _fb004_screen_and_check(_fb004("Order 20931 is late.", "ORD-20931"))
    assert (said, found) == (True, [])


_DECOR = ["", "#", ".", "x", "(", ")", "/", "-", "İ", "=", "..", "?", " ", "\n", "ı", "K"]


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(
        ["W2378156", "mia_li_3668", "a.b@c.org", "/srv/app/main.py", "https://x.io/a/b2"]
    ),
    st.lists(st.tuples(st.sampled_from(_DECOR), st.sampled_from(_DECOR)), max_size=3),
    st.sampled_from([str.lower, str.upper, str.title, lambda s: s]),
)
def test_fb004_screen_no_means_the_check_finds_it_grounded(token, decorations, case):
    """Whatever surrounds the identifier in the user's text, a screen that says no agrees
    with the check."""
    text = " and ".join(f"{before}{case(token)}{after}" for before, after in decorations)
    said, found = _fb004_screen_and_check(_fb004(text or "hello", token))
    if not said:
        assert found == []
