"""Replay pairs approvals with the calls they gate, once; the CF rules only read the pairing.

The explicit sources (Responses `mcp_approval_request`/`mcp_approval_response`/`mcp_call`,
stream `approval_request`/`approval_response`, Claude Code rejections) arrive through formats
that live elsewhere: these tests build the normalised model those formats produce.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from unittest import mock

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor import config, engine
from auditor.common.errors import ConfigError
from auditor.model import (
    ApprovalDecision,
    ApprovalRequest,
    Conversation,
    Message,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from auditor.replay import replay
from auditor.replay.approvals import ApprovalOptions, asks_to_confirm, verdict
from auditor.replay.approvals.policy import read as read_policy
from auditor.replay.approvals.replies import instructed, waives
from auditor.rules import REQUIREMENTS
from auditor.rules import approved_arguments_changed as cf001
from auditor.rules import approved_arguments_reformatted as cf002
from auditor.rules import confirmation_loop as cf004
from auditor.rules import unapproved_execution as cf003
from tests.helpers import FIXTURES, conv, examples, msg

SHORT_URL = '{"url": "https://ai-sdk.dev/", "max_clicks": 100}'


def call(cid, name="create_short_url", raw=SHORT_URL, request_id=None) -> ToolCall:
    return ToolCall(cid, name, orjson.loads(raw), raw, approval_request_id=request_id)


def ask(i, rid="r1", raw=SHORT_URL, call_id=None, name="create_short_url") -> Message:
    return msg(i, "approval", request=ApprovalRequest(rid, call_id, name, raw))


def answer(i, approved=True, rid="r1", arguments=None) -> Message:
    return msg(i, "approval", decision=ApprovalDecision(rid, approved, arguments))


def executed(i, raw, request_id="r1") -> Message:
    return msg(i, "assistant", calls=[call("mcp_1", raw=raw, request_id=request_id)])


def result(i, cid, text="ok") -> Message:
    return msg(i, "tool", result=ToolResult(cid, text))


def findings(rule, conversation, options=None):
    options = options or ApprovalOptions()
    return [(v.turn, v.message) for v in rule.check(replay(conversation, options), options)]


def test_responses_request_decision_and_mcp_call_pair_by_id():
    c = conv(
        msg(0, "user", "shorten https://ai-sdk.dev/"),
        ask(1),
        answer(2),
        msg(3, "assistant", calls=[call("mcp_1", request_id="r1")]),
        result(4, "mcp_1", "Short URL created"),
    )
    (a,) = replay(c).approvals
    assert (a.source, a.approved, a.decided_at, a.execution.turn) == ("explicit", True, 2, 3)
    assert a.arguments == {"url": "https://ai-sdk.dev/", "max_clicks": 100}
    for rule in (cf001, cf002, cf003, cf004):
        assert findings(rule, c) == []


def test_mcp_call_naming_its_request_was_approved_by_the_api():
    # The mcp_approval_response lived in the next request body, which this log does not hold.
    c = conv(ask(0), msg(1, "assistant", calls=[call("mcp_1", request_id="r1")]))
    (a,) = replay(c).approvals
    assert a.approved is True and a.decision is None
    assert findings(cf003, c) == []


def test_an_edit_that_changes_the_arguments_on_purpose_is_not_drift():
    edited = '{"url": "https://ai-sdk.dev/docs", "max_clicks": 5}'
    c = conv(ask(0), answer(1, arguments=edited), executed(2, edited))
    (a,) = replay(c).approvals
    assert a.edited and a.arguments == orjson.loads(edited)
    assert findings(cf001, c) == []
    assert findings(cf002, c) == []


def test_a_call_that_differs_from_the_edit_is_compared_with_the_edit():
    edited = '{"url": "https://ai-sdk.dev/docs", "max_clicks": 5}'
    ran = '{"url": "https://ai-sdk.dev/", "max_clicks": 5}'
    c = conv(ask(0), answer(1, arguments=edited), executed(2, ran))
    assert findings(cf001, c) == [
        (
            2,
            "`create_short_url` ran with arguments that differ from the arguments the user "
            'edited and approved at turn 1: `url` "https://ai-sdk.dev/docs" → '
            '"https://ai-sdk.dev/"',
        )
    ]


def test_executed_arguments_that_differ_from_the_request_list_each_path():
    ran = '{"url": "https://evil.example/", "max_clicks": 100, "alias": "x"}'
    c = conv(ask(0), answer(1), executed(2, ran))
    assert findings(cf001, c) == [
        (
            2,
            "`create_short_url` ran with arguments that differ from the arguments approved for "
            'the request at turn 0: `alias` (missing) → "x"; `url` "https://ai-sdk.dev/" → '
            '"https://evil.example/"',
        )
    ]


def test_reformatted_request_text_is_cf002_not_cf001():
    ran = '{"max_clicks": 100.0, "url": "https://ai-sdk.dev/"}'
    c = conv(ask(0), answer(1), executed(2, ran))
    assert findings(cf001, c) == []
    assert findings(cf002, c) == [
        (
            2,
            "`create_short_url` ran with the approved arguments (turn 0) written differently: "
            "key order, number form at `max_clicks` (100 → 100.0); a confirmation keyed on the "
            "text of the arguments no longer matches",
        )
    ]


def test_stream_events_gate_a_call_logged_before_the_request():
    def run(approved, outcome="done", arguments=None):
        return conv(
            msg(0, "assistant", calls=[call("c1")]),
            ask(1, call_id="c1"),
            answer(2, approved, arguments=arguments),
            result(3, "c1", outcome),
        )

    (a,) = replay(run(True)).approvals
    assert a.execution is not None and a.execution.turn == 0
    assert findings(cf003, run(True)) == []
    denied = "`create_short_url` ran after the user denied it at turn 2"
    assert findings(cf003, run(False)) == [(0, denied)]
    # The logged call predates the edit, so it still shows what the user was asked about.
    assert findings(cf001, run(True, arguments='{"url": "https://x.example/"}')) == []


def test_a_request_without_a_decision_followed_by_its_call_is_cf003():
    c = conv(
        msg(0, "assistant", "I need approval"),
        ask(1, call_id="c9"),
        msg(2, "assistant", calls=[call("c9")]),
        result(3, "c9"),
    )
    assert findings(cf003, c) == [
        (2, "`create_short_url` ran with no decision on the approval it asked for at turn 1")
    ]


def test_a_request_without_call_id_pairs_with_the_next_call_of_its_tool():
    c = conv(
        ask(0),
        answer(1, False),
        msg(2, "assistant", calls=[call("x", name="other_tool"), call("c2")]),
    )
    (a,) = replay(c).approvals
    assert a.execution.call.id == "c2"
    assert findings(cf003, c) == [(2, "`create_short_url` ran after the user denied it at turn 1")]


def test_the_same_call_asked_again_after_approval_is_a_loop_but_not_after_it_ran():
    reformatted = '{"max_clicks": 100, "url": "https://ai-sdk.dev/"}'
    loop = conv(ask(0, "r1"), answer(1, rid="r1"), ask(2, "r2", raw=reformatted))
    assert findings(cf004, loop) == [
        (
            2,
            "`create_short_url` asks for approval again at turn 2, after the user approved it "
            "at turn 1 (asked at turn 0); the approval never reached the call",
        )
    ]
    ran_first = conv(
        ask(0, "r1"),
        answer(1, rid="r1"),
        msg(2, "assistant", calls=[call("m1", request_id="r1")]),
        ask(3, "r2"),
    )
    assert findings(cf004, ran_first) == []
    denied_first = conv(ask(0, "r1"), answer(1, False, rid="r1"), ask(2, "r2"))
    assert findings(cf004, denied_first) == []


def test_a_claude_code_rejection_is_an_approval_seen_and_not_an_execution():
    rejected = "The user doesn't want to proceed with this tool use."
    bash = call("toolu_1", name="Bash", raw='{"command": "rm -rf build"}')
    c = conv(
        msg(0, "assistant", calls=[bash]),
        msg(
            1,
            "tool",
            rejected,
            result=ToolResult("toolu_1", rejected),
            decision=ApprovalDecision("toolu_1", False),
        ),
    )
    r = replay(c)
    (a,) = r.approvals
    assert (a.approved, a.execution) == (False, None)
    assert REQUIREMENTS["approvals"][0](r)
    assert findings(cf003, c) == []


def test_require_approval_makes_unconfirmed_calls_cf003_and_a_yes_approves_them():
    options = ApprovalOptions(require_approval=("cancel_*",))
    booking = (
        msg(0, "user", "I want to cancel my trip."),
        msg(1, "assistant", calls=[call("c1", name="cancel_reservation", raw='{"id": "K1NW8N"}')]),
        result(2, "c1"),
    )
    assert findings(cf003, conv(*booking), options) == [
        (
            1,
            "`cancel_reservation` ran without approval: `require-approval` names it "
            "(`cancel_*`) and no confirmation from the user came since the last such call",
        )
    ]
    assert findings(cf003, conv(*booking)) == []  # nothing is required by default
    confirmed = (
        msg(0, "user", "Cancel K1NW8N"),
        msg(1, "assistant", "Cancel reservation K1NW8N? Please confirm."),
        msg(2, "user", "Yes, cancel it."),
        msg(3, "assistant", calls=[call("c1", name="cancel_reservation", raw='{"id": "K1NW8N"}')]),
        msg(4, "assistant", calls=[call("c2", name="cancel_reservation", raw='{"id": "Q69X3R"}')]),
    )
    sources = [(a.source, a.approved) for a in replay(conv(*confirmed), options).approvals]
    assert sources == [("natural-language", True), ("natural-language", True)]
    unclear = (
        msg(0, "assistant", "Shall I cancel K1NW8N?"),
        msg(1, "user", "Use the refund for my next trip."),
        msg(2, "assistant", calls=[call("c1", name="cancel_reservation", raw='{"id": "K1NW8N"}')]),
    )
    assert findings(cf003, conv(*unclear)) == []
    assert findings(cf003, conv(*unclear), options) == [
        (
            2,
            "`cancel_reservation` ran without a clear yes: `require-approval` names it "
            "(`cancel_*`) and the user's answer at turn 1 to the confirmation asked at turn 0 "
            "is neither yes nor no",
        )
    ]


def test_options_accept_lists_merge_across_rules_and_reject_bad_patterns():
    merged = ApprovalOptions.merge(
        [None, ApprovalOptions(["book_*"]), ApprovalOptions(("book_*", "cancel_*"))]
    )
    assert merged.require_approval == ("book_*", "cancel_*")
    assert ApprovalOptions.merge([None]) == ApprovalOptions()
    with pytest.raises(ConfigError, match="invalid pending-patterns entry `awaiting \\(`"):
        ApprovalOptions(pending_patterns=["awaiting ("])


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Yes, please proceed.", True),
        ("Oui, please proceed with canceling. Merci!", True),
        ("Hmm, maybe I mixed things up. I guess you're right. Yes, please proceed.", True),
        ("Change of plan. Please go ahead with the cancellation.", True),
        ("No.", False),
        ("No, keep it.", False),
        ("No, move me to HAT137 instead.", None),
        ("No, please proceed without insurance.", None),
        ("I'll use the Visa ending in 6437.", None),
        # a grudging yes: the complaint first, then the yes that ends it
        ("No way, that is not what I hoped for! But fine, go ahead.", True),
        ("No problem, go ahead.", True),
        # "go ahead" inside a longer turn
        ("It is a change of plan. I'd still like you to go ahead with the cancellation.", True),
    ],
)
def test_verdict(reply, expected):
    assert verdict(reply) is expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Please cancel both of these reservations.", {"cancel"}),
        ("I would like to cancel all of these reservations, s'il vous plaît.", {"cancel"}),
        ("Thanks! Before we finish, could you also add 1 checked bag?", {"add"}),
        ("No, move me to HAT137 on May 21 instead.", {"change"}),
        ("Let's go ahead and book the JFK to SFO flight.", {"book"}),
        ("Please make that change for me.", set()),
        ("I don't want to cancel it.", None),
        ("If you could cancel it, what would the refund be?", None),
        ("How do we proceed with that?", None),
        ("Can you tell me the baggage policy?", None),
    ],
)
def test_instructed(reply, expected):
    found = instructed(reply)
    assert (None if found is None else set(found)) == expected


def test_a_policy_asking_for_an_explicit_yes_is_told_from_one_asking_for_any():
    tau = "you must list the action details and obtain explicit user confirmation (yes) to proceed"
    strict = read_policy(conv(msg(0, "system", f"Before booking or cancelling, {tau}.")))
    assert strict.explicit and strict.explicitly("cancel_reservation")
    assert not strict.explicitly("get_reservation_details")
    loose = read_policy(conv(msg(0, "system", "Get the user's confirmation before cancelling.")))
    assert loose.requires("cancel_order") and not loose.explicitly("cancel_order")


@pytest.mark.parametrize(
    ("reply", "waived"),
    [
        ("No need to check with me, just do it.", True),
        ("You don't have to ask, go ahead with everything.", True),
        ("Book it without asking me again.", True),
        ("I approve everything in advance.", True),
        ("Please cancel both reservations.", False),
        ("Yes, go ahead.", False),
        ("I need to check with my wife first.", False),
    ],
)
def test_a_standing_instruction_waives_confirmation(reply, waived):
    assert waives(reply) is waived


def test_the_logs_own_policy_requires_approval_where_it_says_so():
    prompt = (
        "# Airline Agent Policy\n\nBefore taking any actions that update the booking database "
        "(booking, modifying flights, editing baggage, changing cabin class, or updating "
        "passenger information), you must list the action details and obtain explicit user "
        "confirmation (yes) to proceed.\n\nYou should deny requests against this policy."
    )
    policy = read_policy(conv(msg(0, "system", prompt)))
    quoted = (
        "the log's policy requires it (system prompt: “you must list the action details and "
        "obtain explicit user confirmation (yes) to proceed”)"
    )
    assert policy.requires("update_reservation_flights") == quoted
    assert policy.requires("cancel_reservation") == quoted  # it updates the booking database
    assert policy.requires("book_reservation") == quoted
    assert policy.requires("send_certificate") == ""  # adds a record, named by no verb
    assert policy.requires("get_reservation_details") == ""
    # a rule that names its writes covers those only
    named = read_policy(conv(msg(0, "system", "Obtain explicit user confirmation before booking.")))
    assert named.requires("book_flight") and not named.requires("cancel_flight")
    # tau2 keeps the policy beside the messages
    kept = dataclasses.replace(conv(msg(0, "user", "hi")), instructions=prompt)
    assert (
        read_policy(kept)
        .requires("cancel_reservation")
        .startswith("the log's policy requires it (policy: “you must list")
    )
    # a tool's own description
    tool = ToolSpec(
        "cancel_pending_order",
        "Cancel a pending order. The agent needs to explain the cancellation detail and ask "
        "for explicit user confirmation (yes/no) to proceed. Refunds take 5 days.",
    )
    described = read_policy(dataclasses.replace(conv(), tools=(tool, ToolSpec("modify_order"))))
    assert described.requires("cancel_pending_order") == (
        "the description of `cancel_pending_order` requires it (“The agent needs to explain the "
        "cancellation detail and ask for explicit user confirmation (yes/no) to proceed.”)"
    )
    assert described.requires("modify_order") == ""
    assert (
        read_policy(conv(msg(0, "system", "You are a helpful agent."))).requires("cancel_x") == ""
    )


def test_asks_to_confirm():
    assert asks_to_confirm("Please confirm if you would like to proceed with this change.")
    assert asks_to_confirm("Can you confirm with a 'yes' that you would like me to proceed?")
    assert asks_to_confirm("Would you like to use your credit card ending in 9725?")
    assert not asks_to_confirm("Please let me know which flight you would like to book.")
    # A question that asks what to do supplies the action; it approves none.
    assert not asks_to_confirm("Order ORD-010 is open. What changes would you like to make?")
    assert not asks_to_confirm("Okay, which reservation would you like to cancel?")
    assert not asks_to_confirm("How many bags would you like to add?")
    # ... while a yes-or-no question after one still asks to confirm
    assert asks_to_confirm("What a trip! Would you like me to cancel it?")
    assert asks_to_confirm("Which is HAT001. Would you like to proceed with the change?")


def test_the_engine_gives_replay_the_cf_rules_options():
    settings = config.build(select=["CF003"])
    options = ApprovalOptions(require_approval=("cancel_*", "update_*"))
    settings = dataclasses.replace(settings, options={"CF003": options})
    good = FIXTURES / "rules" / "CF003" / "good_approved_or_answered.jsonl"
    report = engine.audit([str(good)], settings)
    assert [(f.conversation, f.turn, f.code) for f in report.findings] == [
        ("no-config-no-confirmation", 1, "CF003"),
    ]


def test_the_demo_log_shows_bad_arguments_and_approval_drift():
    report = engine.audit(
        [str(FIXTURES / "demo" / "agent-runs.jsonl")],
        config.build(select=["EX005", "EX006", "EX007", "CF"]),
    )
    assert [(f.conversation, f.line, f.turn, f.code, f.call_id) for f in report.findings] == [
        ("bad-arguments-005", 5, 1, "EX007", "call_p"),
        ("bad-arguments-005", 5, 1, "EX006", "call_r"),
        ("bad-arguments-005", 5, 1, "EX005", "call_o"),
        ("approval-drift-006", 6, 4, "CF001", "call_b1"),
        ("reformatted-approval-014", 14, 5, "CF002", "call_t2"),
        ("unapproved-015", 15, 3, "CF003", "call_u2"),
        ("confirmation-loop-016", 16, 6, "CF004", "call_w2"),
    ]
    assert report.findings[3].message == (
        "`book_reservation` ran with arguments that differ from what the user confirmed "
        "(asked at turn 2, yes at turn 3): `payment_id` “credit_card_4421” → `gift_card_7710`"
    )


def test_ragbits_loop_reports_the_reformatted_call_as_the_cause_beside_the_loop():
    # ragbits keys its confirmation on a hash of the arguments: the model re-emits the approved
    # call with its keys reordered, the hash no longer matches, and it asks again. CF004 is the
    # symptom; CF002 on the re-emitted call is what the user must fix.
    report = engine.audit(
        [str(FIXTURES / "rules" / "CF004" / "bad_pattern_reask.jsonl")], config.build(select=["CF"])
    )
    assert [(f.turn, f.code, f.call_id) for f in report.findings] == [
        (4, "CF002", "c2"),
        (5, "CF004", "c2"),
        (7, "CF002", "c3"),
        (8, "CF004", "c3"),
    ]
    assert report.findings[0].message == (
        "`send_email` was sent again with the approved arguments (turn 2) written differently: "
        "key order; a confirmation keyed on the text of the arguments no longer matches, and "
        "asked for approval again at turn 5"
    )


def test_claude_code_rejections_are_denied_approvals_not_executions():
    # Two tool uses the person rejected at Claude Code's permission prompt: nothing ran.
    path = FIXTURES / "formats" / "stream" / "claude-code-short.jsonl"
    report = engine.audit([str(path)], config.build(select=["CF", "LP", "EX001", "EX002"]))
    assert report.findings == ()
    from auditor import formats, sources
    from auditor.replay import replay

    reader = formats.FileReader()
    source = sources.Source(str(path), "jsonl", False, True)
    conversations = [c for r in sources.read(source) for c in reader.feed(r)]
    conversations += list(reader.finish())
    (conversation,) = [c for c in conversations if not isinstance(c, formats.Problem)]
    denied = [a for a in replay(conversation).approvals if a.approved is False]
    assert [a.name for a in denied] == ["Bash", "Glob"]
    assert all(a.execution is None for a in denied)


def test_each_approval_request_is_keyed_once_not_against_every_earlier_one(monkeypatch):
    # 860 KB of approved requests of one tool took 118 s when each new request re-canonicalised
    # every earlier approved one. The work must grow with the requests, not their
    # square: count the canonical keys computed, never the time.
    from auditor import canonical

    computed = 0
    real_key = canonical.key

    def counting_key(value):
        nonlocal computed
        computed += 1
        return real_key(value)

    monkeypatch.setattr(canonical, "key", counting_key)

    def keys_for(n: int) -> int:
        nonlocal computed
        messages = []
        for i in range(n):
            raw = f'{{"url": "https://example.com/{i}", "max_clicks": {i}}}'
            messages += [ask(2 * i, f"r{i}", raw=raw), answer(2 * i + 1, rid=f"r{i}")]
        computed = 0
        r = replay(conv(*messages))
        assert all(a.approved and a.asked_again is None for a in r.approvals)
        return computed

    assert keys_for(200) <= 2 * 200
    assert keys_for(800) <= 2 * 800


@pytest.mark.skipif(
    importlib.util.find_spec("re2") is not None, reason="google-re2 runs any pattern linearly"
)
@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        # 37 s on a 29-character result before the fix: exponential backtracking
        ("(a+)+$", "a quantifier over a group that repeats or alternates"),
        ("(a|ab)*c", "a quantifier over a group that repeats or alternates"),
        (r"(\w+) \1", "a backreference"),
        (".*.*x", "its repeats multiply"),
        (r"awaiting\s+(user\s+)?approval", "its repeats multiply"),
    ],
)
def test_pending_patterns_that_could_backtrack_are_refused(pattern, why):
    with pytest.raises(ConfigError) as raised:
        ApprovalOptions(pending_patterns=[pattern])
    message = str(raised.value)
    assert message.startswith(f"pending-patterns entry `{pattern}` could take more than linear")
    assert why in message and "install google-re2" in message


@pytest.mark.parametrize(
    "pattern",
    [
        "confirmation_required",
        "awaiting (user )?approval",
        r"requires? (user )?confirmation",
        r"awaiting\s+(user\s{1,4})?approval",
        r"status.{0,40}pending",
        "pending.*approval",
        "(?:please )+confirm",
    ],
)
def test_pending_patterns_that_run_in_linear_time_are_accepted(pattern):
    assert ApprovalOptions(pending_patterns=[pattern]).pending_patterns == (pattern,)


_PIECES = [
    "May 20th",
    "the twentieth of ",
    "Sep",
    "ſept",
    "SEPT ",
    "Dec. 3",
    "2024-05-20",
    "5/20/2024",
    "Visa ending in 7447",
    "credit_card_4421486",
    "gift card",
    "PayPal",
    "BANK_12",
    "on file",
    "K1NW8N",
    "#W2378156",
    "mia_li_3668",
    "1008292230",
    "ı",
    "İ",
    "K",
    "١٢٣٤٥٦",
    " ",
    "\n",
    ", ",
    "the card",
    "same payment",
    "AMERICAN express",
    "1234 discover",
    "certificate",
    "$45",
    "twelve bags",
    "ſix bags",
    "TWO extra ",
    "someone ",
    "mia@example.com",
    "_",
]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join))
def test_value_prefilters_change_nothing(text):
    """The cheap tests before the value patterns skip only texts no pattern matches."""
    from auditor.reading import values

    with mock.patch.object(values, "_DATES_IN_DIGITS", values._DATES):  # no month test
        dates = list(values._dates_in(text))
    assert list(values._dates_in(text)) == dates
    assert bool(list(values.payments_in(text))) == bool(
        values._PAYMENT_ID.search(text) or values._PAYMENT_TEXT.search(text)
    )
    ids = [values._CODE, values._PREFIXED, values._NUMBER_ID]
    if values._DIGIT.search(text) is None:  # where `_ids_in` stops at once
        assert not any(p.search(text) for p in ids)
        assert list(values._dates_in(text, False)) == dates
        if not values._may_count(text):  # where `in_text` reads no quantity
            assert values._QUANTITY.search(text) is None
    if "_" not in text:
        assert values._PREFIXED.search(text) is None
    if "@" not in text:
        assert values._EMAIL.search(text) is None


def test_plain_language_pairing_reads_each_text_and_result_once(monkeypatch):
    # The approval walk of tau-bench once read a proposal's text whole and again per option,
    # the same listing again when the agent repeated it, and each call's result twice. Count
    # the readings, never the time: once per conversation, however often a text recurs.
    from collections import Counter

    from auditor import formats, sources
    from auditor.reading import values
    from auditor.replay.approvals import records

    texts: Counter[str] = Counter()
    results: Counter[str] = Counter()
    in_text, parse = values.in_text, records._json

    def counting_in_text(text: str) -> list:
        texts[text] += 1
        return in_text(text)

    def counting_parse(text: str) -> object:
        results[text] += 1
        return parse(text)

    monkeypatch.setattr(values, "in_text", counting_in_text)
    monkeypatch.setattr(records, "_json", counting_parse)
    conversations = []
    for name in ("tau-bench-gpt-4o-airline-excerpt.json", "tau2-bench-excerpt.json"):
        path = str(FIXTURES / "formats" / "tau" / name)
        reader = formats.FileReader()
        read = sources.read(sources.Source(path, *sources.kind_of(path), True))
        found = [*(c for r in read for c in reader.feed(r)), *reader.finish()]
        conversations += [c for c in found if isinstance(c, Conversation)]
    assert len(conversations) >= 3
    approvals = read = 0
    for conversation in conversations:
        texts.clear()
        results.clear()
        approvals += len(replay(conversation).approvals)
        assert max(texts.values(), default=1) == 1
        assert results.total() <= sum(m.result is not None for m in conversation.messages)
        read += len(texts)
    assert approvals > 0 and read > 0
