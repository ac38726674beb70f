"""FB008's reading of answers (`_facts`) and what it takes as given, where fixtures cannot reach."""

from __future__ import annotations

from decimal import Decimal

import pytest

from auditor.model import UNRECORDED, Conversation, Location, Message, ToolCall, ToolResult
from auditor.replay import replay
from auditor.rules import ungrounded_answer_fact
from auditor.rules._facts import Fact, adds_up, facts

HERE = Location("t.jsonl", 1)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Call +47 23 21 20 00.", [Fact("phone number", "+47 23 21 20 00")]),
        ("Write to ops@acme.test", [Fact("e-mail address", "ops@acme.test")]),
        ("See https://acme.test/orders/42", [Fact("URL", "https://acme.test/orders/42")]),
        ("Your booking reference is ORD-58213.", [Fact("reference", "ORD-58213")]),
        # an id whose tail is long and dashed is a reference, not a phone number
        ("Your service id is SRV-20260330-005.", [Fact("reference", "SRV-20260330-005")]),
        ("Reclamo con el ID **RECL-20260330-001**.", [Fact("reference", "RECL-20260330-001")]),
        ("Llame al 978-555-1212.", [Fact("phone number", "978-555-1212")]),
        (
            "Flight HAT002 costs $240.",
            [Fact("reference", "HAT002"), Fact("price", "$240", Decimal(240))],
        ),
        (
            "ID: [Generated ID, e.g., ABC123]",
            [Fact("template slot", "[Generated ID, e.g., ABC123]")],
        ),
        # not facts: a home page, an id not written as a reference, a date written twice,
        # an example, code, a worked-out price, a hedged sentence
        ("Go to https://www.udi.no/ within the 24-hour window.", []),
        ("today, May 15, 2024 (2024-05-15)", []),
        ("Your user ID looks like 'sara_doe_496'.", []),
        ("Run `curl https://api.acme.test/v1/users/42`.", []),
        ("The total is $1,047 and the difference = $90.", []),
        ("Prices here are hypothetical: about $75.", []),
    ],
)
def test_what_an_answer_states(text, found):
    assert facts(text) == found


def test_a_price_adds_up_from_what_was_given_or_worked_out():
    given, worked = {Decimal(50), Decimal(30)}, {Decimal(123), Decimal(137)}
    assert adds_up(Decimal(369), given, worked, [])  # 123 for three passengers
    assert adds_up(Decimal(260), given, worked, [])  # two fares
    assert adds_up(Decimal(173), given, worked, [])  # a fare and a bag
    assert adds_up(Decimal(459), given, worked, [Decimal(369), Decimal(90)])  # listed, added
    assert not adds_up(Decimal(80), given, set(), [])  # two policy fees make no fare
    assert not adds_up(Decimal(240), given, worked, [])


def _conversation(*parts: tuple[str, str, tuple, ToolResult | None]) -> Conversation:
    messages = tuple(
        Message(i, role, text, HERE, calls, result=result)
        for i, (role, text, calls, result) in enumerate(parts)
    )
    return Conversation("b", "browser-result", HERE, messages, tools=())


def test_answers_after_an_unrecorded_outcome_state_what_the_pages_may_have_shown():
    prompt = ("system", "You browse the web for the user.", (), None)
    asked = ("user", "Find a vet near 75228.", (), None)
    call = ToolCall("a0", "click", {"x": 1, "y": 2}, origin="text")
    clicked = ("assistant", "Clicking.", (call,), None)
    blind = ToolResult("a0", UNRECORDED, None, "click", unrecorded=True)
    outcome = ("tool", UNRECORDED, (), blind)
    answer = ("assistant", "Call them at +1 (214) 555-0142.", (), None)
    after = _conversation(prompt, asked, clicked, outcome, answer)
    assert list(ungrounded_answer_fact.check(replay(after), None)) == []
    (violation,) = ungrounded_answer_fact.check(replay(_conversation(prompt, asked, answer)), None)
    assert violation.message == (
        "the assistant tells the user the phone number `+1 (214) 555-0142`, which no user turn, "
        "system prompt, tool declaration or tool result of the conversation gave"
    )
    # without a prompt, what the agent was given is not all in the log
    assert list(ungrounded_answer_fact.check(replay(_conversation(asked, answer)), None)) == []
